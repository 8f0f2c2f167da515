// The rails module's public surface: receiving wallets, deposit addresses and the chain watchers.
export { RailsModule } from './rails.module';
export { ChainWatchers } from './watcher/chain-watchers';
export { SealWalletKeysCommand } from './commands/seal-wallet-keys/seal-wallet-keys.command';
