import { FaviconController } from './favicon.controller';
import { Module } from '@nestjs/common';
import { CheckoutAssets } from './checkout-assets';
import { CheckoutController } from './checkout.controller';

/**
 * The hosted checkout page: the payer's side of an invoice, served by the service (HTML shell,
 * one ES module script, a stylesheet, the QR code library, strings per language). It reads the
 * invoice only through GetPayableInvoiceQuery (to answer 404 and show the test-mode banner); the
 * page itself works through the public payer API like any merchant-built checkout.
 */
@Module({
  controllers: [CheckoutController, FaviconController],
  providers: [CheckoutAssets],
})
export class CheckoutModule {}
