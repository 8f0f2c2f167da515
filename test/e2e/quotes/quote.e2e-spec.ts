import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Decimal from 'decimal.js';
import { BUNDLED_SNAPSHOT } from '../../../src/modules/rates/domain/default-snapshot';
import { anonymous } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { D, r30, rate } from '../../support/money';
import { CLI } from '../../support/server';

describe('POST /pay/quote', () => {
  it('requires an API key', async () => {
    expectError(await anonymous().post('/pay/quote', { currency: 'USD', items: [] }), 401);
  });

  it('quotes a payment intent in another currency with the interface shape', async () => {
    const org = await createOrg();
    const data = expectSuccess(await org.test.post('/pay/quote', { currency: 'USD', items: [{ type: 'PAYMENT_INTENT', currency: 'EUR', price: '100' }] }));
    expect(data.currency).toBe('USD');
    expect(data.exchange_rate_timestamp).toBe('2026-11-20 00:00:00');
    expect(data.total).toEqual({ currency: 'USD', price: '115.870000000000000000000000000000', price_usd: '115.870000000000000000000000000000' });
    expect(data.items.map((i: any) => i.item.type)).toEqual(['PAYMENT_INTENT', 'TOTAL', 'TOTAL_USD']);
    const [entry, total, totalUsd] = data.items;
    expect(entry.item).toEqual({ type: 'PAYMENT_INTENT', price: r30(100), currency: 'EUR' });
    expect(entry.calculations.map((c: any) => [c.idx, c.calculation_type, c.currency])).toEqual([
      [0, 'PAYMENT_INTENT', 'EUR'],
      [1, 'CURRENCY_CHANGE', 'USD'],
    ]);
    const change = entry.calculations[1];
    expect(change).toMatchObject({
      initial_price: r30(100),
      price: r30('115.87'),
      price_delta: r30('15.87'),
      initial_price_orig: r30(100),
      price_orig: r30(100),
      price_delta_orig: r30(0),
      initial_price_usd: r30('115.87'),
      price_usd: r30('115.87'),
      price_delta_usd: r30(0),
      details: { from: 'EUR', to: 'USD', from_rate_usd: r30('1.1587'), to_rate_usd: r30(1) },
    });
    expect(entry.calculations[0].details).toEqual({ payment_intent_id: null, currency: 'EUR', price: r30(100), quantity: 1 });
    expect(entry.total).toEqual({ currency: 'USD', currency_original: 'EUR', price: r30('115.87'), price_usd: r30('115.87'), price_orig: r30(100) });
    expect(total.item).toEqual({ type: 'TOTAL', currency: 'USD', status: 'INCLUDED' });
    expect(total.calculations[0]).toMatchObject({
      calculation_type: 'TOTAL',
      initial_price: r30(0),
      price: r30('115.87'),
      price_delta: r30('115.87'),
      details: [],
    });
    expect(totalUsd.item).toEqual({ type: 'TOTAL_USD', currency: 'USD', status: 'INCLUDED' });
    expect(Object.keys(totalUsd.calculations[0]).sort()).toEqual([
      'calculation_type',
      'currency',
      'details',
      'idx',
      'initial_price',
      'price',
      'price_delta',
      'title',
    ]);
  });

  it('converts to a crypto currency exactly, rounding half-up at the 30th digit', async () => {
    const org = await createOrg();
    const items = [
      { type: 'PAYMENT_INTENT', currency: 'EUR', price: '19.99' },
      { type: 'PAYMENT_INTENT', currency: 'USD', price: '0.000000000000000000000000000001' },
      { type: 'PAYMENT_INTENT', currency: 'ETHEREUM', price: '0.5' },
    ];
    const data = expectSuccess(await org.test.post('/pay/quote', { currency: 'ETHEREUM', items }));
    const eth = rate('ETHEREUM');
    const eurInEth = new D('19.99').mul(rate('EUR')).div(eth).toDecimalPlaces(30, Decimal.ROUND_HALF_UP);
    const usdInEth = new D('0.000000000000000000000000000001').div(eth).toDecimalPlaces(30, Decimal.ROUND_HALF_UP);
    expect(data.items[0].total.price).toBe(r30(eurInEth));
    expect(data.items[1].total.price).toBe(r30(usdInEth));
    expect(data.items[2].calculations).toHaveLength(1);
    expect(data.total.price).toBe(r30(eurInEth.add(usdInEth).add('0.5')));
    const usd = new D('19.99').mul(rate('EUR')).add('0.000000000000000000000000000001').add(new D('0.5').mul(eth));
    expect(data.total.price_usd).toBe(r30(usd));
  });

  it('accepts the price as a JSON number without losing digits', async () => {
    const org = await createOrg();
    const res = await org.test.request('POST', '/pay/quote', {
      rawBody: '{"currency":"USD","items":[{"type":"PAYMENT_INTENT","currency":"USD","price":0.100000000000000000000000000003}]}',
      headers: { 'content-type': 'application/json' },
    });
    expect(expectSuccess(res).total.price).toBe('0.100000000000000000000000000003');
  });

  it.each([
    [{ items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '1' }] }, 'currency'],
    [{ currency: 'XYZ', items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '1' }] }, 'currency'],
    [{ currency: 'USD' }, 'product'],
    [{ currency: 'USD', items: [] }, 'items'],
    [{ currency: 'USD', items: 'x' }, 'items'],
    [{ currency: 'USD', items: [{ type: 'GIFT' }] }, 'items.0.type'],
    [{ currency: 'USD', items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '-1' }] }, 'items.0.price'],
    [{ currency: 'USD', items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '1e5' }] }, 'items.0.price'],
    [{ currency: 'USD', items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '0.1234567890123456789012345678901' }] }, 'items.0.price'],
    [{ currency: 'USD', items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: 'NaN' }] }, 'items.0.price'],
    [{ currency: 'USD', items: [{ type: 'PAYMENT_INTENT', currency: 'ZZZ', price: '1' }] }, 'items.0.currency'],
    [{ currency: 'USD', items: [{ type: 'PAYMENT_INTENT', price: '1' }] }, 'items.0.currency'],
    [{ currency: 'USD', items: [{ type: 'PRODUCT', product_id: 'p', billing_schema_id: 's' }] }, 'items.0.quantity'],
    [{ currency: 'USD', items: [{ type: 'PRODUCT', product_id: 'p', billing_schema_id: 's', quantity: 1.5 }] }, 'items.0.quantity'],
    [{ currency: 'USD', items: [{ type: 'PRODUCT', billing_schema_id: 's', quantity: 1 }] }, 'items.0.product_id'],
    [{ currency: 'USD', product: { id: 'p', quantity: 0, billing_schema_id: 's' } }, 'product.quantity'],
    [{ currency: 'USD', invoice_id: 'invoice_x', items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '1' }] }, 'invoice_id'],
    // Null is not a variant: nothing to price (it once quoted an empty list at 0).
    [{ currency: 'USD', product: null }, 'product'],
    [{ currency: 'USD', invoice_id: null }, 'invoice_id'],
    [{ currency: 'USD', items: null }, 'items'],
    // Beside another variant it is still given: two variants.
    [{ currency: 'USD', invoice_id: 'invoice_x', items: null }, 'items'],
  ])('refuses %j with validator.%s', async (body, field) => {
    const org = await createOrg();
    expectError(await org.test.post('/pay/quote', body), 400, { code: 'validation_failed', field });
  });

  it('refuses more than 100 items', async () => {
    const org = await createOrg();
    const items = Array.from({ length: 101 }, () => ({ type: 'PAYMENT_INTENT', currency: 'USD', price: '1' }));
    expectError(await org.test.post('/pay/quote', { currency: 'USD', items }), 400, { field: 'items' });
  });
});

