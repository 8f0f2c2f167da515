import { applyDecorators, Controller, Get, Inject, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Authenticated, RequiredCaller } from '../../../shared/auth/auth.decorators';
import { scopeOf, type CallerContext } from '../../../shared/auth/request-context';
import { ApiErrors } from '../../../shared/http/api-docs';
import { INVOICE_STATUSES } from '../../invoices';
import { PAYMENT_STATUSES } from '../../payments';
import { REFUND_STATUSES } from '../../refunds';
import { csvHeader, csvRow, EXPORT_COLUMNS, ExportKind } from '../domain/csv';
import { CsvExports } from './csv-exports.service';

const TIME_DOC = 'YYYY-MM-DD HH:MM:SS (UTC), YYYY-MM-DD (the whole day, UTC) or ISO 8601';

const EXAMPLES: Record<ExportKind, object> = {
  invoices: {
    id: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00',
    organization_id: 'org_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e10',
    status: 'COMPLETED',
    substatus: null,
    currency: 'USD',
    price: '25.000000000000000000000000000000',
    price_usd: '25.000000000000000000000000000000',
    refunded_usd: '0.000000000000000000000000000000',
    customer_email: 'jane@example.com',
    created_at: '2026-11-02 09:30:00',
    updated_at: '2026-11-02 09:41:12',
    expires_at: '2026-11-02 10:30:00',
    monitoring_until: '2026-11-02 11:30:00',
    redirect_url: null,
    checkout_url: 'https://pay.example.com/checkout/invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00',
    metadata: { order: '1042' },
  },
  payments: {
    id: 'payment_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01',
    organization_id: 'org_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e10',
    invoice_id: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00',
    provider_id: 'prov_ethereum_usdt',
    status: 'COMPLETED',
    currency: 'USDT',
    price: '25.000000000000000000000000000000',
    price_usd: '25.000000000000000000000000000000',
    tx_hash: null,
    confirmations: 12,
    required_confirmations: 12,
    idempotency_key: null,
    happened_at: '2026-11-02 09:40:00',
    created_at: '2026-11-02 09:40:00',
    updated_at: '2026-11-02 09:41:12',
  },
  refunds: {
    id: 'refund_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e20',
    invoice_id: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00',
    status: 'AWAITING_DESTINATION',
    amount: '10.000000000000000000000000000000',
    currency: 'USD',
    amount_usd: '10.000000000000000000000000000000',
    rate: 'original',
    reason: '=not a formula',
    claim_url: 'https://pay.example.com/refund_claims/AbC',
    expires_at: '2026-11-09 09:30:00',
    destination: null,
    payout: null,
    created_at: '2026-11-02 09:30:00',
    updated_at: '2026-11-02 09:30:00',
  },
};

function exampleCsv(kind: ExportKind): string {
  return csvHeader(EXPORT_COLUMNS[kind]) + csvRow(EXPORT_COLUMNS[kind], EXAMPLES[kind]);
}

function ListParam(name: string, description: string, values?: readonly string[]) {
  return ApiQuery({
    name,
    required: false,
    description: `${description} Several values: repeat the parameter or separate them with commas.`,
    schema: { type: 'array', items: values ? { type: 'string', enum: [...values] } : { type: 'string' } },
    style: 'form',
    explode: true,
  });
}

