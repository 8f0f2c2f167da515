import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { InvoicesModule } from '../invoices';
import { AllocatePaymentAddressHandler } from './commands/allocate-payment-address/allocate-payment-address.handler';
import { DeleteWalletHandler } from './commands/delete-wallet/delete-wallet.handler';
import { SealWalletKeysHandler } from './commands/seal-wallet-keys/seal-wallet-keys.handler';
import { ForgetLostKeyWalletKeysHandler } from './commands/forget-lost-key/forget-lost-key.handler';
import { RegisterWalletHandler } from './commands/register-wallet/register-wallet.handler';
import { RetryUnmatchedTransferHandler } from './commands/retry-unmatched-transfer/retry-unmatched-transfer.handler';
import { PaymentAddressController } from './payment-address.controller';
import { ChainStateRepository } from './persistence/chain-state.repository';
import { DepositAddressesRepository } from './persistence/deposit-addresses.repository';
import { UnattributedTransfersRepository } from './persistence/unattributed-transfers.repository';
import { WalletsRepository } from './persistence/wallets.repository';
import { GetUnmatchedTransferHandler } from './queries/get-unmatched-transfer/get-unmatched-transfer.handler';
import { GetWalletHandler } from './queries/get-wallet/get-wallet.handler';
import { ListUnmatchedTransfersHandler } from './queries/list-unmatched-transfers/list-unmatched-transfers.handler';
import { ListWalletsHandler } from './queries/list-wallets/list-wallets.handler';
import { ListProviderRailsHandler } from './queries/list-provider-rails/list-provider-rails.handler';
import { CheckPayoutHandler, ListPayoutRailsHandler, PayoutChainTipHandler } from './queries/payouts/payout-rails.handler';
import { CheckPayoutAddressHandler, PayoutNetworksHandler, PayoutTransactionIdHandler, PayoutUriHandler } from './queries/payouts/payout-facts.handler';
import { RailsPreflightHandler } from './queries/preflight/rails-preflight.handler';
import { RAIL_ADAPTERS, RailRegistry } from './rail-registry';
import { loadRailsConfig, RailsConfig } from './rails.config';
import { UnmatchedTransfersController } from './unmatched-transfers.controller';
import { WalletsController } from './wallets.controller';
import { ChainNodes } from './watcher/chain-nodes';
import { ChainWatchers } from './watcher/chain-watchers';
import { TransactionRunner } from '../../shared/db/transaction-runner';
import { OtherModeIds } from '../../shared/ids/other-mode-ids';

/**
 * Payment rails: the outside chains payments arrive on (docs/rails.md). Owns the PaymentRail port
 * (domain/payment-rail.ts) and one folder per chain family's adapter (registered in rail-adapters.ts), the merchants' receiving
 * wallets (watch-only keys), the deposit addresses handed out per invoice and provider
 * (POST /invoices/{id}/payment_address), the chain watchers, and the transfers the payments module
 * refused, kept for the merchant to retry (/rails/unmatched). Reaches other modules only through
 * their queries and commands on the buses; what a watcher finds enters through the payments
 * module's RecordProviderPaymentCommand. Answers the providers module's ListProviderRailsQuery (which
 * providers a rail and a wallet make payable), so the providers list offers only those in live mode.
 */
@Module({
  imports: [InvoicesModule],
  controllers: [WalletsController, PaymentAddressController, UnmatchedTransfersController],
  providers: [
    { provide: RailsConfig, useFactory: () => loadRailsConfig(process.env, RAIL_ADAPTERS) },
    RailRegistry,
    WalletsRepository,
    DepositAddressesRepository,
    RegisterWalletHandler,
    DeleteWalletHandler,
    ListWalletsHandler,
    GetWalletHandler,
    ListProviderRailsHandler,
    ListPayoutRailsHandler,
    CheckPayoutHandler,
    PayoutChainTipHandler,
    PayoutNetworksHandler,
    CheckPayoutAddressHandler,
    PayoutUriHandler,
    PayoutTransactionIdHandler,
    RailsPreflightHandler,
    AllocatePaymentAddressHandler,
    SealWalletKeysHandler,
    ForgetLostKeyWalletKeysHandler,
    ChainStateRepository,
    ChainNodes,
    UnattributedTransfersRepository,
    ListUnmatchedTransfersHandler,
    GetUnmatchedTransferHandler,
    RetryUnmatchedTransferHandler,
    ChainWatchers,
  ],
  exports: [ChainWatchers],
})
export class RailsModule implements OnModuleInit {
  constructor(
    @Inject(OtherModeIds) private readonly otherModeIds: OtherModeIds,
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WalletsRepository) private readonly wallets: WalletsRepository,
    @Inject(UnattributedTransfersRepository) private readonly transfers: UnattributedTransfersRepository,
  ) {}

  /** Its ids' owner for a 404's other-mode hint (decisions §1): asked only after a lookup by id failed. */
  onModuleInit(): void {
    this.otherModeIds.register('wallet', 'wallet_not_found', async (scope, id) => (await this.wallets.find(this.tx.manager, scope, id)) !== null);
    this.otherModeIds.register(
      'unmatched',
      'unmatched_transfer_not_found',
      async (scope, id) => (await this.transfers.find(this.tx.manager, scope, id)) !== null,
    );
  }
}