describe('exchange rates import', () => {
  const exec = promisify(execFile);
  let service: IsolatedService;

  beforeAll(async () => {
    service = await startIsolatedService();
  });
  afterAll(async () => service?.stop());

  it('rates:import records a snapshot that later quotes use, keeping left-out currencies', async () => {
    const org = await service.createOrg('rates');
    const dir = mkdtempSync(join(tmpdir(), 'rates-'));
    const file = join(dir, 'rates.json');
    writeFileSync(file, JSON.stringify({ taken_at: '2026-11-21 06:00:00', source: 'test feed', rates: { EUR: '1.2', BITCOIN: '100000' } }));
    const { stdout } = await exec(process.execPath, [CLI, 'rates:import', file], { env: service.cliEnv });
    const imported = JSON.parse(stdout);
    expect(imported).toMatchObject({ taken_at: '2026-11-21 06:00:00', source: 'test feed', currencies: 49 });
    expect(imported.carried_over).toHaveLength(47);

    const data = expectSuccess(
      await org.test.post('/pay/quote', {
        currency: 'BITCOIN',
        items: [
          { type: 'PAYMENT_INTENT', currency: 'EUR', price: '1000' },
          { type: 'PAYMENT_INTENT', currency: 'GBP', price: '1' },
        ],
      }),
    );
    expect(data.exchange_rate_timestamp).toBe('2026-11-21 06:00:00');
    expect(data.items[0].total.price).toBe(r30('0.012'));
    expect(data.items[1].total.price).toBe(r30(new D(BUNDLED_SNAPSHOT.rates.GBP).div(100000)));

    writeFileSync(file, JSON.stringify({ taken_at: '2026-11-21 07:00:00', rates: { EUR: '-1', XYZ: '2' } }));
    const failed = await exec(process.execPath, [CLI, 'rates:import', file], { env: service.cliEnv }).catch((e) => e);
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stderr).validator).toEqual({ 'rates.EUR': expect.any(String), 'rates.XYZ': expect.any(String) });
  });
});
