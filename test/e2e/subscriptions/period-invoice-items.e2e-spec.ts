import { expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { r30 } from '../../support/money';
import { API_CALL_TIERS, clockNow, monthStart, moveClockTo, nextInvoice, recurringProduct, ts } from './subscription-helpers';
import type { Api } from '../../support/api';

/**
 * A period invoice's items say what they charge: the plan (product and billing schema names), the
 * quantity or the metric with its exact usage, and the period in UTC; the upcoming invoice's lines
 * carry the same words before it is issued. The catalog names are "Metered plan" and "Monthly"
 * (subscription-helpers), the metrics "API calls" and "Active users".
 */
const PLAN = 'Metered plan, Monthly';
const period = (start: string, end: string) => `${start} to ${end} UTC`;

interface Sub {
  id: string;
  current_period_start: string;
  current_period_end: string;
}
interface PeriodInvoice {
  id: string;
  period_start: string;
  period_end: string;
}
const invoiceAfter = async (api: Api, sub: Sub, previous: string | null): Promise<PeriodInvoice> => (await nextInvoice(api, sub.id, previous)) as PeriodInvoice;

async function items(api: Api, invoiceId: string): Promise<any[]> {
  return expectSuccess(await api.post(`/invoices/${invoiceId}`, { expand: ['items'] })).items as any[];
}

describe('period invoice items name the plan, the metric, the quantity and the period', () => {
  let service: IsolatedService;
  beforeAll(async () => {
    service = await startIsolatedService({ CLOCK_CONTROL: 'true', SUBSCRIPTIONS_TICK_SECONDS: '1', INVOICE_SWEEP_SECONDS: '0' });
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('ADVANCE: the base line of each period, then the usage of the period before', async () => {
    const api = (await service.createOrg('Advance lines')).test;
    const { productId, schemaId } = await recurringProduct(
      api,
      { payment_type: 'ADVANCE', renew_type: 'ANNIVERSARY', billing_type: 'FULL', base_price: 20 },
      API_CALL_TIERS,
    );
    const sub = expectSuccess<Sub>(
      await api.post('/subscriptions', { product_id: productId, billing_schema_id: schemaId, customer_email: 'team@example.com', quantity: 3 }),
      201,
    );
    const p0 = period(sub.current_period_start, sub.current_period_end);
    const invoice1 = await invoiceAfter(api, sub, null);
    expect(await items(api, invoice1.id)).toEqual([
      expect.objectContaining({ type: 'PRODUCT', product_id: productId, quantity: 3, description: `${PLAN} × 3, ${p0}` }),
    ]);

    // 12,500 calls and two distinct users in the first period, billed on the second period's invoice.
    expectSuccess(
      await api.post('/usage_events/batch', {
        events: [
          { id: 'c-1', subscription_id: sub.id, metric_key: 'api_calls', value: '12000' },
          { id: 'c-2', subscription_id: sub.id, metric_key: 'api_calls', value: '500' },
          { id: 'u-1', subscription_id: sub.id, metric_key: 'active_users', unique_key: 'alice' },
          { id: 'u-2', subscription_id: sub.id, metric_key: 'active_users', unique_key: 'bob' },
        ],
      }),
    );
    const periodEnd = new Date(`${sub.current_period_end.replace(' ', 'T')}Z`);
    const upcoming = expectSuccess(await api.get(`/subscriptions/${sub.id}/upcoming_invoice`));
    await moveClockTo(api, periodEnd);
    const invoice2 = await invoiceAfter(api, sub, invoice1.id);
    const p1 = period(invoice2.period_start, invoice2.period_end);
    const usageLines = [`${PLAN}: API calls, 12,500 units, ${p0}`, `${PLAN}: Active users, 2 units, ${p0}`];
    // 900 calls at 0.01 and 11,500 at 0.005 (the first 100 free); 2 users at 1.
    expect(await items(api, invoice2.id)).toEqual([
      expect.objectContaining({ type: 'PRODUCT', quantity: 3, description: `${PLAN} × 3, ${p1}` }),
      expect.objectContaining({ type: 'PAYMENT_INTENT', price: r30('66.5'), description: usageLines[0] }),
      expect.objectContaining({ type: 'PAYMENT_INTENT', price: r30(2), description: usageLines[1] }),
    ]);
    // the preview said the same before the invoice was issued
    expect(upcoming.lines.map((l: any) => l.description)).toEqual([`${PLAN} × 3, ${p1}`, ...usageLines]);
  }, 120_000);

  it('ARREARS: the base line and the usage of the period itself, exact decimals; a prorated first period says so', async () => {
    const api = (await service.createOrg('Arrears lines')).test;
    const { productId, schemaId } = await recurringProduct(api, { payment_type: 'ARREARS', renew_type: 'CALENDAR', billing_type: 'PRORATED' }, [
      { starts_at: 0, ends_at: null, price_per_unit: 0.01, metric: { metric_key: 'storage_gb', name: 'Storage (GB)', aggregation_type: 'SUM' } },
    ]);
    // Start on the 16th of next month at noon: a partial first calendar period, prorated.
    const month1 = monthStart(await clockNow(api), 1);
    const start = new Date(month1.getTime() + 15 * 86_400_000 + 12 * 3_600_000);
    await moveClockTo(api, start, 1);
    const sub = expectSuccess<Sub>(
      await api.post('/subscriptions', {
        product_id: productId,
        billing_schema_id: schemaId,
        customer_email: 'ops@example.com',
        quantity: 2,
        starts_at: ts(start),
      }),
      201,
    );
    await api.post('/usage_events', { id: 's-1', subscription_id: sub.id, metric_key: 'storage_gb', value: '1234.5678' });
    await api.post('/usage_events', { id: 's-2', subscription_id: sub.id, metric_key: 'storage_gb', value: '0.0000001' });
    const month2 = monthStart(month1, 1);
    await moveClockTo(api, month2);
    const invoice1 = await invoiceAfter(api, sub, null);
    const p0 = period(ts(start), ts(month2));
    expect(invoice1).toMatchObject({ period_start: ts(start), period_end: ts(month2) });
    expect(await items(api, invoice1.id)).toEqual([
      expect.objectContaining({ type: 'PAYMENT_INTENT', description: `${PLAN} × 2, ${p0}, prorated` }),
      expect.objectContaining({ type: 'PAYMENT_INTENT', price: r30('12.345678001'), description: `${PLAN}: Storage (GB), 1,234.5678001 units, ${p0}` }),
    ]);

    // The next (whole) period: the base is the catalog product again.
    await api.post('/usage_events', { id: 's-3', subscription_id: sub.id, metric_key: 'storage_gb', value: '10' });
    const month3 = monthStart(month2, 1);
    await moveClockTo(api, month3);
    const invoice2 = await invoiceAfter(api, sub, invoice1.id);
    const p1 = period(ts(month2), ts(month3));
    expect(await items(api, invoice2.id)).toEqual([
      expect.objectContaining({ type: 'PRODUCT', quantity: 2, description: `${PLAN} × 2, ${p1}` }),
      expect.objectContaining({ type: 'PAYMENT_INTENT', price: r30('0.1'), description: `${PLAN}: Storage (GB), 10 units, ${p1}` }),
    ]);
    // the payer's view (no key) shows the same words
    const payer = expectSuccess(await api.post(`/invoices/${invoice2.id}`, { expand: ['items'] }, { authorization: null }));
    expect(payer.items.map((i: any) => i.description)).toEqual([`${PLAN} × 2, ${p1}`, `${PLAN}: Storage (GB), 10 units, ${p1}`]);
  }, 120_000);

  it('an invoice made through the API carries no description: its items read as before', async () => {
    const api = (await service.createOrg('Plain')).test;
    const created = expectSuccess<{ id: string }>(
      await api.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '5' }] }),
      201,
    );
    const [item] = await items(api, created.id);
    expect(item).not.toHaveProperty('description');
  });
});
