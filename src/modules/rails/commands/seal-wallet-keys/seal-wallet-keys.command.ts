import { Command } from '@nestjs/cqrs';

/** Seals with SECRETS_KEY every stored wallet key that is plain or sealed with an older key (run at start); returns how many. */
export class SealWalletKeysCommand extends Command<number> {}
