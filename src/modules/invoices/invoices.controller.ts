import { Audited } from '../../shared/audit/audit-trail';
import { ReadOnlyRoute } from '../../shared/db/write-position.interceptor';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiExtraModels, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { Authenticated, Caller, RequiredCaller } from '../../shared/auth/auth.decorators';
import type { CallerContext } from '../../shared/auth/request-context';
import { scopeOf } from '../../shared/auth/request-context';
import { ApiEnvelope, ApiErrors, SuccessEnvelopeDto } from '../../shared/http/api-docs';
import { Idempotent } from '../../shared/idempotency/idempotency';
import { EnvelopeReply, reply } from '../../shared/http/envelope';
import type { Currency } from '../../shared/money/currency';
import { parseAmount } from '../../shared/money/money';
import { parseTimeBound } from '../../shared/time/time';
import { CreateInvoiceCommand, CreateItemInput } from './commands/create-invoice/create-invoice.command';
import { invoiceChangeCommand } from './commands/invoice-change';
import { INVOICE_STATUSES, InvoiceStatus } from './domain/invoice-status';
import type { Expansion } from './domain/payer-view';
import { CreateInvoiceRequestDto, PaymentIntentItemDoc, ProductItemDoc } from './dto/create-invoice.request.dto';
import { GetInvoiceQueryParamsDto, GetInvoiceRequestDto } from './dto/get-invoice.request.dto';
import {
  INVOICE_EXAMPLE,
  INVOICE_EXPANDED_EXAMPLE,
  InvoiceDto,
  InvoiceIdDto,
  InvoiceListDto,
  InvoiceShortStateDto,
  InvoiceUpdatedDto,
} from './dto/invoice.response.dto';
import type { InvoiceView } from './dto/invoice.views';
import { ListInvoicesRequestDto } from './dto/list-invoices.request.dto';
import { UpdateInvoiceRequestDto } from './dto/update-invoice.request.dto';
import { ObjectBody, objectBodyPipe } from '../../shared/http/object-body';
import { GetInvoiceQuery } from './queries/get-invoice/get-invoice.query';
import { GetShortStateQuery, InvoiceShortState } from './queries/get-short-state/get-short-state.query';
import { InvoicePage, ListInvoicesQuery } from './queries/list-invoices/list-invoices.query';
import type { InvoiceUpdated } from './commands/invoice-change';

