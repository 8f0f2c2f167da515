import { GetInvoiceStatusesHandler } from './queries/get-invoice-statuses/get-invoice-statuses.handler';
import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CreateInvoiceHandler } from './commands/create-invoice/create-invoice.handler';
import { InvoiceEvents } from './commands/invoice-events';
import { ChangeInvoiceCurrencyHandler } from './commands/change-invoice-currency/change-invoice-currency.handler';
import { ChangeInvoiceStatusHandler } from './commands/change-invoice-status/change-invoice-status.handler';
import { SetInvoiceRefundedHandler } from './commands/set-invoice-refunded/set-invoice-refunded.handler';
import { InvoicesController } from './invoices.controller';
import { InvoiceCalculationRecord } from './persistence/invoice-calculation.record';
import { InvoiceItemRecord } from './persistence/invoice-item.record';
import { InvoiceRecord } from './persistence/invoice.record';
import { InvoicesRepository } from './persistence/invoices.repository';
import { GetInvoiceItemsHandler } from './queries/get-invoice-items/get-invoice-items.handler';
import { GetInvoiceHandler } from './queries/get-invoice/get-invoice.handler';
import { GetPayableInvoiceHandler } from './queries/get-payable-invoice/get-payable-invoice.handler';
import { PayableInvoices } from './payable-invoices.service';
import { InvoiceClocks } from './invoice-clocks.service';
import { InvoicesConfig, loadInvoicesConfig } from './invoices.config';
import { GetShortStateHandler } from './queries/get-short-state/get-short-state.handler';
import { ListInvoicesHandler } from './queries/list-invoices/list-invoices.handler';
import { TransactionRunner } from '../../shared/db/transaction-runner';
import { OtherModeIds } from '../../shared/ids/other-mode-ids';
import { PartitionRetention } from '../../shared/db/partition-retention';

/**
 * Invoices: creation (priced through CalculatePricesQuery), list, read with expansions, status and
 * currency changes, short state. Its public surface is index.ts: GetPayableInvoiceQuery on the bus,
 * the ListInvoicePaymentsQuery port (answered by payments), and the PayableInvoices service: the invoice row lock and the payment-driven moves of the lifecycle
 * table (domain/invoice-status.ts), run inside the payments module's transaction.
 */
@Module({
  imports: [TypeOrmModule.forFeature([InvoiceRecord, InvoiceItemRecord, InvoiceCalculationRecord])],
  controllers: [InvoicesController],
  providers: [
    InvoicesRepository,
    InvoiceEvents,
    CreateInvoiceHandler,
    ChangeInvoiceStatusHandler,
    SetInvoiceRefundedHandler,
    ChangeInvoiceCurrencyHandler,
    ListInvoicesHandler,
    GetInvoiceHandler,
    GetShortStateHandler,
    GetInvoiceItemsHandler,
    GetPayableInvoiceHandler,
    GetInvoiceStatusesHandler,
    PayableInvoices,
    InvoiceClocks,
    { provide: InvoicesConfig, useFactory: () => loadInvoicesConfig(process.env) },
  ],
  exports: [PayableInvoices, InvoiceClocks, InvoicesConfig],
})
export class InvoicesModule implements OnModuleInit {
  constructor(
    @Inject(OtherModeIds) private readonly otherModeIds: OtherModeIds,
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(InvoicesRepository) private readonly invoices: InvoicesRepository,
    @Inject(PartitionRetention) private readonly retention: PartitionRetention,
  ) {}

  /** Its ids' owner for a 404's other-mode hint (decisions §1): asked only after a lookup by id failed. */
  onModuleInit(): void {
    this.otherModeIds.register('invoice', 'invoice_not_found', async (scope, id) => (await this.invoices.find(this.tx.manager, scope, id)) !== null);
    // The rate snapshot an invoice's rates were taken from outlives its day of rate history (the rates module's plan `rate-history`).
    this.retention.addReference('rate-history', { table: 'invoices', column: 'rates_snapshot_id' });
  }
}
