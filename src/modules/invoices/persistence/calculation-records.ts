import { newId } from '../../../shared/ids/ids';
import type { CalculationLine } from '../domain/calculation-rows';
import type { InvoiceCalculationRecord } from './invoice-calculation.record';
import type { InvoiceItemRecord } from './invoice-item.record';
import type { InvoiceRecord } from './invoice.record';

/** Stored calculation rows of an invoice, each tied to its item (by position) or to none for the totals. */
export function buildCalculationRecords(
  invoice: Pick<InvoiceRecord, 'id' | 'organizationId' | 'mode'>,
  items: InvoiceItemRecord[],
  lines: CalculationLine[],
  now: Date,
): InvoiceCalculationRecord[] {
  const byPosition = new Map(items.map((i) => [i.position, i.id]));
  return lines.map((line) => ({
    id: newId('invoice_calc'),
    organizationId: invoice.organizationId,
    mode: invoice.mode,
    invoiceId: invoice.id,
    invoiceItemId: line.itemIndex === null ? null : (byPosition.get(line.itemIndex) ?? null),
    title: line.title,
    calculationType: line.calculationType,
    idx: line.idx,
    position: line.position,
    currency: line.currency,
    initialPrice: line.initialPrice,
    priceDelta: line.priceDelta,
    price: line.price,
    details: line.details,
    createdAt: now,
    updatedAt: now,
  }));
}