/** The documentation every export shares: the period, the CSV answer and the errors. */
function ExportDocs(kind: ExportKind, summary: string): MethodDecorator {
  const columns = EXPORT_COLUMNS[kind].map((c) => c.header).join(', ');
  return applyDecorators(
    ApiOperation({
      summary,
      description:
        `CSV (RFC 4180, UTF-8, CRLF line ends) of the ${kind} of the key's mode, newest first, one line per object after a header line: ${columns}. ` +
        'Nested objects are flattened into dotted columns; metadata is one column of JSON; amounts are exact decimal strings as the API renders them; timestamps UTC. ' +
        "A cell that starts with =, +, -, @, a tab or a carriage return is prefixed with ' so spreadsheets read it as text (formula injection), and so is such a character after a ;, a tab or a line break inside a cell. " +
        'The response is streamed as it is read (any size); a failure after the first line ends the transfer without its final chunk. ' +
        'Any key (read-only included). Unknown parameters are refused (400 naming the parameter); empty ones are ignored.',
    }),
    ApiQuery({ name: 'created_at_from', required: false, description: `Inclusive lower bound on created_at: ${TIME_DOC}`, example: '2026-11-01' }),
    ApiQuery({ name: 'created_at_to', required: false, description: `Inclusive upper bound on created_at: ${TIME_DOC}`, example: '2026-11-30' }),
    ApiProduces('text/csv'),
    ApiOkResponse({
      description: `The ${kind}, as CSV`,
      content: { 'text/csv': { schema: { type: 'string' }, example: exampleCsv(kind) } },
    }),
    ApiErrors(400, 401),
  );
}

/**
 * CSV exports over the API (decisions §25): the same columns and filters as the console's Export
 * buttons, for any key of the organization (one mode: the key's).
 */
@ApiTags('Exports')
@Controller('exports')
export class ExportsController {
  constructor(@Inject(CsvExports) private readonly exports: CsvExports) {}

  @Get('invoices.csv')
  @Authenticated()
  @ExportDocs('invoices', 'Export invoices as CSV')
  @ListParam('status', 'Invoice statuses (OR).', INVOICE_STATUSES)
  @ListParam('currency', 'Invoice currencies (OR); tickers are read (btc is BITCOIN).')
  @ApiQuery({ name: 'price_usd_from', required: false, description: 'Inclusive lower bound on price_usd (decimal)', example: '10' })
  @ApiQuery({ name: 'price_usd_to', required: false, description: 'Inclusive upper bound on price_usd (decimal)', example: '1000.50' })
  @ApiQuery({ name: 'customer_email', required: false, description: 'Exact customer email, compared case-insensitively', example: 'jane@example.com' })
  @ApiQuery({ name: 'provider_id', required: false, description: 'Only invoices having a payment through this provider', example: 'prov_ethereum_usdt' })
  async invoices(@RequiredCaller() caller: CallerContext, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    await this.exports.send(res, 'invoices', scopeOf(caller), this.exports.filterOf('invoices', query));
  }

  @Get('payments.csv')
  @Authenticated()
  @ExportDocs('payments', 'Export payments as CSV')
  @ListParam('status', 'Payment statuses (OR).', PAYMENT_STATUSES)
  @ListParam('currency', 'Payment currencies (OR); tickers are read.')
  @ApiQuery({ name: 'price_usd_from', required: false, description: 'Inclusive lower bound on price_usd (decimal)', example: '10' })
  @ApiQuery({ name: 'price_usd_to', required: false, description: 'Inclusive upper bound on price_usd (decimal)', example: '1000.50' })
  @ListParam('provider_id', 'Provider ids (OR).')
  @ApiQuery({ name: 'invoice_id', required: false, description: 'Only the payments of this invoice', example: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00' })
  async payments(@RequiredCaller() caller: CallerContext, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    await this.exports.send(res, 'payments', scopeOf(caller), this.exports.filterOf('payments', query));
  }

  @Get('refunds.csv')
  @Authenticated()
  @ExportDocs('refunds', 'Export refunds as CSV')
  @ListParam('status', 'Refund statuses (OR).', REFUND_STATUSES)
  @ApiQuery({ name: 'invoice_id', required: false, description: "Only this invoice's refunds", example: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00' })
  async refunds(@RequiredCaller() caller: CallerContext, @Query() query: Record<string, unknown>, @Res() res: Response): Promise<void> {
    await this.exports.send(res, 'refunds', scopeOf(caller), this.exports.filterOf('refunds', query));
  }
}
