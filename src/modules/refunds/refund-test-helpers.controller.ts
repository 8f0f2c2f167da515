import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Authenticated, RequiredCaller } from '../../shared/auth/auth.decorators';
import type { CallerContext } from '../../shared/auth/request-context';
import { scopeOf } from '../../shared/auth/request-context';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { EnvelopeReply, reply } from '../../shared/http/envelope';
import { Idempotent } from '../../shared/idempotency/idempotency';
import {
  SimulatedPayout,
  simulatedMessage,
  SimulatedPayoutResult,
  SimulateRefundPayoutCommand,
} from './commands/simulate-refund-payout/simulate-refund-payout.command';
import { SimulateRefundPayoutRequestDto } from '../payouts';
import { REFUND_EXAMPLE, REFUND_SIMULATED_PAID_EXAMPLE, RefundDto } from './dto/refund.dto';
import { RefundView, refundView } from './dto/refund.views';

/**
 * Test mode only (decisions §19, "Test mode"): the merchant finishes a refund's payout where the
 * network has no test rail to send it on, through the same moves a payout the chain checks makes.
 */
@ApiTags('Test helpers')
@Controller('test_helpers/refunds')
export class RefundTestHelpersController {
  constructor(@Inject(CommandBus) private readonly commands: CommandBus) {}

  @Post(':id/payout')
  @HttpCode(200)
  @Authenticated({ write: true, testOnly: true })
  @Idempotent()
  @ApiParam({ name: 'id', description: 'Refund id (refund_...) of a test-mode refund', example: REFUND_EXAMPLE.id })
  @ApiOperation({
    summary: "Simulate a refund's payout (test keys only)",
    description:
      'For a test-mode refund AWAITING_PAYOUT (the payer named a destination) or SENT. `paid`: the payout arrived in full and the refund is ' +
      'COMPLETED as a payout the chain confirms completes it: refund.updated (reported, with the stand-in transaction `simulated:<refund id>` in ' +
      "payout.tx_hash unless a real one was reported), then refund.completed, and the invoice's refunded_usd grows. `short`: the payout paid the " +
      'destination less than `payout.amount`, and the refund goes back to AWAITING_PAYOUT as a short payout does (refund.updated, the ' +
      "`payout_mismatch` logged and named in the answer's message); it may be simulated or reported again, or canceled (the service cancels it " +
      "itself, refund.canceled, when the invoice's payments no longer cover it: a chain reorg took one back while it was SENT). `paid` on a refund " +
      'already COMPLETED answers it as it is; any other state is 400 invalid_state_transition (validator.status). Unknown ids and other ' +
      "organizations' refunds: 404. Live keys: 403 live_mode_forbidden. The refund claim page's test control makes the same move with the claim " +
      'token instead of a key (POST /refund_claims/{token}/test_payout).',
  })
  @ApiBody({ type: SimulateRefundPayoutRequestDto, examples: { paid: { value: { result: 'paid' } }, short: { value: { result: 'short' } } } })
  @ApiEnvelope({ type: RefundDto, example: REFUND_SIMULATED_PAID_EXAMPLE, message: 'Simulated payout completed the refund' })
  @ApiErrors(400, 401, 403, 404, 409)
  async payout(
    @RequiredCaller() caller: CallerContext,
    @Param('id') id: string,
    @Body() body: SimulateRefundPayoutRequestDto,
  ): Promise<EnvelopeReply<RefundView>> {
    const done: SimulatedPayout = await this.commands.execute(
      new SimulateRefundPayoutCommand({ scope: scopeOf(caller), refundId: id }, body.result as SimulatedPayoutResult),
    );
    return reply(refundView(done.row), simulatedMessage(done));
  }
}
