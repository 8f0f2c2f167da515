import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { ClaimAssets } from './claim-assets';
import { CancelRefundHandler } from './commands/cancel-refund/cancel-refund.handler';
import { ClaimRefundHandler } from './commands/claim-refund/claim-refund.handler';
import { CreateRefundHandler } from './commands/create-refund/create-refund.handler';
import { RefundEvents } from './commands/refund-events';
import { ReportRefundSentHandler } from './commands/report-refund-sent/report-refund-sent.handler';
import { PayoutMethods } from './payout-methods';
import { PayoutTransfers } from './payout-transfers';
import { RefundsRepository } from './persistence/refunds.repository';
import { GetRefundClaimHandler } from './queries/get-refund-claim/get-refund-claim.handler';
import { GetRefundHandler } from './queries/get-refund/get-refund.handler';
import { ListRefundsHandler } from './queries/list-refunds/list-refunds.handler';
import { RefundFiguresHandler } from './queries/refund-figures/refund-figures.handler';
import { RefundClaimsController } from './refund-claims.controller';
import { RefundPayoutsWorker } from './refund-payouts.worker';
import { RefundsController } from './refunds.controller';
import { RefundTestHelpersController } from './refund-test-helpers.controller';
import { SimulateRefundPayoutHandler } from './commands/simulate-refund-payout/simulate-refund-payout.handler';
import { loadRefundsConfig, RefundsConfig } from './refunds.config';
import { TransactionRunner } from '../../shared/db/transaction-runner';
import { OtherModeIds } from '../../shared/ids/other-mode-ids';
import { PartitionRetention } from '../../shared/db/partition-retention';

/**
 * Refunds (decisions §19, docs/refunds.md): the merchant's refunds of an invoice's completed payments,
 * the payer's claim (page and keyless call), the payout check on the chain and the claims' expiry
 * (RefundPayoutsWorker) and, in test mode, the simulated payout (SimulateRefundPayoutCommand: the test
 * helper and the claim page's control). Uses invoices (GetPayableInvoiceQuery, ListInvoicePaymentsQuery,
 * GetInvoiceQuery for the claim page's merchant and items), providers (catalog, terms, GetProvidersQuery), rates (RatesAsOfQuery) and rails (ListPayoutRailsQuery, CheckPayoutQuery, PayoutChainTipQuery), all
 * through the query bus; keeps the invoice's refunded_usd through SetInvoiceRefundedCommand and answers
 * the dashboard's GetRefundFiguresQuery (analytics); owns the `refunds` and `refund_payout_transfers` tables.
 */
@Module({
  controllers: [RefundsController, RefundClaimsController, RefundTestHelpersController],
  providers: [
    { provide: RefundsConfig, useFactory: () => loadRefundsConfig(process.env) },
    RefundsRepository,
    RefundEvents,
    PayoutMethods,
    PayoutTransfers,
    ClaimAssets,
    CreateRefundHandler,
    CancelRefundHandler,
    ClaimRefundHandler,
    ReportRefundSentHandler,
    SimulateRefundPayoutHandler,
    GetRefundHandler,
    ListRefundsHandler,
    GetRefundClaimHandler,
    RefundFiguresHandler,
    RefundPayoutsWorker,
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
