import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService } from '../../support/isolated';
import { ADMIN_TOKEN, CLI, errorLines } from '../../support/server';
import { eventually } from '../../support/webhook-receiver';
import { createInvoice, D } from '../payments/payments-helpers';
import { ChainSetup, merchant, paymentAddress, paymentsOf, startChain, startWatchingService, units, waitForPayments } from './chain-helpers';

const exec = promisify(execFile);
const TIMESTAMP = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;
const toDate = (timestamp: string) => new Date(`${timestamp.replace(' ', 'T')}Z`);

describe('transfers the payments module refuses are kept, listed and retried (/rails/unmatched)', () => {
  let setup: ChainSetup;
  let service: IsolatedService;
  const cli = (...args: string[]) => exec(process.execPath, [CLI, ...args], { env: service.cliEnv });
  const readOnlyKey = async (orgId: string) => {
    const res = await new Api(null, service.server.baseUrl).post(
      `/admin/organizations/${orgId}/keys`,
      { mode: 'test', read_only: true },
      { headers: { 'x-admin-token': ADMIN_TOKEN } },
    );
    expect(res.status).toBe(201);
    return new Api(res.body.data.key, service.server.baseUrl);
  };
  beforeAll(async () => {
    setup = await startChain();
    service = await startWatchingService(setup);
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await setup?.chain.stop();
  });

  it('keeps a transfer whose provider was disabled after its address was handed out; enabling it and retrying records the payment once', async () => {
    const shop = await merchant(service);
    const [first, second] = [await createInvoice(shop.test, '20', 'USDT'), await createInvoice(shop.test, '7', 'USDT')];
    const [payFirst, paySecond] = [await paymentAddress(shop.test, first), await paymentAddress(shop.test, second)];
    await cli('provider:disable', '--org', shop.id, '--provider', 'prov_ethereum_usdt', '--mode', 'test');
    // The setting reaches every cache (a third invoice is refused an address), then the money arrives.
    const third = await createInvoice(shop.test, '5', 'USDT');
    await eventually(async () =>
      expectError(await shop.test.post(`/invoices/${third}/payment_address`, { provider_id: 'prov_ethereum_usdt' }), 400, { code: 'provider_disabled' }),
    );
    const hash = await setup.chain.sendToken(setup.usdt, 1, payFirst.address, units(new D(payFirst.amount).toFixed(6), 6));
    const receipt = await setup.chain.receipt(hash);
    await setup.chain.sendToken(setup.usdt, 2, paySecond.address, units(new D(paySecond.amount).toFixed(6), 6));

    const listed = await eventually(async () => {
      const page = expectSuccess(await shop.test.get('/rails/unmatched'));
      if (page.total !== 2) throw new Error(`unmatched so far: ${page.total}`);
      return page;
    }, 20_000);
    expect(listed).toMatchObject({ total: 2, limit: 20, offset: 0, has_more: false });
    // Newest first: the second transfer's entry, then the first's.
    const [newer, entry] = listed.items;
    expect(newer.invoice_id).toBe(second);
    expect(entry).toEqual({
      id: expect.stringMatching(/^unmatched_[0-9a-f-]{36}$/),
      status: 'OPEN',
      reason_code: 'provider_disabled',
      reason: expect.stringContaining('disabled'),
      invoice_id: first,
      provider_id: 'prov_ethereum_usdt',
      network: 'ETHEREUM',
      currency: 'USDT',
      amount: payFirst.amount,
      address: payFirst.address,
      tx_hash: hash,
      log_index: receipt.logs[0].logIndex,
      block_number: Number(receipt.blockNumber),
      idempotency_key: `ethereum:${hash}:${receipt.logs[0].logIndex}`,
      in_doubt: false,
      attempts: 1,
      payment_id: null,
      happened_at: expect.stringMatching(TIMESTAMP),
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: expect.stringMatching(TIMESTAMP),
      resolved_at: null,
    });
    expect(await paymentsOf(shop.test, first)).toEqual([]);
    expect(expectSuccess(await shop.test.get(`/rails/unmatched/${entry.id}`))).toEqual(entry);
    // Each kept transfer was announced once, as the API shows it.
    const events = expectSuccess(await shop.test.post('/events', { type: 'transfer.unmatched' }));
    expect(events.total).toBe(2);
    expect(events.items.map((e: any) => e.data.object).find((o: any) => o.id === entry.id)).toEqual(entry);

    // Pages by cursor, and the status filter.
    const page1 = expectSuccess(await shop.test.get('/rails/unmatched?limit=1'));
    expect(page1).toMatchObject({ total: 2, has_more: true });
    expect(page1.items.map((t: any) => t.id)).toEqual([newer.id]);
    const page2 = expectSuccess(await shop.test.get(`/rails/unmatched?limit=1&starting_after=${newer.id}`));
    expect(page2).toMatchObject({ has_more: false });
    expect(page2.items.map((t: any) => t.id)).toEqual([entry.id]);
    expect(expectSuccess(await shop.test.get('/rails/unmatched?status=RESOLVED')).total).toBe(0);

    // Still disabled: refused again, with the reason, and counted.
    expectError(await shop.test.post(`/rails/unmatched/${entry.id}/retry`), 400, { code: 'transfer_not_recorded', field: 'id' });
    expect(expectSuccess(await shop.test.get(`/rails/unmatched/${entry.id}`))).toMatchObject({ status: 'OPEN', attempts: 2, payment_id: null });

    // A read-only key reads but does not retry.
    const reader = await readOnlyKey(shop.id);
    expect(expectSuccess(await reader.get(`/rails/unmatched/${entry.id}`)).id).toBe(entry.id);
    expectError(await reader.post(`/rails/unmatched/${entry.id}/retry`), 403);

    await cli('provider:enable', '--org', shop.id, '--provider', 'prov_ethereum_usdt', '--mode', 'test');
    const resolved = await eventually(async () => expectSuccess(await shop.test.post(`/rails/unmatched/${entry.id}/retry`)));
    expect(resolved).toMatchObject({
      id: entry.id,
      status: 'RESOLVED',
      payment_id: expect.stringMatching(/^payment_/),
      resolved_at: expect.stringMatching(TIMESTAMP),
    });
    // Retrying again answers the same: one payment, with the chain's idempotency key.
    const again = expectSuccess(await shop.test.post(`/rails/unmatched/${entry.id}/retry`));
    expect(again).toEqual(resolved);
    const payments = await paymentsOf(shop.test, first);
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({
      id: resolved.payment_id,
      provider_id: 'prov_ethereum_usdt',
      price: payFirst.amount,
      idempotency_key: entry.idempotency_key,
      happened_at: entry.happened_at,
    });
    expect(expectSuccess(await shop.test.get('/rails/unmatched?status=RESOLVED')).items.map((t: any) => t.id)).toEqual([entry.id]);
    expect(expectSuccess(await shop.test.get('/rails/unmatched?status=OPEN')).items.map((t: any) => t.id)).toEqual([newer.id]);

    // The watcher counts the retried payment's confirmations like any other: COMPLETED at 12.
    await setup.chain.mine(12);
    const [done] = await waitForPayments(shop.test, first, (p) => p[0]?.status === 'COMPLETED');
    expect(done.id).toBe(resolved.payment_id);
    expect(await paymentsOf(shop.test, first)).toHaveLength(1);
    expect(errorLines(service.server)).toEqual([]);
  }, 180_000);

  it("answers 404 for another organization's or the other mode's transfer, 400 for bad filters, 401 without a key", async () => {
    const shop = await merchant(service);
    const invoiceId = await createInvoice(shop.test, '3', 'USDT');
    const pay = await paymentAddress(shop.test, invoiceId);
    await cli('provider:disable', '--org', shop.id, '--provider', 'prov_ethereum_usdt', '--mode', 'test');
    const probe = await createInvoice(shop.test, '5', 'USDT');
    await eventually(async () =>
      expectError(await shop.test.post(`/invoices/${probe}/payment_address`, { provider_id: 'prov_ethereum_usdt' }), 400, { code: 'provider_disabled' }),
    );
    await setup.chain.sendToken(setup.usdt, 3, pay.address, units(new D(pay.amount).toFixed(6), 6));
    const [entry] = await eventually(async () => {
      const page = expectSuccess(await shop.test.get('/rails/unmatched'));
      if (!page.items.length) throw new Error('not kept yet');
      return page.items;
    }, 20_000);

    const other = await merchant(service);
    // another organization's: the plain 404, word for word
    for (const res of [await other.test.get(`/rails/unmatched/${entry.id}`), await other.test.post(`/rails/unmatched/${entry.id}/retry`)]) {
      expect(expectError(res, 404, { code: 'unmatched_transfer_not_found' }).error).toBe('Unmatched transfer not found');
    }
    expect(expectSuccess(await other.test.get('/rails/unmatched')).total).toBe(0);
    // its own organization's in the other mode: the 404 names the mode
    for (const res of [await shop.live.get(`/rails/unmatched/${entry.id}`), await shop.live.post(`/rails/unmatched/${entry.id}/retry`)]) {
      expect(expectError(res, 404, { code: 'unmatched_transfer_not_found' }).error).toBe(
        'Unmatched transfer not found: it exists in test mode; this key is a live key.',
      );
    }
    expect(expectSuccess(await shop.live.get('/rails/unmatched')).total).toBe(0);
    expectError(await shop.test.get('/rails/unmatched/whatever'), 404, { code: 'unmatched_transfer_not_found' });
    expectError(await shop.test.post('/rails/unmatched/whatever/retry'), 404, { code: 'unmatched_transfer_not_found' });

    expectError(await shop.test.get('/rails/unmatched?status=LOST'), 400, { field: 'status' });
    expectError(await shop.test.get('/rails/unmatched?limit=101'), 400, { field: 'limit' });
    // An id of this shape that names no transfer: the last character changed (an id ending in 0 would stay itself).
    const unknownId = entry.id.slice(0, -1) + (entry.id.endsWith('0') ? '1' : '0');
    expectError(await shop.test.get(`/rails/unmatched?starting_after=${unknownId}`), 400, { field: 'starting_after' });
    expectError(await other.test.get(`/rails/unmatched?starting_after=${entry.id}`), 400, { field: 'starting_after' });

    const anonymous = new Api(null, service.server.baseUrl);
    expectError(await anonymous.get('/rails/unmatched'), 401);
    expectError(await anonymous.get(`/rails/unmatched/${entry.id}`), 401);
    expectError(await anonymous.post(`/rails/unmatched/${entry.id}/retry`), 401);
    expect(expectSuccess(await shop.test.get(`/rails/unmatched/${entry.id}`)).status).toBe('OPEN');
  }, 120_000);

  // Last: the chain's later blocks keep timestamps after this one.
  it("records a payment whose block is stamped ahead of the service's clock, at the service's now", async () => {
    const shop = await merchant(service);
    const invoiceId = await createInvoice(shop.test, '11', 'USDT');
    const pay = await paymentAddress(shop.test, invoiceId);
    const ahead = Math.floor(Date.now() / 1000) + 600;
    await setup.chain.test.setNextBlockTimestamp({ timestamp: BigInt(ahead) });
    const hash = await setup.chain.sendToken(setup.usdt, 4, pay.address, units(new D(pay.amount).toFixed(6), 6));
    const receipt = await setup.chain.receipt(hash);
    expect(Number((await setup.chain.public.getBlock({ blockNumber: receipt.blockNumber })).timestamp)).toBe(ahead);

    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1);
    expect(seen).toMatchObject({ price: pay.amount, idempotency_key: `ethereum:${hash}:${receipt.logs[0].logIndex}` });
    const happened = toDate(seen.happened_at).getTime();
    expect(happened).toBeLessThanOrEqual(Date.now());
    expect(happened).toBeGreaterThan(Date.now() - 60_000);
    expect(expectSuccess(await shop.test.get('/rails/unmatched')).total).toBe(0);
  });
});
