import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { WalletsRepository } from '../../persistence/wallets.repository';
import { SealWalletKeysCommand } from './seal-wallet-keys.command';

@CommandHandler(SealWalletKeysCommand)
export class SealWalletKeysHandler implements ICommandHandler<SealWalletKeysCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WalletsRepository) private readonly wallets: WalletsRepository,
  ) {}

  async execute(): Promise<number> {
    let total = 0;
    for (let n = -1; n !== 0;) total += n = await this.tx.run((m) => this.wallets.sealStoredKeys(m, 200));
    return total;
  }
}