const ID_PARAM = { name: 'id', description: 'Invoice id (invoice_...)', example: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00' };
const PAYER_NOTE =
  'Without an Authorization header (payer access) the invoice id is the capability: ' +
  'metadata is left out, customer_email is masked and only payer expansions are allowed.';

/** The audit log's name for a merchant's change of an invoice (a payer's currency change has no key and is not recorded). */
function invoiceAction(body: Record<string, unknown>): string | null {
  if (body.status === 'VOIDED') return 'invoice.void';
  if (body.status === 'COMPLETED') return 'invoice.mark_paid';
  return body.currency === undefined ? null : 'invoice.change_currency';
}

@ApiTags('Invoices')
@ApiExtraModels(ProductItemDoc, PaymentIntentItemDoc)
@Controller('invoices')
export class InvoicesController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
  ) {}

  @Post('create')
  @HttpCode(201)
  @Authenticated({ write: true })
  @Idempotent()
  @ApiOperation({
    summary: 'Create an invoice',
    description:
      'Items (1 to 100) are PRODUCT or PAYMENT_INTENT items; prices are computed at current rates. The invoice starts PENDING; an invoice of 0 (free products, intents of 0) is COMPLETED as it is issued (invoice.created, invoice.updated, invoice.completed), since nothing could pay it. In live mode with live rate sources (RATE_SOURCES), a rate older than RATES_MAX_AGE_SECONDS, of a currency the items or the invoice use or of a method the organization can be paid with live (GET /providers/{invoice_id}), answers 503 `rates_unavailable` and nothing is stored; its Retry-After header gives the seconds until the sources are asked again (RATES_REFRESH_SECONDS).',
  })
  @ApiBody({
    type: CreateInvoiceRequestDto,
    examples: {
      payment_intent: {
        value: {
          items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '25.50' }],
          customer_email: 'jane@example.com',
          metadata: { order_id: '1234' },
          redirect_url: 'https://shop.example.com/thanks',
        },
      },
      product: {
        value: {
          items: [
            {
              type: 'PRODUCT',
              product_id: 'product_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f',
              billing_schema_id: 'schema_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e10',
              quantity: 2,
            },
          ],
          currency: 'USDT',
          customer_email: 'jane@example.com',
        },
      },
    },
  })
  @ApiEnvelope({ status: 201, type: InvoiceIdDto, example: { id: INVOICE_EXAMPLE.id }, message: 'Invoice created' })
  @ApiErrors(400, 401, 403, 409, 503)
  async create(@RequiredCaller() caller: CallerContext, @Body() body: CreateInvoiceRequestDto): Promise<EnvelopeReply<{ id: string }>> {
    const items = body.items.map((i): CreateItemInput =>
      i.type === 'PRODUCT'
        ? { type: 'PRODUCT', product_id: i.product_id!, billing_schema_id: i.billing_schema_id!, quantity: i.quantity! }
        : { type: 'PAYMENT_INTENT', currency: i.currency as Currency, price: i.price! },
    );
    const created = await this.commands.execute(
      new CreateInvoiceCommand(scopeOf(caller), {
        items,
        currency: (body.currency as Currency | undefined) ?? null,
        customerEmail: body.customer_email ?? null,
        metadata: body.metadata ?? {},
        redirectUrl: body.redirect_url ?? null,
        expiresInMinutes: body.expires_in_minutes ?? null,
      }),
    );
    return reply(created, 'Invoice created');
  }

  @Post('list')
  @ReadOnlyRoute()
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({
    summary: 'List invoices',
    description:
      'Newest first (created_at, then id). Filters combine with AND, values inside one array with OR; bounds are inclusive. limit default 20 (at most 100), offset default 0; for deep pages pass starting_after (the last id of the previous page) instead of a growing offset.',
  })
  @ApiBody({
    type: ListInvoicesRequestDto,
    examples: { filtered: { value: { status: ['PENDING'], currency: ['USD'], price_usd_from: '10', created_at_from: '2026-11-01', limit: 20, offset: 0 } } },
  })
  @ApiEnvelope({ type: InvoiceListDto, example: { items: [INVOICE_EXAMPLE], total: 1, limit: 20, offset: 0, has_more: false } })
  @ApiErrors(400, 401, 403)
  async list(@RequiredCaller() caller: CallerContext, @Body() body: ListInvoicesRequestDto): Promise<EnvelopeReply<InvoicePage>> {
    const page = await this.queries.execute(
      new ListInvoicesQuery(scopeOf(caller), {
        status: body.status as InvoiceStatus[] | undefined,
        currency: body.currency as Currency[] | undefined,
        priceUsdFrom: body.price_usd_from != null ? parseAmount(body.price_usd_from) : undefined,
        priceUsdTo: body.price_usd_to != null ? parseAmount(body.price_usd_to) : undefined,
        createdFrom: body.created_at_from != null ? (parseTimeBound(body.created_at_from, 'from') ?? undefined) : undefined,
        createdTo: body.created_at_to != null ? (parseTimeBound(body.created_at_to, 'to') ?? undefined) : undefined,
        customerEmail: body.customer_email,
        providerId: body.provider_id,
        startingAfter: body.starting_after,
        limit: body.limit ?? 20,
        offset: body.offset ?? 0,
      }),
    );
    return reply(page, 'Invoices');
  }

  @Post(':id')
  @ReadOnlyRoute()
  @HttpCode(200)
  @Authenticated({ payer: true })
  @ApiOperation({ summary: 'Read an invoice', description: `Body may be {} or []. ${PAYER_NOTE}` })
  @ApiParam(ID_PARAM)
  @ApiBody({
    type: GetInvoiceRequestDto,
    required: false,
    examples: {
      expanded: { value: { expand: ['items', 'calculations', 'organization', 'payments'] } },
      summary: { value: { currency: 'BITCOIN' } },
    },
  })
  @ApiEnvelope({ type: InvoiceDto, example: INVOICE_EXPANDED_EXAMPLE, message: 'Invoice' })
  @ApiErrors(400, 401, 403, 404)
  async read(
    @Caller() caller: CallerContext | null,
    @Param('id') id: string,
    @ObjectBody(objectBodyPipe) body: GetInvoiceRequestDto,
  ): Promise<EnvelopeReply<InvoiceView>> {
    const view = await this.queries.execute(
      new GetInvoiceQuery(caller ? scopeOf(caller) : null, id, (body.expand ?? []) as Expansion[], (body.currency as Currency | undefined) ?? null),
    );
    return reply(view, 'Invoice');
  }

  @Get(':id')
  @Authenticated({ payer: true })
  @ApiOperation({
    summary: 'Read an invoice (GET form)',
    description: `The same answer as \`POST /invoices/{id}\`, with \`expand\` and \`currency\` in the query string. ${PAYER_NOTE}`,
  })
  @ApiParam(ID_PARAM)
  @ApiQuery({ name: 'expand', required: false, type: String, example: 'items,payments', description: 'Comma-separated or repeated' })
  @ApiQuery({ name: 'currency', required: false, type: String, example: 'BITCOIN', description: 'Adds `summary` in this currency' })
  @ApiEnvelope({ type: InvoiceDto, example: INVOICE_EXPANDED_EXAMPLE, message: 'Invoice' })
  @ApiErrors(400, 401, 403, 404)
  async readWithGet(
    @Caller() caller: CallerContext | null,
    @Param('id') id: string,
    @Query() query: GetInvoiceQueryParamsDto,
  ): Promise<EnvelopeReply<InvoiceView>> {
    return this.read(caller, id, query);
  }

  @Put(':id')
  @HttpCode(200)
  @Authenticated({ write: true, payer: true, payerFields: ['currency'] })
  @Audited(invoiceAction)
  @ApiOperation({
    summary: 'Change an invoice status or currency',
    description:
      'Send exactly one of status or currency. Status (key required): PENDING -> VOIDED; PENDING or PARTIALLY_PAID -> COMPLETED (substatus MARKED_PAID); ' +
      'other moves are 400 invalid_state_transition with validator.status naming the allowed targets. Currency: only while PENDING; recomputes the calculations at current rates. ' +
      "Without a key only a currency change is allowed (a status change is 401). A read-only key has at least a payer's rights: it may change the currency " +
      "of its own organization's invoices, and a status change with it is 403 read_only_key. " +
      'A change to the currency the invoice already has is a no-op for every caller (200 "Invoice currency is already X; nothing changed": no re-quote, no invoice.updated event, no webhook delivery). ' +
      "Without a key an invoice's currency may be changed at most 5 times an hour (counted from the first change); one more is 429 rate_limited with Retry-After. " +
      "Each accepted change re-quotes and records one invoice.updated event. Calls with a key are not capped per invoice (the key's rate limit applies).",
  })
  @ApiParam(ID_PARAM)
  @ApiBody({
    type: UpdateInvoiceRequestDto,
    examples: { void: { value: { status: 'VOIDED' } }, mark_paid: { value: { status: 'COMPLETED' } }, currency: { value: { currency: 'ETHEREUM' } } },
  })
  @ApiEnvelope({
    type: InvoiceUpdatedDto,
    example: { id: INVOICE_EXAMPLE.id, message: 'Invoice status changed to VOIDED' },
    message: 'Invoice status changed to VOIDED',
  })
  @ApiErrors(400, 401, 403, 404, 429, 503)
  async update(@Caller() caller: CallerContext | null, @Param('id') id: string, @Body() body: UpdateInvoiceRequestDto): Promise<EnvelopeReply<InvoiceUpdated>> {
    const result = await this.commands.execute(
      invoiceChangeCommand(caller ? scopeOf(caller) : null, id, {
        status: body.status as InvoiceStatus | undefined,
        currency: body.currency as Currency | undefined,
      }),
    );
    return reply(result, result.message);
  }

  @Get(':id/short_state')
  @Authenticated({ payer: true })
  @ApiOperation({
    summary: 'Read the current state of an invoice',
    description: 'HTTP 200; the envelope\'s status field holds the invoice state string (e.g. "PENDING") instead of the HTTP code.',
  })
  @ApiParam(ID_PARAM)
  @ApiExtraModels(InvoiceShortStateDto, SuccessEnvelopeDto)
  @ApiResponse({
    status: 200,
    description: 'Success; the envelope status holds the invoice state string (e.g. "PENDING"), not the HTTP code',
    content: {
      'application/json': {
        schema: {
          allOf: [
            { $ref: getSchemaPath(SuccessEnvelopeDto) },
            {
              type: 'object',
              properties: { status: { type: 'string', enum: [...INVOICE_STATUSES] }, data: { $ref: getSchemaPath(InvoiceShortStateDto) } },
              required: ['status', 'data'],
            },
          ],
        },
        example: {
          status: 'PENDING',
          data: { id: INVOICE_EXAMPLE.id, status: 'PENDING', substatus: null, updated_at: '2026-11-21 10:00:00' },
          error: null,
          message: 'Invoice state',
          env: 'development',
          log: { request_id: '5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11' },
          validator: null,
          support_id: null,
        },
      },
    },
  })
  @ApiErrors(400, 401, 403, 404)
  async shortState(@Caller() caller: CallerContext | null, @Param('id') id: string): Promise<EnvelopeReply<InvoiceShortState>> {
    const state = await this.queries.execute(new GetShortStateQuery(caller ? scopeOf(caller) : null, id));
    return new EnvelopeReply(state, 'Invoice state', state.status);
  }
}
