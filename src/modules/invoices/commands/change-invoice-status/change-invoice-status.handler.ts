import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError } from '../../../../shared/errors/domain-error';
import { merchantMove } from '../../domain/invoice-status';
import { InvoicesRepository } from '../../persistence/invoices.repository';
import { InvoiceClocks } from '../../invoice-clocks.service';
import { InvoiceEvents } from '../invoice-events';
import type { InvoiceUpdated } from '../invoice-change';
import { ChangeInvoiceStatusCommand } from './change-invoice-status.command';

@CommandHandler(ChangeInvoiceStatusCommand)
export class ChangeInvoiceStatusHandler implements ICommandHandler<ChangeInvoiceStatusCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(InvoicesRepository) private readonly repo: InvoicesRepository,
    @Inject(InvoiceClocks) private readonly clocks: InvoiceClocks,
    @Inject(InvoiceEvents) private readonly events: InvoiceEvents,
  ) {}

  execute({ scope, invoiceId, status: to }: ChangeInvoiceStatusCommand): Promise<InvoiceUpdated> {
    return this.tx.run(async (m) => {
      const locked = await this.repo.lock(m, scope, invoiceId);
      if (!locked) throw new NotFoundError('invoice');
      const now = await this.clocks.nowFor(scope, m);
      // The invoice as it stands now (an expired one whose window closed is already VOIDED).
      const { invoice } = await this.clocks.applyDue(m, locked, now);
      const next = merchantMove(invoice.status, to);
      // A merchant's move keeps EXPIRED on an expired invoice they void (MARKED_PAID otherwise wins).
      const substatus = next.status === 'VOIDED' && invoice.substatus === 'EXPIRED' ? 'EXPIRED' : next.substatus;
      const before = this.events.view(invoice);
      await this.repo.updateStatus(m, invoice, next.status, substatus, now);
      await this.events.changed(m, scope, before);
      return { id: invoice.id, message: `Invoice status changed to ${next.status}` };
    });
  }
}
