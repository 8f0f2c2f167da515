import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { sealedWithPattern } from '../../../../shared/crypto/secret-box';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { Clock } from '../../../../shared/time/clock';
import { WalletsRepository } from '../../persistence/wallets.repository';
import { ForgetLostKeyWalletKeysCommand, ForgottenWalletKeys } from './forget-lost-key.command';

const BATCH = 200;

/**
 * A wallet is a public key the merchant holds, so nothing is lost with it: the wallet is removed (as
 * DELETE /wallets/{id}: addresses already handed out stay watched) and the merchant registers the same
 * key again, whose address counter continues where it stopped (addresses are never handed out twice).
 */
@CommandHandler(ForgetLostKeyWalletKeysCommand)
export class ForgetLostKeyWalletKeysHandler implements ICommandHandler<ForgetLostKeyWalletKeysCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WalletsRepository) private readonly wallets: WalletsRepository,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ keyId }: ForgetLostKeyWalletKeysCommand): Promise<ForgottenWalletKeys> {
    const pattern = sealedWithPattern(keyId);
    const result: ForgottenWalletKeys = { wallets_removed: 0, deleted_wallets_reset: 0, wallets_without_fingerprint: [] };
    for (;;) {
      const rows = await this.tx.run((m) => this.wallets.forgetKeysSealedWith(m, pattern, this.clock.now(), BATCH));
      for (const r of rows) {
        if (r.was_deleted) result.deleted_wallets_reset += 1;
        else result.wallets_removed += 1;
        if (!r.fingerprinted && !r.was_deleted) result.wallets_without_fingerprint.push(r.id);
      }
      if (rows.length < BATCH) return result;
    }
  }
}
