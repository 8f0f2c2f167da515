import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { CLI } from '../../support/server';
import { createInvoice, r30 } from '../payments/payments-helpers';
import { freshAccount, writeChainsFile } from '../rails/rails-helpers';
import { advance, MINUTE } from './timing-helpers';

const exec = promisify(execFile);
const TEST_USDT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

/**
 * The rate lock is one rule read at the invoice's own now: with the test clock moved past expires_at,
 * the providers list and the deposit address both price the amount to send at the current rates.
 */
describe('rate lock under a moved test clock', () => {
  let service: IsolatedService;
  beforeAll(async () => {
    const chainsFile = writeChainsFile({ test: { ethereum: { rpc_url: 'http://127.0.0.1:9/', chain_id: 31337, tokens: { usdt: TEST_USDT } } } });
    service = await startIsolatedService({ CLOCK_CONTROL: 'true', INVOICE_SWEEP_SECONDS: '0', CHAINS_FILE: chainsFile });
  });
  afterAll(async () => service?.stop());

  it('ends for the providers list and the deposit address at the same moved instant', async () => {
    const org = await service.createOrg();
    const payer = new Api(null, service.server.baseUrl);
    expectSuccess(await org.test.post('/wallets', { chain_family: 'evm', xpub: freshAccount().xpub }), 201);
    const id = await createInvoice(org.test, '100', 'USD', { expires_in_minutes: 5 });
    const listed = async () => expectSuccess(await payer.get(`/providers/${id}`)).providers.find((p: any) => p.id === 'prov_ethereum_usdt').price;
    const address = async () => expectSuccess(await payer.post(`/invoices/${id}/payment_address`, { provider_id: 'prov_ethereum_usdt' })).amount;

    const quoted = await listed();
    const dir = mkdtempSync(join(tmpdir(), 'rates-'));
    writeFileSync(join(dir, 'rates.json'), JSON.stringify({ taken_at: '2026-11-20 12:00:00', rates: { USDT: '0.5' } }));
    await exec(process.execPath, [CLI, 'rates:import', join(dir, 'rates.json')], { env: service.cliEnv });
    expect(quoted).not.toBe(r30('200'));

    // Within the lock, both still use the invoice's own rates.
    expect(await listed()).toBe(quoted);
    expect(await address()).toBe(quoted);

    // The organization's test clock passes expires_at (real time does not): both follow the current rates.
    await advance(org.test, 5 * MINUTE);
    expect(await listed()).toBe(r30('200'));
    expect(await address()).toBe(r30('200'));
  });

  it('takes a payment report stamped a little ahead of the clock as recorded now: before expires_at it is on time, at the invoice rates', async () => {
    const org = await service.createOrg();
    const id = await createInvoice(org.test, '100', 'USD', { expires_in_minutes: 5 });
    // Two minutes on, the invoice has three left; the report says four minutes ahead (within the five a
    // provider's clock may run ahead), one past the invoice's expiry.
    const now = await advance(org.test, 2 * MINUTE);
    const ahead = new Date(now.getTime() + 4 * MINUTE * 1000).toISOString();
    const paid = expectSuccess(
      await org.test.post('/test_helpers/payments', { invoice_id: id, provider_id: 'prov_card_usd', price: '100', status: 'COMPLETED', happened_at: ahead }),
      201,
    );
    expect(paid.invoice).toMatchObject({ status: 'COMPLETED', substatus: null });
    // Its time is kept as reported.
    const read = expectSuccess(await org.test.post(`/payments/${paid.id}`, {}));
    expect(read.happened_at).toBe(ahead.slice(0, 19).replace('T', ' '));
  });

  it('quotes an invoice and sums it up in another currency at its own rates within the lock, at the current ones after', async () => {
    const org = await service.createOrg();
    const id = await createInvoice(org.test, '100', 'USD', { expires_in_minutes: 5 });
    const quote = async () => expectSuccess(await org.test.post('/pay/quote', { currency: 'USDT', invoice_id: id })).total.price as string;
    const summary = async () => expectSuccess(await org.test.post(`/invoices/${id}`, { currency: 'USDT' })).summary.price as string;
    const quoted = await quote();
    expect(await summary()).toBe(quoted);

    // USDT falls to a quarter of a dollar: the payment addresses still ask for the invoice's amount, and so do the quote and summary.
    const dir = mkdtempSync(join(tmpdir(), 'rates-'));
    writeFileSync(join(dir, 'rates.json'), JSON.stringify({ taken_at: '2026-11-20 12:05:00', rates: { USDT: '0.25' } }));
    await exec(process.execPath, [CLI, 'rates:import', join(dir, 'rates.json')], { env: service.cliEnv });
    expect(quoted).not.toBe(r30('400'));
    expect(await quote()).toBe(quoted);
    expect(await summary()).toBe(quoted);

    // Past expires_at the lock has ended: the current rates.
    await advance(org.test, 5 * MINUTE);
    expect(await quote()).toBe(r30('400'));
    expect(await summary()).toBe(r30('400'));
  });

  it('gives a partly paid invoice deposit addresses until its monitoring window closes, and none after it (nobody would watch them)', async () => {
    const org = await service.createOrg();
    const payer = new Api(null, service.server.baseUrl);
    expectSuccess(await org.test.post('/wallets', { chain_family: 'evm', xpub: freshAccount().xpub }), 201);
    const id = await createInvoice(org.test, '100', 'USD', { expires_in_minutes: 5 });
    expectSuccess(await org.test.post('/test_helpers/payments', { invoice_id: id, provider_id: 'prov_card_usd', price: '50', status: 'COMPLETED' }), 201);
    const address = () => payer.post(`/invoices/${id}/payment_address`, { provider_id: 'prov_ethereum_usdt' });
    expectSuccess(await address());
    // Expired, within the monitoring window (1440 minutes by default): a late payment is still watched for.
    await advance(org.test, 5 * MINUTE);
    expectSuccess(await address());
    // The window closed: the invoice stays PARTIALLY_PAID (only the merchant ends it), but no address is given.
    await advance(org.test, 1440 * MINUTE);
    expectError(await address(), 400, { code: 'payment_window_closed', field: 'id' });
    expect(expectSuccess(await org.test.post(`/invoices/${id}`, {})).status).toBe('PARTIALLY_PAID');
  });

  it("values a payment made within the lock at the invoice's rates, so the amount quoted covers it; a late one at the rates of its moment", async () => {
    const org = await service.createOrg();
    const payer = new Api(null, service.server.baseUrl);
    const quoted = async (invoiceId: string) =>
      expectSuccess(await payer.get(`/providers/${invoiceId}`)).providers.find((p: any) => p.id === 'prov_ethereum_usdt').price as string;
    const pay = async (invoiceId: string, price: string) =>
      expectSuccess(
        await org.test.post('/test_helpers/payments', { invoice_id: invoiceId, provider_id: 'prov_ethereum_usdt', price, status: 'COMPLETED' }),
        201,
      );
    const invoiceOf = async (invoiceId: string) => expectSuccess(await org.test.post(`/invoices/${invoiceId}`, { expand: ['payments'] }));

    // Priced while USDT is at 1: 100 USDT asked.
    const dir = mkdtempSync(join(tmpdir(), 'rates-'));
    writeFileSync(join(dir, 'at-1.json'), JSON.stringify({ taken_at: '2026-11-21 12:00:00', rates: { USDT: '1' } }));
    await exec(process.execPath, [CLI, 'rates:import', join(dir, 'at-1.json')], { env: service.cliEnv });
    const inTime = await createInvoice(org.test, '100', 'USD', { expires_in_minutes: 5 });
    const late = await createInvoice(org.test, '100', 'USD', { expires_in_minutes: 5 });
    const asked = await quoted(inTime);
    expect(asked).toBe(r30('100'));

    // USDT falls to 0.5 before the payer sends exactly what was asked, within the lock.
    writeFileSync(join(dir, 'at-half.json'), JSON.stringify({ taken_at: '2026-11-22 12:00:00', rates: { USDT: '0.5' } }));
    await exec(process.execPath, [CLI, 'rates:import', join(dir, 'at-half.json')], { env: service.cliEnv });
    await pay(inTime, asked);
    const paid = await invoiceOf(inTime);
    expect(paid).toMatchObject({ status: 'COMPLETED', substatus: null });
    expect(paid.payments[0].price_usd).toBe(r30('100'));

    // Past expires_at, the 100 USDT first asked are worth 50: a late payment is valued at the rates of its moment.
    await advance(org.test, 5 * MINUTE);
    expect(await quoted(late)).toBe(r30('200'));
    await pay(late, r30('100'));
    const short = await invoiceOf(late);
    expect(short).toMatchObject({ status: 'PARTIALLY_PAID', substatus: 'PAID_PARTIAL' });
    expect(short.payments[0].price_usd).toBe(r30('50'));
  });
});

