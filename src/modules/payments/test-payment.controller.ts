import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Authenticated, Caller } from '../../shared/auth/auth.decorators';
import type { CallerContext } from '../../shared/auth/request-context';
import { scopeOf } from '../../shared/auth/request-context';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { EnvelopeReply, reply } from '../../shared/http/envelope';
import { MakeTestPaymentCommand, TestPaymentView } from './commands/make-test-payment/make-test-payment.command';
import type { TestPaymentKind } from './domain/test-payment';
import { TEST_PAYMENT_EXAMPLE, TestPaymentDto, TestPaymentRequestDto } from './dto/test-payment.dto';

/** The checkout page's test-payment control (decisions §17): a payer call that works on test-mode invoices only. */
@ApiTags('Invoices')
@Controller('invoices')
export class TestPaymentController {
  constructor(@Inject(CommandBus) private readonly commands: CommandBus) {}

  @Post(':id/test_payment')
  @HttpCode(201)
  @Authenticated({ payer: true, write: true, payerFields: ['provider_id', 'kind', 'idempotency_key'] })
  @ApiOperation({
    summary: 'Pay a test-mode invoice with a simulated payment (payer call)',
    description:
      'What the hosted checkout offers, in test mode, for a provider without a rail (has_rail false in GET /providers/{invoice_id}): a COMPLETED ' +
      'payment recorded through the same command as POST /test_helpers/payments, so the invoice moves as it would for a real one. `kind` exact pays ' +
      "what is still due (the price less the payments completed or waiting for confirmations) in the provider's currency at the rates in force now, " +
      'rounded up to its decimals; partial pays half of it, rounded down (at least one smallest unit); over pays a tenth more. ' +
      'Without an Authorization header (payer access) the invoice id is the capability, and the anonymous rate limit applies. ' +
      'A live-mode invoice answers 404, as an unknown one does. The same idempotency_key again for the same invoice answers the first payment ' +
      '(created false) and pays nothing. 400 codes: validation_failed (kind, provider_id, idempotency_key), unknown_provider, provider_disabled, ' +
      'invoice_final (COMPLETED or VOIDED), nothing_due (payments seen already cover it). Payments sent at once are judged in turn under the ' +
      "invoice's lock, as if sent one after the other: two exact ones pay the invoice once (the other is invoice_final), and one priced from " +
      'a due amount another payment changed meanwhile is priced again from what is left; 409 concurrent_update if that keeps happening.',
  })
  @ApiParam({ name: 'id', description: 'Invoice id (invoice_...) of a test-mode invoice', example: TEST_PAYMENT_EXAMPLE.invoice.id })
  @ApiBody({
    type: TestPaymentRequestDto,
    examples: {
      exact: { value: { provider_id: 'prov_card_usd', kind: 'exact', idempotency_key: 'click-5f1d2c9a' } },
      partial: { value: { provider_id: 'prov_bitcoin_bitcoin', kind: 'partial' } },
    },
  })
  @ApiEnvelope({ status: 201, type: TestPaymentDto, example: TEST_PAYMENT_EXAMPLE, message: 'Test payment recorded' })
  @ApiErrors(400, 401, 403, 404, 409, 429)
  async pay(@Caller() caller: CallerContext | null, @Param('id') id: string, @Body() body: TestPaymentRequestDto): Promise<EnvelopeReply<TestPaymentView>> {
    return reply(
      await this.commands.execute(
        new MakeTestPaymentCommand(caller ? scopeOf(caller) : null, id, body.provider_id, body.kind as TestPaymentKind, body.idempotency_key ?? null),
      ),
      'Test payment recorded',
    );
  }
}
