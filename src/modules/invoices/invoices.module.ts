import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CreateInvoiceHandler } from './commands/create-invoice/create-invoice.handler';
import { InvoiceEvents } from './commands/invoice-events';
import { UpdateInvoiceHandler } from './commands/update-invoice/update-invoice.handler';
import { InvoicesController } from './invoices.controller';
import { InvoiceCalculationRecord } from './persistence/invoice-calculation.record';
import { InvoiceItemRecord } from './persistence/invoice-item.record';
import { InvoiceRecord } from './persistence/invoice.record';
import { InvoicesRepository } from './persistence/invoices.repository';
import { GetInvoiceItemsHandler } from './queries/get-invoice-items/get-invoice-items.handler';
import { GetInvoiceHandler } from './queries/get-invoice/get-invoice.handler';
import { GetShortStateHandler } from './queries/get-short-state/get-short-state.handler';
import { ListInvoicesHandler } from './queries/list-invoices/list-invoices.handler';

/**
 * Invoices: creation (priced through CalculatePricesQuery), list, read with expansions, status and
 * currency changes, short state. Exports GetInvoiceItemsQuery on the bus; the lifecycle table in
 * domain/invoice-status.ts is what the payments module uses to move invoices.
 */
@Module({
  imports: [TypeOrmModule.forFeature([InvoiceRecord, InvoiceItemRecord, InvoiceCalculationRecord])],
  controllers: [InvoicesController],
  providers: [
    InvoicesRepository,
    InvoiceEvents,
    CreateInvoiceHandler,
    UpdateInvoiceHandler,
    ListInvoicesHandler,
    GetInvoiceHandler,
    GetShortStateHandler,
    GetInvoiceItemsHandler,
  ],
})
export class InvoicesModule {}
