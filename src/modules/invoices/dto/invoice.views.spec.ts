import { Money } from '../../../shared/money/money';
import type { InvoiceRecord } from '../persistence/invoice.record';
import { invoiceView, movedView } from './invoice.views';

describe('movedView', () => {
  const record: InvoiceRecord = {
    id: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00',
    organizationId: 'org_1',
    mode: 'test',
    status: 'PENDING',
    substatus: null,
    currency: 'USD',
    price: new Money('25.5'),
    priceUsd: new Money('25.5'),
    refundedUsd: new Money('0'),
    customerEmail: 'payer@example.com',
    metadata: { order: '42' },
    redirectUrl: null,
    ratesSnapshotId: 'rates_1',
    ratesTakenAt: new Date('2026-11-29T09:00:00Z'),
    expiresAt: new Date('2026-11-29T10:00:00Z'),
    subscriptionId: 'subscription_1',
    periodStart: new Date('2026-11-01T00:00:00Z'),
    periodEnd: new Date('2026-12-01T00:00:00Z'),
    createdAt: new Date('2026-11-29T09:00:00Z'),
    updatedAt: new Date('2026-11-29T09:00:00Z'),
  };

  it.each([
    { status: 'WAITING_FOR_CONFIRMATIONS', substatus: null },
    { status: 'COMPLETED', substatus: 'PAID_OVER' },
    { status: 'PENDING', substatus: 'EXPIRED' },
  ] as const)('is the view of the record moved to $status/$substatus', ({ status, substatus }) => {
    const move = { status, substatus, updatedAt: new Date('2026-11-29T09:12:34.567Z') };
    const before = invoiceView(record, false, 60);
    expect(movedView(before, move)).toEqual(invoiceView({ ...record, ...move }, false, 60));
    // The view before is left as it was.
    expect(before).toEqual(invoiceView(record, false, 60));
  });
});
