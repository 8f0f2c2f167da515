import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, RequiredCaller } from '../../shared/auth/auth.decorators';
import { scopeOf } from '../../shared/auth/request-context';
import type { CallerContext } from '../../shared/auth/request-context';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { reply } from '../../shared/http/envelope';
import { QUOTE_EXAMPLE, QUOTE_SCHEMA } from './dto/quote.response.dto';
import { QuoteRequestDto } from './dto/quote.request.dto';
import { toItemInput } from './dto/item-input.dto';
import { QuotePriceQuery } from './queries/quote-price/quote-price.query';
import { ReadOnlyRoute } from '../../shared/db/write-position.interceptor';

@ApiTags('Quotes')
@Controller('pay')
export class QuotesController {
  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  @Post('quote')
  @ReadOnlyRoute()
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({
    summary: 'Price quote with currency conversion',
    description:
      'Send `currency` and exactly one of `product`, `invoice_id` or `items`. Amounts are converted through the USD rates of the snapshot in force now (`exchange_rate_timestamp`), rounded half-up at 30 fractional digits; with `invoice_id`, through the snapshot the invoice holds while its rate lock holds (until its expires_at), as its payment addresses ask. `null` for a variant is 400 at its field. Nothing is stored. In live mode with live rate sources (RATE_SOURCES), a rate older than RATES_MAX_AGE_SECONDS, of a currency the quote uses or of a method the organization can be paid with live, answers 503 `rates_unavailable`, with a Retry-After header giving the seconds until the sources are asked again (RATES_REFRESH_SECONDS).',
  })
  @ApiBody({
    type: QuoteRequestDto,
    examples: {
      product: {
        value: {
          currency: 'ETHEREUM',
          product: { id: 'product_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f', billing_schema_id: 'schema_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e10', quantity: 1 },
        },
      },
      invoice: { value: { currency: 'BITCOIN', invoice_id: 'invoice_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f' } },
      items: { value: { currency: 'USDT', items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '49.99' }] } },
    },
  })
  @ApiEnvelope({ schema: QUOTE_SCHEMA, example: QUOTE_EXAMPLE, message: 'Quote calculated' })
  @ApiErrors(400, 401, 403, 404, 503)
  async quote(@RequiredCaller() caller: CallerContext, @Body() body: QuoteRequestDto) {
    // A null variant stays null (the query refuses it as given), as product and invoice_id do.
    const items = body.items === null ? null : body.items?.map(toItemInput);
    const variants = { product: body.product, invoice_id: body.invoice_id, items };
    return reply(await this.queries.execute(new QuotePriceQuery(scopeOf(caller), body.currency, variants)), 'Quote calculated');
  }
}