/** A refund at `rate: invoice` is paid out at the rates the invoice was paid at (decisions §19), on a service with no chains. */
describe('refunds of payments made within and after the rate lock', () => {
  let service: IsolatedService;
  beforeAll(async () => {
    service = await startIsolatedService({ CLOCK_CONTROL: 'true', INVOICE_SWEEP_SECONDS: '0' });
  });
  afterAll(async () => service?.stop());

  it("refunds at the rates the invoice was paid at: a late payment gives back the coins sent, not their value at the invoice's rates", async () => {
    const org = await service.createOrg();
    const payer = new Api(null, service.server.baseUrl);
    const pay = async (invoiceId: string, price: string) =>
      expectSuccess(
        await org.test.post('/test_helpers/payments', { invoice_id: invoiceId, provider_id: 'prov_ethereum_usdt', price, status: 'COMPLETED' }),
        201,
      );
    // The whole paid amount back, claimed in USDT (no chain here: the test-mode payout asks no node).
    const payoutOfFullRefund = async (invoiceId: string) => {
      const refund = expectSuccess(await org.test.post(`/invoices/${invoiceId}/refunds`, {}), 201);
      expect(refund).toMatchObject({ rate: 'invoice', amount_usd: r30('100') });
      const token = new URL(refund.claim_url, 'http://x').pathname.split('/').pop();
      const claim = expectSuccess(
        await payer.post(`/refund_claims/${token}`, { provider_id: 'prov_ethereum_usdt', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' }),
      );
      return claim.payout.amount as string;
    };

    // Both invoices priced while USDT is at 1 (100 USDT asked), then USDT falls to 0.5.
    const dir = mkdtempSync(join(tmpdir(), 'rates-'));
    writeFileSync(join(dir, 'at-1.json'), JSON.stringify({ taken_at: '2026-11-23 12:00:00', rates: { USDT: '1' } }));
    await exec(process.execPath, [CLI, 'rates:import', join(dir, 'at-1.json')], { env: service.cliEnv });
    const inTime = await createInvoice(org.test, '100', 'USD', { expires_in_minutes: 5 });
    const late = await createInvoice(org.test, '100', 'USD', { expires_in_minutes: 5 });
    writeFileSync(join(dir, 'at-half.json'), JSON.stringify({ taken_at: '2026-11-24 12:00:00', rates: { USDT: '0.5' } }));
    await exec(process.execPath, [CLI, 'rates:import', join(dir, 'at-half.json')], { env: service.cliEnv });

    // Within the lock the payer sends the 100 USDT asked (worth 100 USD at the invoice's rates) and gets 100 back.
    await pay(inTime, r30('100'));
    expect(await payoutOfFullRefund(inTime)).toBe(r30('100'));

    // After expiry the other payer sends 200 USDT (worth 100 USD at the rates of that moment) and gets those 200 back,
    // not 100 USD at the invoice's 1 USDT = 1 USD, which would hand back half the coins.
    await advance(org.test, 5 * MINUTE);
    await pay(late, r30('200'));
    expect(await payoutOfFullRefund(late)).toBe(r30('200'));
  });
});
