import { Command } from '@nestjs/cqrs';

/**
 * Seals with SECRETS_KEY every stored wallet key that is plain or sealed with an older key (run at
 * start); returns how many. Also fingerprints the keys stored before fingerprints existed (which
 * needs them opened) and raises their keys' address counters past every index handed out.
 */
export class SealWalletKeysCommand extends Command<number> {}
