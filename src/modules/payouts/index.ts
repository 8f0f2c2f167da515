// The payouts module's public surface: other modules and the composition root import only this file.
export { PayoutsModule } from './payouts.module';
export { PayoutsConfig, loadPayoutsConfig } from './payouts.config';
// The payout worker's port, answered by the owner of the payouts it watches (refunds).
export {
  ExpireDueClaimsCommand,
  ListSentPayoutsQuery,
  GetSentPayoutQuery,
  RecordPayoutCheckCommand,
  ListReleasedPayoutsQuery,
  ForgetReleasedPayoutCommand,
  type SentPayout,
  type ReleasedPayout,
  type PayoutCheckOutcome,
} from './ports/watched-payouts';
// Asked by a module that pays money out (refunds): what the chain says of a reported payout, and the
// transfers a payout holds (in the caller's unit of work).
export { VerifyPayoutQuery, type PayoutVerification, type PayoutVerdict, type PayoutWindow } from './queries/verify-payout/verify-payout.query';
export { TakePayoutTransfersCommand, PayoutTransfersTakenError } from './commands/take-payout-transfers/take-payout-transfers.command';
export { ReleasePayoutTransfersCommand } from './commands/release-payout-transfers/release-payout-transfers.command';
export type { PayoutTransferSeen } from '../rails';
export type { PayoutHolder } from './persistence/payout-transfers.repository';
export { payoutRecipient } from './persistence/payout-transfers.repository';
export { CheckPayoutTransactionIdQuery, type TransactionIdCheck } from './queries/payout-transaction-id/payout-transaction-id.query';
// Destination claims: the token (the payer's capability) and its page's address, the methods offered,
// the destination's check, and the payout request with the chain's tip at the claim.
export { newClaimToken, claimUrl } from './claim-token';
export { ListPayoutMethodsQuery, type PayoutMethod, type ClaimMethodView } from './queries/list-payout-methods/list-payout-methods.query';
export { CheckPayoutDestinationQuery, type PayoutDestination } from './queries/check-payout-destination/check-payout-destination.query';
export { PayoutRequestQuery, type PayoutRequest } from './queries/payout-request/payout-request.query';
// The claim routes' port, answered by the claims' owner (refunds), and the claim's contract types.
export {
  CLAIM_STATUSES,
  type ClaimStatus,
  type ClaimPayoutView,
  type PayoutClaimView,
  type ClaimContextView,
  type PayoutClaimState,
  GetPayoutClaimQuery,
  ClaimPayoutCommand,
  SIMULATED_PAYOUT_RESULTS,
  type SimulatedPayoutResult,
  type SimulatedClaimPayout,
  SimulateClaimPayoutCommand,
} from './ports/payout-claims';
// The payout's documented shape, shared by the merchant's refund (with its transaction) and the claim; the test payout's body.
export { CLAIM_PAYOUT_PROPERTIES, PAYOUT_EXAMPLE, SimulateRefundPayoutRequestDto } from './dto/claim.dto';
