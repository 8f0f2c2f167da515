import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError } from '../../../../shared/errors/domain-error';
import { walletView, WalletView } from '../../dto/wallet.views';
import { WalletsRepository } from '../../persistence/wallets.repository';
import { GetWalletQuery } from './get-wallet.query';

@QueryHandler(GetWalletQuery)
export class GetWalletHandler implements IQueryHandler<GetWalletQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WalletsRepository) private readonly wallets: WalletsRepository,
  ) {}

  async execute({ scope, walletId }: GetWalletQuery): Promise<WalletView> {
    const wallet = await this.wallets.find(this.tx.readsFor(scope), scope, walletId);
    if (!wallet) throw new NotFoundError('wallet');
    return walletView(wallet);
  }
}
