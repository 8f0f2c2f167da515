import { Controller, Get, Inject, Param, Req } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Authenticated, Caller } from '../../shared/auth/auth.decorators';
import type { CallerContext } from '../../shared/auth/request-context';
import { scopeOf } from '../../shared/auth/request-context';
import { AppConfig } from '../../shared/config/app-config';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { publicBaseUrl } from '../../shared/http/public-url';
import { EnvelopeReply, reply } from '../../shared/http/envelope';
import { INVOICE_PROVIDERS_EXAMPLE, InvoiceProvidersDto } from './dto/provider.response.dto';
import { InvoiceProvidersView, ListInvoiceProvidersQuery } from './queries/list-invoice-providers/list-invoice-providers.query';

@ApiTags('Providers')
@Controller('providers')
export class ProvidersController {
  constructor(
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {}

  @Get(':invoice_id')
  @Authenticated({ payer: true })
  @ApiOperation({
    summary: 'Providers available to pay an invoice',
    description:
      "Live mode lists a provider only when it can take money now: the invoice's organization has it enabled, a rail carries it (its network " +
      "is configured for live mode in CHAINS_FILE, with the token's contract for a token) and the organization has an active receiving wallet " +
      'for the chain family (POST /wallets); card and other providers without a rail are not listed. Test mode lists every enabled provider, ' +
      '`has_rail` saying which ones have a deposit address; the others are paid with POST /invoices/{id}/test_payment. `price` is what to send through ' +
      "the provider: the invoice's price_usd in the provider's currency at current rates, rounded up to the provider's decimals. " +
      'Without an Authorization header (payer access) the invoice id is the capability.',
  })
  @ApiParam({ name: 'invoice_id', description: 'Invoice id (invoice_...)', example: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00' })
  @ApiEnvelope({ type: InvoiceProvidersDto, example: INVOICE_PROVIDERS_EXAMPLE, message: 'Providers' })
  @ApiErrors(400, 401, 403, 404)
  async forInvoice(
    @Caller() caller: CallerContext | null,
    @Param('invoice_id') invoiceId: string,
    @Req() req: Request,
  ): Promise<EnvelopeReply<InvoiceProvidersView>> {
    return reply(
      await this.queries.execute(new ListInvoiceProvidersQuery(caller ? scopeOf(caller) : null, invoiceId, publicBaseUrl(this.config, req))),
      'Providers',
    );
  }
}
