import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { ValidationFailedError } from '../../../../shared/errors/domain-error';
import { UnmatchedTransferPage, unmatchedTransferView } from '../../dto/unmatched.views';
import { UnattributedTransfersRepository } from '../../persistence/unattributed-transfers.repository';
import { RailRegistry } from '../../rail-registry';
import { ListUnmatchedTransfersQuery } from './list-unmatched-transfers.query';

@QueryHandler(ListUnmatchedTransfersQuery)
export class ListUnmatchedTransfersHandler implements IQueryHandler<ListUnmatchedTransfersQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(UnattributedTransfersRepository) private readonly transfers: UnattributedTransfersRepository,
    @Inject(RailRegistry) private readonly rails: RailRegistry,
  ) {}

  async execute({ scope, filter }: ListUnmatchedTransfersQuery): Promise<UnmatchedTransferPage> {
    const page = await this.transfers.list(this.tx.readsFor(scope), scope, filter);
    if (!page) throw new ValidationFailedError({ starting_after: 'is not an unmatched transfer of this organization and mode' });
    return {
      items: page.rows.map((row) => unmatchedTransferView(row, (a) => this.rails.displayAddress(row.network, row.mode, a))),
      total: page.total,
      limit: filter.limit,
      offset: filter.offset,
      has_more: page.hasMore,
    };
  }
}
