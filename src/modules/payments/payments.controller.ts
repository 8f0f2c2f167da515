import { Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Authenticated, Caller, RequiredCaller } from '../../shared/auth/auth.decorators';
import type { CallerContext } from '../../shared/auth/request-context';
import { scopeOf } from '../../shared/auth/request-context';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { EnvelopeReply, reply } from '../../shared/http/envelope';
import { ObjectBody, objectBodyPipe } from '../../shared/http/object-body';
import type { Currency } from '../../shared/money/currency';
import { parseAmount } from '../../shared/money/money';
import { parseTimeBound } from '../../shared/time/time';
import { canonicalProviderId } from '../providers';
import type { PaymentStatus } from './domain/payment-status';
import { GetPaymentRequestDto, ListPaymentsRequestDto } from './dto/payment.request.dto';
import { PAYMENT_EXAMPLE, PAYMENT_EXPANDED_EXAMPLE, PaymentDto, PaymentListDto } from './dto/payment.response.dto';
import type { PaymentPage, PaymentView } from './dto/payment.views';
import { GetPaymentQuery } from './queries/get-payment/get-payment.query';
import { ListPaymentsQuery, PaymentExpansion } from './queries/list-payments/list-payments.query';
import { ReadOnlyRoute } from '../../shared/db/write-position.interceptor';

@ApiTags('Payments')
@Controller('payments')
export class PaymentsController {
  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  @Post()
  @ReadOnlyRoute()
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({
    summary: 'List payments',
    description:
      'Newest first (created_at, then id). Filters combine with AND, values inside one array with OR; bounds are inclusive. ' +
      'limit default 20 (at most 100), offset default 0; for deep pages pass starting_after (the last id of the previous page) instead of a growing offset. The body may be {} or [].',
  })
  @ApiBody({
    type: ListPaymentsRequestDto,
    required: false,
    examples: {
      filtered: {
        value: {
          provider_id: ['prov_ethereum_usdt'],
          status: ['COMPLETED'],
          currency: ['USDT'],
          price_usd_from: '10',
          created_at_from: '2026-11-01',
          expand: ['provider'],
          limit: 20,
          offset: 0,
        },
      },
      by_invoice: { value: { invoice_id: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00' } },
    },
  })
  @ApiEnvelope({ type: PaymentListDto, example: { items: [PAYMENT_EXPANDED_EXAMPLE], total: 1, limit: 20, offset: 0, has_more: false }, message: 'Payments' })
  @ApiErrors(400, 401, 403)
  async list(@RequiredCaller() caller: CallerContext, @ObjectBody(objectBodyPipe) body: ListPaymentsRequestDto): Promise<EnvelopeReply<PaymentPage>> {
    const page = await this.queries.execute(
      new ListPaymentsQuery(
        scopeOf(caller),
        {
          providerId: body.provider_id?.map(canonicalProviderId),
          invoiceId: body.invoice_id,
          status: body.status as PaymentStatus[] | undefined,
          currency: body.currency as Currency[] | undefined,
          priceUsdFrom: body.price_usd_from != null ? parseAmount(body.price_usd_from) : undefined,
          priceUsdTo: body.price_usd_to != null ? parseAmount(body.price_usd_to) : undefined,
          createdFrom: body.created_at_from != null ? (parseTimeBound(body.created_at_from, 'from') ?? undefined) : undefined,
          createdTo: body.created_at_to != null ? (parseTimeBound(body.created_at_to, 'to') ?? undefined) : undefined,
          startingAfter: body.starting_after,
          limit: body.limit ?? 20,
          offset: body.offset ?? 0,
        },
        (body.expand ?? []) as PaymentExpansion[],
      ),
    );
    return reply(page, 'Payments');
  }

  @Post(':id')
  @ReadOnlyRoute()
  @HttpCode(200)
  @Authenticated({ payer: true })
  @ApiOperation({
    summary: 'Read a payment',
    description:
      'The body may be {} or []; `expand: ["provider"]` adds the provider. Without an Authorization header (payer access) the payment id ' +
      'is the capability and idempotency_key is left out.',
  })
  @ApiParam({ name: 'id', description: 'Payment id (payment_...)', example: PAYMENT_EXAMPLE.id })
  @ApiBody({ type: GetPaymentRequestDto, required: false, examples: { expanded: { value: { expand: ['provider'] } } } })
  @ApiEnvelope({ type: PaymentDto, example: PAYMENT_EXPANDED_EXAMPLE, message: 'Payment' })
  @ApiErrors(400, 401, 403, 404)
  async read(
    @Caller() caller: CallerContext | null,
    @Param('id') id: string,
    @ObjectBody(objectBodyPipe) body: GetPaymentRequestDto,
  ): Promise<EnvelopeReply<PaymentView>> {
    const view = await this.queries.execute(new GetPaymentQuery(caller ? scopeOf(caller) : null, id, (body.expand ?? []) as PaymentExpansion[]));
    return reply(view, 'Payment');
  }
}
