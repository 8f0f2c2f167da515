import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Authenticated, RequiredCaller } from '../../shared/auth/auth.decorators';
import type { CallerContext } from '../../shared/auth/request-context';
import { scopeOf } from '../../shared/auth/request-context';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { EnvelopeReply, reply } from '../../shared/http/envelope';
import { Idempotent } from '../../shared/idempotency/idempotency';
import { parseTimeBound } from '../../shared/time/time';
import { RecordedPayment, RecordProviderPaymentCommand } from './commands/record-provider-payment/record-provider-payment.command';
import type { PaymentStatus } from './domain/payment-status';
import {
  SimulatedPaymentDto,
  SimulatePaymentConfirmationsRequestDto,
  SimulatePaymentRequestDto,
  SimulatePaymentStatusRequestDto,
} from './dto/test-helpers.dto';

const SIMULATED = {
  id: 'payment_01936a5f-1b2c-7d3e-8f40-5a6b7c8d9e01',
  status: 'PENDING',
  created: true,
  confirmations: 3,
  required_confirmations: 12,
  invoice: { id: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00', status: 'WAITING_FOR_CONFIRMATIONS', substatus: null, previous_status: 'PENDING' },
};

function simulated(r: RecordedPayment): SimulatedPaymentDto {
  return {
    id: r.paymentId,
    status: r.status,
    created: r.created,
    confirmations: r.confirmations,
    required_confirmations: r.requiredConfirmations,
    invoice: { id: r.invoiceId, status: r.invoice.status, substatus: r.invoice.substatus, previous_status: r.invoice.previousStatus },
  };
}

/**
 * Test mode only: simulate what a provider reports, through the same RecordProviderPaymentCommand a
 * real provider notification uses, so invoices move exactly as they will in live mode.
 */
@ApiTags('Test helpers')
@Controller('test_helpers/payments')
export class TestHelpersController {
  constructor(@Inject(CommandBus) private readonly commands: CommandBus) {}

  @Post()
  @HttpCode(201)
  @Authenticated({ write: true, testOnly: true })
  @Idempotent()
  @ApiOperation({
    summary: "Simulate a payer's payment (test keys only)",
    description:
      'Records a payment as a provider would report it: PENDING (seen) or COMPLETED. The invoice moves at once (decisions §8): ' +
      'a crypto payment seen -> WAITING_FOR_CONFIRMATIONS, a fiat one -> PROCESSING, completed payments covering it -> COMPLETED (PAID_OVER when over), ' +
      'part of it -> PARTIALLY_PAID (PAID_PARTIAL); after the invoice expired, a covering payment completes it as PAID_LATE. ' +
      "A crypto payment counts only once its confirmations reach the provider's required_confirmations. Repeating an idempotency_key reports the same payment (created once). " +
      "The Idempotency-Key header (the client's retry key) is separate from the idempotency_key field (the provider's reference): a retry with the same header replays the first response. Live keys get 403.",
  })
  @ApiBody({
    type: SimulatePaymentRequestDto,
    examples: {
      seen: {
        value: { invoice_id: SIMULATED.invoice.id, provider_id: 'prov_ethereum_usdt', price: '25.5', confirmations: 3, idempotency_key: 'sim-0001' },
      },
      completed: { value: { invoice_id: SIMULATED.invoice.id, provider_id: 'prov_card_usd', price: '25.50', status: 'COMPLETED' } },
    },
  })
  @ApiEnvelope({ status: 201, type: SimulatedPaymentDto, example: SIMULATED, message: 'Payment recorded' })
  @ApiErrors(400, 401, 403, 404, 409)
  async simulate(@RequiredCaller() caller: CallerContext, @Body() body: SimulatePaymentRequestDto): Promise<EnvelopeReply<SimulatedPaymentDto>> {
    const recorded = await this.commands.execute(
      new RecordProviderPaymentCommand(scopeOf(caller), {
        kind: 'payment',
        invoiceId: body.invoice_id,
        providerId: body.provider_id,
        price: body.price,
        status: body.status as PaymentStatus | undefined,
        idempotencyKey: body.idempotency_key ?? null,
        happenedAt: body.happened_at != null ? parseTimeBound(body.happened_at, 'from') : null,
        confirmations: body.confirmations ?? null,
      }),
    );
    return reply(simulated(recorded), 'Payment recorded');
  }

  @Post(':id/status')
  @HttpCode(200)
  @Authenticated({ write: true, testOnly: true })
  @ApiOperation({
    summary: "Simulate a provider's status report for a payment (test keys only)",
    description:
      'PENDING -> COMPLETED | FAILED | CANCELLED; a final status never changes (400, validator.status). The same status again changes nothing. ' +
      'The invoice is recomputed in the same transaction. Live keys get 403.',
  })
  @ApiParam({ name: 'id', description: 'Payment id (payment_...)', example: SIMULATED.id })
  @ApiBody({ type: SimulatePaymentStatusRequestDto, examples: { completed: { value: { status: 'COMPLETED' } } } })
  @ApiEnvelope({
    type: SimulatedPaymentDto,
    example: {
      ...SIMULATED,
      status: 'COMPLETED',
      created: false,
      invoice: { ...SIMULATED.invoice, status: 'COMPLETED', previous_status: 'WAITING_FOR_CONFIRMATIONS' },
    },
    message: 'Payment status recorded',
  })
  @ApiErrors(400, 401, 403, 404)
  async status(
    @RequiredCaller() caller: CallerContext,
    @Param('id') id: string,
    @Body() body: SimulatePaymentStatusRequestDto,
  ): Promise<EnvelopeReply<SimulatedPaymentDto>> {
    const recorded = await this.commands.execute(
      new RecordProviderPaymentCommand(scopeOf(caller), { kind: 'status', paymentId: id, status: body.status as PaymentStatus }),
    );
    return reply(simulated(recorded), 'Payment status recorded');
  }

  @Post(':id/confirmations')
  @HttpCode(200)
  @Authenticated({ write: true, testOnly: true })
  @ApiOperation({
    summary: "Simulate a provider's confirmations report for a crypto payment (test keys only)",
    description:
      "Sets the payment's confirmations (never lower than before). A PENDING payment reaching its required_confirmations becomes COMPLETED " +
      'and counts toward its invoice in the same transaction; below it the invoice stays WAITING_FOR_CONFIRMATIONS. ' +
      'Fiat payments and FAILED or CANCELLED ones: 400 (validator.confirmations). Live keys get 403.',
  })
  @ApiParam({ name: 'id', description: 'Payment id (payment_...)', example: SIMULATED.id })
  @ApiBody({ type: SimulatePaymentConfirmationsRequestDto, examples: { confirmed: { value: { confirmations: 12 } } } })
  @ApiEnvelope({
    type: SimulatedPaymentDto,
    message: 'Payment confirmations recorded',
    example: {
      ...SIMULATED,
      status: 'COMPLETED',
      created: false,
      confirmations: 12,
      invoice: { ...SIMULATED.invoice, status: 'COMPLETED', previous_status: 'WAITING_FOR_CONFIRMATIONS' },
    },
  })
  @ApiErrors(400, 401, 403, 404)
  async confirmations(
    @RequiredCaller() caller: CallerContext,
    @Param('id') id: string,
    @Body() body: SimulatePaymentConfirmationsRequestDto,
  ): Promise<EnvelopeReply<SimulatedPaymentDto>> {
    const recorded = await this.commands.execute(
      new RecordProviderPaymentCommand(scopeOf(caller), { kind: 'confirmations', paymentId: id, confirmations: body.confirmations }),
    );
    return reply(simulated(recorded), 'Payment confirmations recorded');
  }
}
