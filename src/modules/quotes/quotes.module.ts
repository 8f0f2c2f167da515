import { Module } from '@nestjs/common';
import { CalculatePricesHandler } from './queries/calculate-prices/calculate-prices.handler';
import { QuotePriceHandler } from './queries/quote-price/quote-price.handler';
import { QuotesController } from './quotes.controller';

@Module({
  controllers: [QuotesController],
  providers: [CalculatePricesHandler, QuotePriceHandler],
})
export class QuotesModule {}
