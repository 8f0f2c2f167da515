import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { walletView } from '../../dto/wallet.views';
import { WalletsRepository } from '../../persistence/wallets.repository';
import { ListWalletsQuery, WalletList } from './list-wallets.query';

@QueryHandler(ListWalletsQuery)
export class ListWalletsHandler implements IQueryHandler<ListWalletsQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WalletsRepository) private readonly wallets: WalletsRepository,
  ) {}

  async execute({ scope, limit, offset }: ListWalletsQuery): Promise<WalletList> {
    const { items, total } = await this.wallets.list(this.tx.readsFor(scope), scope, limit, offset);
    return { items: items.map(walletView), total, limit, offset, has_more: offset + items.length < total };
  }
}
