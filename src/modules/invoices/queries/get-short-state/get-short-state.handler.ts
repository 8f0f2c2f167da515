import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError } from '../../../../shared/errors/domain-error';
import { formatTimestamp } from '../../../../shared/time/time';
import { InvoicesRepository } from '../../persistence/invoices.repository';
import { InvoiceClocks } from '../../invoice-clocks.service';
import { GetShortStateQuery, InvoiceShortState } from './get-short-state.query';

@QueryHandler(GetShortStateQuery)
export class GetShortStateHandler implements IQueryHandler<GetShortStateQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(InvoicesRepository) private readonly repo: InvoicesRepository,
    @Inject(InvoiceClocks) private readonly clocks: InvoiceClocks,
  ) {}

  async execute({ access, invoiceId }: GetShortStateQuery): Promise<InvoiceShortState> {
    const stored = await this.repo.find(this.tx.readsFor(access), access, invoiceId);
    if (!stored) throw new NotFoundError('invoice');
    const invoice = this.clocks.current(stored, await this.clocks.nowFor(stored));
    return { id: invoice.id, status: invoice.status, substatus: invoice.substatus, updated_at: formatTimestamp(invoice.updatedAt) };
  }
}
