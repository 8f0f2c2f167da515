import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { createInvoice, D, pay, r30, shortState, Simulated } from './payments-helpers';

describe('idempotency and concurrency of payment reports', () => {
  it('creates a payment once when the same idempotency_key is reported again, and takes the later status', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test, '100', 'USD');
    const body = { invoice_id: invoiceId, provider_id: 'prov_tron_usdt', price: '50', idempotency_key: 'tron-tx-1' };
    const first = await pay(test, body);
    const second = await pay(test, body);
    expect(second).toMatchObject({ id: first.id, created: false, status: 'PENDING' });
    const completed = await pay(test, { ...body, status: 'COMPLETED' });
    expect(completed).toMatchObject({ id: first.id, created: false, status: 'COMPLETED', invoice: { status: 'PARTIALLY_PAID' } });
    const page = expectSuccess(await test.post('/payments', { invoice_id: invoiceId }));
    expect(page.total).toBe(1);
    expect(page.items[0]).toMatchObject({ id: first.id, status: 'COMPLETED', idempotency_key: 'tron-tx-1' });
    // The first report sent again after it completed (a retry): answered as it stands, nothing moves back.
    const again = await pay(test, body);
    expect(again).toMatchObject({ id: first.id, created: false, status: 'COMPLETED', invoice: { status: 'PARTIALLY_PAID' } });
    // A FAILED payment answers its first report the same way.
    const failedBody = { invoice_id: invoiceId, provider_id: 'prov_tron_usdt', price: '10', idempotency_key: 'tron-tx-2' };
    const failing = await pay(test, failedBody);
    expect(await pay(test, { ...failedBody, status: 'FAILED' })).toMatchObject({ id: failing.id, status: 'FAILED' });
    expect(await pay(test, failedBody)).toMatchObject({ id: failing.id, created: false, status: 'FAILED' });
    // And a CANCELLED one.
    const cancelledBody = { ...failedBody, idempotency_key: 'tron-tx-3' };
    const cancelling = await pay(test, cancelledBody);
    expect(await pay(test, { ...cancelledBody, status: 'CANCELLED' })).toMatchObject({ id: cancelling.id, status: 'CANCELLED' });
    expect(await pay(test, cancelledBody)).toMatchObject({ id: cancelling.id, created: false, status: 'CANCELLED' });
    // A first report that carried a count, sent again once the payment failed, was cancelled or completed: the same.
    const counted = { invoice_id: invoiceId, provider_id: 'prov_tron_usdt', price: '5', confirmations: 1 };
    for (const [key, status] of [
      ['tron-tx-4', 'FAILED'],
      ['tron-tx-5', 'CANCELLED'],
      ['tron-tx-6', 'COMPLETED'],
    ] as const) {
      const firstReport = { ...counted, idempotency_key: key };
      const made = await pay(test, firstReport);
      expect(made).toMatchObject({ status: 'PENDING', created: true });
      // Completed by its count (a report of COMPLETED below the required count keeps it PENDING).
      const settled = status === 'COMPLETED' ? { status, confirmations: 100 } : { status };
      expect(await pay(test, { ...firstReport, ...settled })).toMatchObject({ id: made.id, status });
      expect(await pay(test, firstReport)).toMatchObject({ id: made.id, created: false, status });
    }
  });

  it('refuses an idempotency_key reused for a different payment (400, validator.idempotency_key)', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test, '100', 'USD');
    const other = await createInvoice(test, '100', 'USD');
    await pay(test, { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '10', idempotency_key: 'k1' });
    for (const change of [{ price: '11' }, { provider_id: 'prov_card_eur' }, { invoice_id: other }]) {
      expectError(
        await test.post('/test_helpers/payments', { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '10', idempotency_key: 'k1', ...change }),
        400,
        { field: 'idempotency_key' },
      );
    }
    expect(expectSuccess(await test.post('/payments', {})).total).toBe(1);
  });

  it('keeps idempotency keys apart between organizations and modes', async () => {
    const a = await createOrg();
    const b = await createOrg();
    const invA = await createInvoice(a.test);
    const invB = await createInvoice(b.test);
    const pa = await pay(a.test, { invoice_id: invA, provider_id: 'prov_card_usd', price: '1', idempotency_key: 'shared' });
    const pb = await pay(b.test, { invoice_id: invB, provider_id: 'prov_card_usd', price: '1', idempotency_key: 'shared' });
    expect(pb.id).not.toBe(pa.id);
    expect(pb.created).toBe(true);
  });

  it('stores one payment when 20 duplicates of a report arrive at once', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test, '100', 'USD');
    const body = { invoice_id: invoiceId, provider_id: 'prov_ethereum_usdc', price: '25', status: 'COMPLETED', idempotency_key: '0xfeed:1' };
    const results = await Promise.all(Array.from({ length: 20 }, () => test.post('/test_helpers/payments', body)));
    const data: Simulated[] = results.map((r) => expectSuccess(r, 201));
    expect(new Set(data.map((d) => d.id)).size).toBe(1);
    expect(data.filter((d) => d.created)).toHaveLength(1);
    const page = expectSuccess(await test.post('/payments', { invoice_id: invoiceId }));
    expect(page.total).toBe(1);
    expect(page.items[0].price_usd).toBe(r30(new D(25).mul('0.9999')));
    expect(await shortState(test, invoiceId)).toMatchObject({ status: 'PARTIALLY_PAID', substatus: 'PAID_PARTIAL' });
  });

  it('completes an invoice exactly once when 10 partial payments covering it arrive at once, with an exact sum', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test, '100.01', 'USD');
    const prices = ['10.01', ...Array.from({ length: 9 }, () => '10')];
    const results = await Promise.all(
      prices.map((price, i) =>
        test.post('/test_helpers/payments', { invoice_id: invoiceId, provider_id: 'prov_card_usd', price, status: 'COMPLETED', idempotency_key: `part-${i}` }),
      ),
    );
    const data: Simulated[] = results.map((r) => expectSuccess(r, 201));
    const completing = data.filter((d) => d.invoice.status === 'COMPLETED' && d.invoice.previous_status !== 'COMPLETED');
    expect(completing).toHaveLength(1);
    // Every earlier report saw the invoice partly paid; none saw it completed before the last one.
    expect(data.filter((d) => d.invoice.status === 'PARTIALLY_PAID')).toHaveLength(9);
    expect(await shortState(test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: null });
    const page = expectSuccess(await test.post('/payments', { invoice_id: invoiceId, limit: 100 }));
    expect(page.total).toBe(10);
    const sum = page.items.reduce((acc: InstanceType<typeof D>, p: any) => acc.add(p.price_usd), new D(0));
    expect(r30(sum)).toBe(r30('100.01'));
  });

  it('records every payment of an overpaying burst but completes the invoice once', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test, '50', 'USD');
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        test.post('/test_helpers/payments', {
          invoice_id: invoiceId,
          provider_id: 'prov_card_usd',
          price: '20',
          status: 'COMPLETED',
          idempotency_key: `burst-${i}`,
        }),
      ),
    );
    const data: Simulated[] = results.map((r) => expectSuccess(r, 201));
    expect(data.filter((d) => d.invoice.status === 'COMPLETED' && d.invoice.previous_status !== 'COMPLETED')).toHaveLength(1);
    expect(data.filter((d) => d.invoice.previous_status === 'COMPLETED')).toHaveLength(7);
    expect(expectSuccess(await test.post('/payments', { invoice_id: invoiceId })).total).toBe(10);
    // The third 20 crossed 50: completed and over at that moment; later payments do not move a final invoice.
    expect(await shortState(test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: 'PAID_OVER' });
  });

  it('lets exactly one of two conflicting status reports win', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test, '10', 'USD');
    const { id } = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '10' });
    const results = await Promise.all(
      ['COMPLETED', 'CANCELLED', 'COMPLETED', 'FAILED'].map((status) => test.post(`/test_helpers/payments/${id}/status`, { status })),
    );
    const final = expectSuccess(await test.post(`/payments/${id}`, {})).status;
    for (const res of results) {
      if (res.status === 200) expect(res.body.data.status).toBe(final);
      else expectError(res, 400, { code: 'invalid_state_transition', field: 'status' });
    }
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    expect(await shortState(test, invoiceId)).toMatchObject({ status: final === 'COMPLETED' ? 'COMPLETED' : 'PENDING' });
  });
});
