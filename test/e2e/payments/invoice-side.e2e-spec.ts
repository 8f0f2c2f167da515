import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { CLI } from '../../support/server';
import { createInvoice, D, pay, r30, shortState } from './payments-helpers';

const exec = promisify(execFile);

describe('invoices seen through their payments', () => {
  it('filters the invoice list by provider_id (any payment through that provider)', async () => {
    const { test, live } = await createOrg();
    const viaUsdt = await createInvoice(test);
    const viaBoth = await createInvoice(test);
    const none = await createInvoice(test);
    await pay(test, { invoice_id: viaUsdt, provider_id: 'prov_tron_usdt', price: '1', status: 'COMPLETED' });
    await pay(test, { invoice_id: viaBoth, provider_id: 'prov_tron_usdt', price: '1' });
    const failed = await pay(test, { invoice_id: viaBoth, provider_id: 'prov_card_usd', price: '1' });
    expectSuccess(await test.post(`/test_helpers/payments/${failed.id}/status`, { status: 'FAILED' }));
    const ids = async (provider_id: string) => expectSuccess(await test.post('/invoices/list', { provider_id })).items.map((i: any) => i.id);
    expect(await ids('prov_tron_usdt')).toEqual([viaBoth, viaUsdt]);
    expect(await ids('prov_card_usd')).toEqual([viaBoth]);
    expect(await ids('prov_bitcoin_bitcoin')).toEqual([]);
    expect(await ids('provider_card_usd')).toEqual([viaBoth]);
    expect(expectSuccess(await test.post('/invoices/list', {})).items.map((i: any) => i.id)).toContain(none);
    const combined = expectSuccess(await test.post('/invoices/list', { provider_id: 'prov_tron_usdt', status: ['PARTIALLY_PAID'] }));
    expect(combined.items.map((i: any) => i.id)).toEqual([viaUsdt]);
    expect(expectSuccess(await live.post('/invoices/list', { provider_id: 'prov_tron_usdt' })).total).toBe(0);
  });

  it('expands payments and payments.provider on the invoice read, oldest first', async () => {
    const { test } = await createOrg();
    const invoiceId = await createInvoice(test, '10', 'USD');
    const first = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '4', status: 'COMPLETED', idempotency_key: 'a' });
    const second = await pay(test, { invoice_id: invoiceId, provider_id: 'prov_solana_usdc', price: '1' });
    const plain = expectSuccess(await test.post(`/invoices/${invoiceId}`, { expand: ['payments'] }));
    expect(plain.payments.map((p: any) => p.id)).toEqual([first.id, second.id]);
    expect(plain.payments[0]).toMatchObject({ idempotency_key: 'a', price: r30(4), price_usd: r30(4), status: 'COMPLETED' });
    expect(plain.payments[0]).not.toHaveProperty('provider');
    const withProvider = expectSuccess(await test.post(`/invoices/${invoiceId}`, { expand: ['payments.provider'] }));
    expect(withProvider.payments.map((p: any) => p.provider.id)).toEqual(['prov_card_usd', 'prov_solana_usdc']);
    const other = await createOrg();
    const empty = await createInvoice(other.test);
    expect(expectSuccess(await other.test.post(`/invoices/${empty}`, { expand: ['payments'] })).payments).toEqual([]);
  });
});

describe("payment tolerance and rates at the payment's time", () => {
  let service: IsolatedService;
  beforeAll(async () => {
    service = await startIsolatedService({ PAYMENT_TOLERANCE: '0.01' });
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('completes an invoice paid within PAYMENT_TOLERANCE, and values each payment at the rates of its happened_at', async () => {
    const org = await service.createOrg('Tolerant');
    const invoiceId = await createInvoice(org.test, '100', 'USD');
    const short = await pay(org.test, { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '98.99', status: 'COMPLETED' });
    expect(short.invoice).toMatchObject({ status: 'PARTIALLY_PAID', substatus: 'PAID_PARTIAL' });
    const enough = await pay(org.test, { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '0.01', status: 'COMPLETED' });
    // 99.00 >= 100 x (1 - 0.01): complete, not over.
    expect(enough.invoice).toMatchObject({ status: 'COMPLETED', substatus: null });

    const dir = mkdtempSync(join(tmpdir(), 'rates-'));
    const file = join(dir, 'rates.json');
    writeFileSync(file, JSON.stringify({ taken_at: '2026-11-20 12:00:00', rates: { USDT: '0.9990', EUR: '1.2' } }));
    await exec(process.execPath, [CLI, 'rates:import', file], { env: service.cliEnv });
    const second = await createInvoice(org.test, '1000', 'USD');
    const before = await pay(org.test, { invoice_id: second, provider_id: 'prov_ethereum_usdt', price: '10', happened_at: '2026-11-20 11:59:59' });
    const after = await pay(org.test, { invoice_id: second, provider_id: 'prov_ethereum_usdt', price: '10', happened_at: '2026-11-20T12:00:00Z' });
    const usd = async (id: string) => expectSuccess(await org.test.post(`/payments/${id}`, {})).price_usd;
    expect(await usd(before.id)).toBe(r30(new D(10).mul('1.0002')));
    expect(await usd(after.id)).toBe(r30(new D(10).mul('0.9990')));
    expect(await shortState(org.test, second)).toMatchObject({ status: 'WAITING_FOR_CONFIRMATIONS' });
  });
});
