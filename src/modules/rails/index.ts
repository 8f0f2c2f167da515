// The rails module's public surface: other modules and the composition root import only this file.
export { RailsModule } from './rails.module';
// Read by the composition root at start: refuses production without a live network unless opted out.
export { checkLiveRails } from './rail-registry';
export type { LiveRailsFinding } from './rails.config';
export { ChainWatchers } from './watcher/chain-watchers';
export { SealWalletKeysCommand } from './commands/seal-wallet-keys/seal-wallet-keys.command';
export { ForgetLostKeyWalletKeysCommand, type ForgottenWalletKeys } from './commands/forget-lost-key/forget-lost-key.command';
export { RegisterWalletCommand } from './commands/register-wallet/register-wallet.command';
export { DeleteWalletCommand, type DeletedWallet } from './commands/delete-wallet/delete-wallet.command';
export { AllocatePaymentAddressCommand, type PaymentAddressView } from './commands/allocate-payment-address/allocate-payment-address.command';
export { GetWalletQuery } from './queries/get-wallet/get-wallet.query';
export { ListWalletsQuery, type WalletList } from './queries/list-wallets/list-wallets.query';
export type { WalletView } from './dto/wallet.views';
export { ListUnmatchedTransfersQuery } from './queries/list-unmatched-transfers/list-unmatched-transfers.query';
export { GetUnmatchedTransferQuery } from './queries/get-unmatched-transfer/get-unmatched-transfer.query';
export { RetryUnmatchedTransferCommand } from './commands/retry-unmatched-transfer/retry-unmatched-transfer.command';
export type { UnmatchedTransferView, UnmatchedTransferPage } from './dto/unmatched.views';
// Asked by the refunds module: the rails a payout can go on, the payout facts of a network (address, URI,
// transaction id, as its adapter says), and what the chain says of a reported payout.
export {
  CheckPayoutAddressQuery,
  CheckPayoutQuery,
  PayoutNetworksQuery,
  PayoutTransactionIdQuery,
  PayoutUriQuery,
  type PayoutAddressCheck,
  type TransactionIdCheck,
  ListPayoutRailsQuery,
  PayoutChainTipQuery,
  type PayoutCheck,
  type PayoutRail,
  type PayoutTransferSeen,
} from './queries/payouts/payout-rails.query';
// One name per payout destination however its address is spelled (the payouts module's transfers are held by it).
export { payoutDestinationKey } from './payout-destination-key';
export { TransferEvent, TRANSFER_EVENT_TYPES, type TransferEventType } from './events/transfer.events';
export { WalletEvent, WALLET_EVENT_TYPES, type WalletEventType } from './events/wallet.events';
// Asked by the operator's preflight (cli doctor, and once after the service listens): nodes, confirmations, wallets.
export { RailsPreflightQuery } from './queries/preflight/rails-preflight.query';
// The body of a wallet registration (the management console validates its form against it, as the API does).
export { RegisterWalletRequestDto } from './dto/rails.dto';
export { CHAIN_FAMILIES, WALLET_NETWORKS, walletKeyField } from './rail-registry';
