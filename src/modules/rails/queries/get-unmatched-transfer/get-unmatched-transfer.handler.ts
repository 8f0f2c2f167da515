import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError } from '../../../../shared/errors/domain-error';
import { UnmatchedTransferView, unmatchedTransferView } from '../../dto/unmatched.views';
import { UnattributedTransfersRepository } from '../../persistence/unattributed-transfers.repository';
import { RailRegistry } from '../../rail-registry';
import { GetUnmatchedTransferQuery } from './get-unmatched-transfer.query';

@QueryHandler(GetUnmatchedTransferQuery)
export class GetUnmatchedTransferHandler implements IQueryHandler<GetUnmatchedTransferQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(UnattributedTransfersRepository) private readonly transfers: UnattributedTransfersRepository,
    @Inject(RailRegistry) private readonly rails: RailRegistry,
  ) {}

  async execute({ scope, id }: GetUnmatchedTransferQuery): Promise<UnmatchedTransferView> {
    const row = await this.transfers.find(this.tx.readsFor(scope), scope, id);
    if (!row) throw new NotFoundError('unmatched transfer');
    return unmatchedTransferView(row, (a) => this.rails.displayAddress(row.network, row.mode, a));
  }
}
