import { Controller, Get, Headers, Inject, Param, Query, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiHeader, ApiOperation, ApiParam, ApiProduces, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../../shared/auth/auth.decorators';
import { AppConfig } from '../../shared/config/app-config';
import { CURRENCIES } from '../../shared/money/currency';
import { clientBucket } from '../../shared/rate-limit/client-address';
import { RateLimiter } from '../../shared/rate-limit/rate-limiter';
import { Clock } from '../../shared/time/clock';
import { GetPayableInvoiceQuery } from '../invoices';
import { PROVIDER_CATALOG } from '../providers';
import { CheckoutAssets, CHECKOUT_SCRIPTS } from './checkout-assets';
import { currencyFacts } from './domain/currency-facts';
import { chooseLanguage, CHECKOUT_LANGUAGES } from './domain/locale';
import { renderCheckoutPage, renderMessagePage, Shell } from './domain/page';

/** How often the page asks for the invoice's short state, and how long it shows "paid" before redirecting. */
export const DEFAULT_POLL_MS = 4000;
export const DEFAULT_REDIRECT_MS = 5000;
/** The currency facts the page's script reads (tickers, coins' decimals from the provider catalog, coins' names). */
const CURRENCY_FACTS = currencyFacts(CURRENCIES, PROVIDER_CATALOG);

/** A whole number of milliseconds from the query, kept within bounds; the default otherwise. */
function millis(value: unknown, fallback: number, min: number, max: number): number {
  if (typeof value !== 'string' || !/^\d{1,7}$/.test(value)) return fallback;
  return Math.min(max, Math.max(min, Number(value)));
}

const PAGE_EXAMPLE =
  '<!doctype html>\n<html lang="en">\n<head>…<title>Checkout</title>\n<link rel="stylesheet" href="/checkout/assets/checkout.css?v=…">\n' +
  '<script type="module" src="/checkout/assets/checkout.js?v=…"></script></head>\n<body><main id="checkout" data-invoice-id="invoice_…" …>…</main></body></html>';

/**
 * The hosted checkout page (decisions §16): GET /checkout/{invoice_id} renders the shell in the
 * payer's language; its script then calls only the public payer API. The invoice id is the
 * capability, as for the payer calls: no key is read, and an unknown id is a 404 page. The page's
 * script, stylesheet and QR library are served from /checkout/assets/.
 */
@ApiTags('Checkout')
@Controller('checkout')
export class CheckoutController {
  constructor(
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(RateLimiter) private readonly limiter: RateLimiter,
    @Inject(CheckoutAssets) private readonly assets: CheckoutAssets,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  @Get('assets/:file')
  @Public()
  @ApiOperation({
    summary: 'A file of the checkout page (script, stylesheet, QR code library, icon)',
    description: 'Public. Linked with ?v=<content hash>, cacheable for a year; unknown names are 404.',
  })
  @ApiParam({ name: 'file', enum: [...CHECKOUT_SCRIPTS, 'checkout.css', 'qrcode.mjs', 'favicon.svg'], example: 'checkout.js' })
  @ApiProduces('text/javascript', 'text/css', 'image/svg+xml')
  @ApiResponse({ status: 200, description: 'The file' })
  @ApiResponse({ status: 404, description: 'No such file' })
  asset(@Param('file') file: string, @Query('v') version: unknown, @Res() res: Response): void {
    const asset = this.assets.files.get(file);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (!asset) {
      res.status(404).type('text/plain; charset=utf-8').send('Not found');
      return;
    }
    const immutable = version === this.assets.version;
    res.setHeader('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=300');
    res.status(200).type(asset.contentType).send(asset.body);
  }

  @Get(':invoice_id')
  @Public()
  @ApiOperation({
    summary: 'The hosted checkout page of an invoice (HTML)',
    description:
      "The page to send a payer to (the invoice read's checkout_url), or to embed in a frame where CHECKOUT_FRAME_ANCESTORS allows it. " +
      "No key: the invoice id is the capability, as for the payer calls, and the payer calls' anonymous rate limit applies (429 page). " +
      'It shows the merchant, the items and the total, a currency selector, the providers grouped by network, and for the chosen one the exact amount, ' +
      'the address, a QR code of the payment URI and an "open in wallet" link; then the live state (waiting, "n of m confirmations", partially paid with ' +
      'the remaining amount, paid and a redirect to redirect_url, expired, paid late, cancelled). Its script calls only POST /invoices/{id}, ' +
      'PUT /invoices/{id} (currency), GET /providers/{invoice_id}, POST /invoices/{id}/payment_address and GET /invoices/{id}/short_state, so a merchant ' +
      'can build the same page on the same calls. An unknown id is a 404 page (the same page whatever the id); so is every id when PUBLIC_PAYER_ACCESS=false. ' +
      "Strict Content-Security-Policy: no inline script or style, nothing from another host but https images (the merchant's logo).",
  })
  @ApiParam({ name: 'invoice_id', description: 'Invoice id (invoice_...)', example: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00' })
  @ApiQuery({
    name: 'lang',
    required: false,
    enum: [...CHECKOUT_LANGUAGES],
    description: 'Language of the page; default: the best match of Accept-Language, else en',
  })
  @ApiQuery({
    name: 'poll_ms',
    required: false,
    schema: { type: 'integer', minimum: 250, maximum: 60000, default: DEFAULT_POLL_MS },
    description: 'How often the page asks for the invoice state, in milliseconds',
  })
  @ApiQuery({
    name: 'redirect_ms',
    required: false,
    schema: { type: 'integer', minimum: 0, maximum: 60000, default: DEFAULT_REDIRECT_MS },
    description: 'How long "paid" shows before the page goes to redirect_url',
  })
  @ApiHeader({ name: 'Accept-Language', required: false, description: 'Chooses the language when lang is not given (en, de)' })
  @ApiProduces('text/html')
  @ApiResponse({ status: 200, description: 'The checkout page', content: { 'text/html': { schema: { type: 'string' }, example: PAGE_EXAMPLE } } })
  @ApiResponse({ status: 404, description: 'No such invoice: a page saying so', content: { 'text/html': { schema: { type: 'string' } } } })
  @ApiResponse({
    status: 429,
    description: 'Over the anonymous rate limit: a page saying so, with Retry-After',
    content: { 'text/html': { schema: { type: 'string' } } },
  })
  async page(
    @Param('invoice_id') invoiceId: string,
    @Query('lang') lang: unknown,
    @Query('poll_ms') pollMs: unknown,
    @Query('redirect_ms') redirectMs: unknown,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const language = chooseLanguage(lang, acceptLanguage);
    const strings = this.assets.stringsOf(language);
    const shell: Shell = {
      lang: language,
      strings,
      languages: this.assets.languages,
      base: this.config.publicBaseUrl ?? '',
      assetVersion: this.assets.version,
    };
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Vary', 'Accept-Language');
    res.type('text/html; charset=utf-8');

    if (this.limiter.enabled) {
      // The same client budget as the payer's API calls: an IPv6 client by its /64, an IPv4-mapped one by its IPv4 address.
      const decision = await this.limiter.forAnonymous(clientBucket(req.ip));
      res.setHeader('RateLimit-Limit', String(decision.limit));
      res.setHeader('RateLimit-Remaining', String(decision.remaining));
      res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
      if (!decision.allowed) {
        res.setHeader('Retry-After', String(decision.resetSeconds));
        res.status(429).send(renderMessagePage(shell, strings.rate_limited_title, strings.rate_limited_text));
        return;
      }
    }
    const invoice = this.config.PUBLIC_PAYER_ACCESS ? await this.queries.execute(new GetPayableInvoiceQuery(null, invoiceId)) : null;
    if (!invoice) {
      res.status(404).send(renderMessagePage(shell, strings.not_found_title, strings.not_found_text));
      return;
    }
    // The invoice's own now (its organization's test clock in test mode): the countdown runs on it.
    const now = await this.clock.nowFor({ organizationId: invoice.organizationId, mode: invoice.mode });
    res.status(200).send(
      renderCheckoutPage({
        ...shell,
        invoiceId: invoice.id,
        now: now.toISOString(),
        testMode: invoice.mode === 'test',
        pollMs: millis(pollMs, DEFAULT_POLL_MS, 250, 60_000),
        redirectMs: millis(redirectMs, DEFAULT_REDIRECT_MS, 0, 60_000),
        currencies: CURRENCIES,
        currencyFacts: CURRENCY_FACTS,
      }),
    );
  }
}
