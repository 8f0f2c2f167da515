import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError } from '../../../../shared/errors/domain-error';
import { Clock } from '../../../../shared/time/clock';
import { WalletsRepository } from '../../persistence/wallets.repository';
import { DeletedWallet, DeleteWalletCommand } from './delete-wallet.command';

@CommandHandler(DeleteWalletCommand)
export class DeleteWalletHandler implements ICommandHandler<DeleteWalletCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WalletsRepository) private readonly wallets: WalletsRepository,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ scope, walletId }: DeleteWalletCommand): Promise<DeletedWallet> {
    return this.tx.run(async (m) => {
      const wallet = await this.wallets.find(m, scope, walletId);
      if (!wallet) throw new NotFoundError('wallet');
      await this.wallets.lockFamily(m, scope, wallet.chain_family, wallet.network);
      await this.wallets.markDeleted(m, scope, walletId, this.clock.now());
      return { id: walletId, deleted: true as const };
    });
  }
}
