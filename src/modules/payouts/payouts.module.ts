import { Module } from '@nestjs/common';
import { loadPayoutsConfig, PayoutsConfig } from './payouts.config';
import { PayoutsWorker } from './payouts.worker';
import { ClaimAssets } from './claim-assets';
import { RefundClaimsController } from './refund-claims.controller';
import { ReleasePayoutTransfersHandler } from './commands/release-payout-transfers/release-payout-transfers.handler';
import { TakePayoutTransfersHandler } from './commands/take-payout-transfers/take-payout-transfers.handler';
import { PayoutMethods } from './payout-methods';
import { PayoutTransfers } from './payout-transfers';
import { CheckPayoutDestinationHandler } from './queries/check-payout-destination/check-payout-destination.handler';
import { ListPayoutMethodsHandler } from './queries/list-payout-methods/list-payout-methods.handler';
import { CheckPayoutTransactionIdHandler } from './queries/payout-transaction-id/payout-transaction-id.handler';
import { PayoutRequestHandler } from './queries/payout-request/payout-request.handler';
import { PayoutTransfersRepository } from './persistence/payout-transfers.repository';
import { VerifyPayoutHandler } from './queries/verify-payout/verify-payout.handler';

/**
 * Payouts (decisions §19, docs/payouts.md): the payout machinery between rails and the modules that pay
 * money out (refunds today). Destination claims: the claim token (newClaimToken, claimUrl), the methods
 * a payer may choose (ListPayoutMethodsQuery), the destination's check (CheckPayoutDestinationQuery) and
 * the payout request with the chain's tip (PayoutRequestQuery). It verifies a reported payout transaction on its chain (VerifyPayoutQuery:
 * rails' CheckPayoutQuery judged by judgePayout) and keeps each chain transfer paying one payout at most
 * (TakePayoutTransfersCommand, ReleasePayoutTransfersCommand, in the caller's unit of work; it owns the
 * `refund_payout_transfers` table). Its worker (PayoutsWorker) checks the sent payouts on their chains
 * and tells their owner the outcome through its port (ports/watched-payouts.ts). It asks rails, providers and invoices on the query bus and imports no
 * module above it.
 */
@Module({
  controllers: [RefundClaimsController],
  providers: [
    { provide: PayoutsConfig, useFactory: () => loadPayoutsConfig(process.env) },
    ClaimAssets,
    PayoutTransfersRepository,
    PayoutTransfers,
    PayoutMethods,
    ListPayoutMethodsHandler,
    CheckPayoutDestinationHandler,
    PayoutRequestHandler,
    CheckPayoutTransactionIdHandler,
    VerifyPayoutHandler,
    TakePayoutTransfersHandler,
    ReleasePayoutTransfersHandler,
    PayoutsWorker,
  ],
})
export class PayoutsModule {}
