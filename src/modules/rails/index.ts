// The rails module's public surface: the composition root imports only this file.
export { RailsModule } from './rails.module';
export { ChainWatchers } from './watcher/chain-watchers';
export { SealWalletKeysCommand } from './commands/seal-wallet-keys/seal-wallet-keys.command';
