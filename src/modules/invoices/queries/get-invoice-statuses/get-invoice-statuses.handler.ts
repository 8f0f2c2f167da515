import { settlingWindowEndsAt } from '../../domain/invoice-timing';
import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { InvoiceClocks } from '../../invoice-clocks.service';
import { InvoicesRepository } from '../../persistence/invoices.repository';
import { GetInvoiceStatusesQuery, InvoiceStatusEntry } from './get-invoice-statuses.query';

@QueryHandler(GetInvoiceStatusesQuery)
export class GetInvoiceStatusesHandler implements IQueryHandler<GetInvoiceStatusesQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(InvoicesRepository) private readonly repo: InvoicesRepository,
    @Inject(InvoiceClocks) private readonly clocks: InvoiceClocks,
  ) {}

  async execute({ scope, invoiceIds }: GetInvoiceStatusesQuery): Promise<InvoiceStatusEntry[]> {
    const rows = await this.repo.statuses(this.tx.manager, scope, invoiceIds);
    if (rows.length === 0) return [];
    const now = await this.clocks.nowFor(scope);
    return rows.map((row) => {
      const timed = { status: row.status, substatus: row.substatus, expiresAt: row.expires_at, clockHeldUntil: row.clock_held_until };
      const current = this.clocks.current(timed, now);
      const windowEnds = settlingWindowEndsAt(current, this.clocks.monitoringMinutes);
      return {
        id: row.id,
        status: current.status,
        substatus: current.substatus,
        paymentWindowClosed: windowEnds !== null && windowEnds.getTime() <= now.getTime(),
      };
    });
  }
}
