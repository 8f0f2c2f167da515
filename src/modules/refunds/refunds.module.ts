import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { ExpireClaimsHandler } from './commands/expire-claims/expire-claims.handler';
import { ForgetReleasedPayoutHandler } from './commands/record-payout-check/forget-released-payout.handler';
import { RecordPayoutCheckHandler } from './commands/record-payout-check/record-payout-check.handler';
import { GetSentPayoutHandler } from './queries/watched-payouts/get-sent-payout.handler';
import { ListReleasedPayoutsHandler } from './queries/watched-payouts/list-released-payouts.handler';
import { ListSentPayoutsHandler } from './queries/watched-payouts/list-sent-payouts.handler';
import { CancelRefundHandler } from './commands/cancel-refund/cancel-refund.handler';
import { ReleaseUncoveredRefundsHandler } from './commands/release-uncovered-refunds/release-uncovered-refunds.handler';
import { PaymentReversedHandler } from './reactions/payment-reversed.handler';
import { ClaimRefundHandler } from './commands/claim-refund/claim-refund.handler';
import { CreateRefundHandler } from './commands/create-refund/create-refund.handler';
import { RefundEvents } from './commands/refund-events';
import { ReportRefundSentHandler } from './commands/report-refund-sent/report-refund-sent.handler';
import { RefundsRepository } from './persistence/refunds.repository';
import { GetRefundClaimHandler } from './queries/get-refund-claim/get-refund-claim.handler';
import { GetRefundHandler } from './queries/get-refund/get-refund.handler';
import { ListRefundsHandler } from './queries/list-refunds/list-refunds.handler';
import { RefundFiguresHandler } from './queries/refund-figures/refund-figures.handler';
import { RefundsController } from './refunds.controller';
import { RefundTestHelpersController } from './refund-test-helpers.controller';
import { SimulateClaimPayoutHandler } from './commands/simulate-refund-payout/simulate-claim-payout.handler';
import { SimulateRefundPayoutHandler } from './commands/simulate-refund-payout/simulate-refund-payout.handler';
import { TransactionRunner } from '../../shared/db/transaction-runner';
import { OtherModeIds } from '../../shared/ids/other-mode-ids';
import { PartitionRetention } from '../../shared/db/partition-retention';

/**
 * Refunds (decisions §19, docs/refunds.md): refund policy. The merchant's refunds of an invoice's
 * completed payments (amounts, rates, states), the refund's side of the payer's claim (the coin amount
 * fixed at the refund's rates) and, in test mode, the simulated payout (SimulateRefundPayoutCommand).
 * The payout machinery is the payouts module's: refunds asks it for the claim token, the methods, the
 * destination's check and payout request, a report's verification and the transfers a payout holds,
 * and answers its ports (the claim page's GetPayoutClaimQuery, ClaimPayoutCommand,
 * SimulateClaimPayoutCommand; the payout worker's sent and released payouts, RecordPayoutCheckCommand,
 * ExpireDueClaimsCommand). Uses invoices (GetPayableInvoiceQuery, GetInvoiceQuery for the claim page's
 * merchant and items), payments (InvoicePaymentValuesQuery), providers and rates on the query bus; keeps
 * the invoice's refunded_usd through SetInvoiceRefundedCommand and answers the dashboard's
 * GetRefundFiguresQuery (analytics); hears PaymentEvent with a durable handler (a completed payment taken
 * back cancels the open refunds it no longer covers); owns the `refunds` table.
 */
@Module({
  controllers: [RefundsController, RefundTestHelpersController],
  providers: [
    RefundsRepository,
    RefundEvents,
    CreateRefundHandler,
    CancelRefundHandler,
    ClaimRefundHandler,
    ReportRefundSentHandler,
    SimulateRefundPayoutHandler,
    SimulateClaimPayoutHandler,
    GetRefundHandler,
    ListRefundsHandler,
    GetRefundClaimHandler,
    RefundFiguresHandler,
    ExpireClaimsHandler,
    ListSentPayoutsHandler,
    GetSentPayoutHandler,
    RecordPayoutCheckHandler,
    ListReleasedPayoutsHandler,
    ForgetReleasedPayoutHandler,
    ReleaseUncoveredRefundsHandler,
    PaymentReversedHandler,
  ],
})
export class RefundsModule implements OnModuleInit {
  constructor(
    @Inject(OtherModeIds) private readonly otherModeIds: OtherModeIds,
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(RefundsRepository) private readonly refunds: RefundsRepository,
    @Inject(PartitionRetention) private readonly retention: PartitionRetention,
  ) {}

  /** Its ids' owner for a 404's other-mode hint (decisions §1): asked only after a lookup by id failed. */
  onModuleInit(): void {
    this.otherModeIds.register('refund', 'refund_not_found', async (scope, id) => (await this.refunds.find(this.tx.manager, scope, id)) !== null);
    // The rate snapshot a refund's rates were taken from outlives its day of rate history (the rates module's plan `rate-history`).
    this.retention.addReference('rate-history', { table: 'refunds', column: 'rates_snapshot_id' });
  }
}
