import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { D, r30 } from '../../support/money';
import { withClient } from '../../support/pg';
import { linesWith } from '../../support/server';
import { freshAccount, writeChainsFile } from '../rails/rails-helpers';
import { readSubscription, recurringProduct } from '../subscriptions/subscription-helpers';
import { fakeExchange, FakeExchange, waitFor } from './rate-source-helpers';

/**
 * Where a live price is fixed, every rate it needs must be fresh (decisions.md §21): an invoice's or a
 * quote's own currencies and the currency of every method it can be paid with live (§17), a payment
 * address once the invoice's rate lock has lapsed, and a subscription's period invoice. One local URL
 * source serves Ether; live mode has an Ethereum rail (its node is never asked here) and one organization
 * a receiving wallet, so Ether is a way to pay its live invoices.
 */
describe('the live rates guard wherever a live price is fixed', () => {
  const feed = { ETHEREUM: '3000' } as Record<string, string>;
  let source: FakeExchange;
  let service: IsolatedService;
  let payable: Awaited<ReturnType<IsolatedService['createOrg']>>;
  let plain: Awaited<ReturnType<IsolatedService['createOrg']>>;
  let ether: string;

  beforeAll(async () => {
    source = await fakeExchange(() => ({ taken_at: new Date().toISOString(), rates: { ...feed } }));
    const chainsFile = writeChainsFile({ live: { ethereum: { rpc_url: 'http://127.0.0.1:9/', chain_id: 1 } } });
    service = await startIsolatedService({
      RATE_SOURCES: `${source.url}/rates.json`,
      RATES_REFRESH_SECONDS: '1',
      RATES_MAX_AGE_SECONDS: '10',
      RATE_SOURCE_TIMEOUT_MS: '500',
      CHAINS_FILE: chainsFile,
      SUBSCRIPTIONS_TICK_SECONDS: '1',
    });
    payable = await service.createOrg('Takes Ether live');
    expectSuccess(await payable.live.post('/wallets', { chain_family: 'evm', xpub: freshAccount().xpub }), 201);
    // An organization with no way to be paid live: no receiving wallet.
    plain = await service.createOrg('No live wallet');
  }, 90_000);

  afterAll(async () => {
    await service?.stop();
    await source?.close();
  });

  const usdInvoice = (api: typeof payable.live, price = '300') => api.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price }] });
  const usdQuote = (api: typeof payable.live) =>
    api.post('/pay/quote', { currency: 'USD', items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '300' }] });
  const etherQuote = () => payable.live.post('/pay/quote', { currency: 'USD', items: [{ type: 'PAYMENT_INTENT', currency: 'ETHEREUM', price: '1' }] });
  const address = (invoiceId: string) => payable.live.post(`/invoices/${invoiceId}/payment_address`, { provider_id: ether });
  const liveInvoices = (orgId: string) =>
    withClient(service.databaseUrl!, async (c) => {
      const { rows } = await c.query(`SELECT count(*)::int AS n FROM invoices WHERE organization_id = $1 AND mode = 'live'`, [orgId]);
      return rows[0].n as number;
    });
  /** Ends an invoice's rate lock as time would: its expires_at moves a second into the past. */
  const lapseRateLock = (invoiceId: string) =>
    withClient(service.databaseUrl!, (c) => c.query(`UPDATE invoices SET expires_at = now() - interval '1 second' WHERE id = $1`, [invoiceId]));

  const etherAt = (usd: string) =>
    waitFor(`live Ether at ${usd} USD`, async () => {
      const res = await etherQuote();
      return res.status === 200 && res.body.data.total.price === r30(usd) ? true : null;
    });
  const etherStale = () =>
    waitFor('live Ether to be refused', async () => {
      const res = await etherQuote();
      return res.status === 503 ? true : null;
    });

  it('prices a live invoice or quote only when the rate of every method it can be paid with is fresh, and holds a locked rate', async () => {
    await etherAt('3000');
    // Ether is a method of the payable organization's live invoices
    const held = expectSuccess(await usdInvoice(payable.live), 201).id;
    const lapsing = expectSuccess(await usdInvoice(payable.live), 201).id;
    const providers = expectSuccess(await payable.live.get(`/providers/${held}`)).providers;
    ether = providers.find((p: { currency: string }) => p.currency === 'ETHEREUM').id;
    expect(providers.map((p: { currency: string }) => p.currency)).toContain('ETHEREUM');

    // The source stops answering: Ether's rate ages past RATES_MAX_AGE_SECONDS
    source.behaviour = 'error';
    await etherStale();
    const before = await liveInvoices(payable.id);
    const refused = await usdInvoice(payable.live);
    expect(expectError(refused, 503, { code: 'rates_unavailable' }).error).toMatch(/ETHEREUM/);
    expect(refused.headers.get('retry-after')).toBe('1');
    expectError(await usdQuote(payable.live), 503, { code: 'rates_unavailable' });
    expect(await liveInvoices(payable.id)).toBe(before);

    // Nothing to pay with live, nothing to guard beyond its own currency (USD); test mode prices from the table
    const unguarded = expectSuccess(await usdInvoice(plain.live), 201).id;
    expectSuccess(await usdQuote(plain.live));
    expectSuccess(await usdInvoice(payable.test), 201);

    // Within the rate lock the invoice's own snapshot is the agreed price: 300 / 3000
    expect(expectSuccess(await address(held)).amount).toBe(r30('0.1'));

    // Once the lock has lapsed, the address takes today's rate, which is stale: 503, no address handed out
    await lapseRateLock(lapsing);
    expectError(await address(lapsing), 503, { code: 'rates_unavailable' });
    const handedOut = await withClient(service.databaseUrl!, async (c) => {
      const { rows } = await c.query(`SELECT count(*)::int AS n FROM deposit_addresses WHERE invoice_id = $1`, [lapsing]);
      return rows[0].n as number;
    });
    expect(handedOut).toBe(0);
    // The provider list shows no price the service would not hold to: none once the lock lapsed, the
    // locked one within it
    const etherPrice = async (invoiceId: string) =>
      expectSuccess(await payable.live.get(`/providers/${invoiceId}`)).providers.find((p: { id: string }) => p.id === ether).price;
    expect(await etherPrice(lapsing)).toBeNull();
    expect(await etherPrice(held)).toBe(r30('0.1'));

    // The source answers again (within RATES_MAX_JUMP of its last rate): all priced from the fresh rate
    feed.ETHEREUM = '3200';
    source.behaviour = 'answer';
    await etherAt('3200');
    expect(expectSuccess(await address(lapsing)).amount).toBe(r30(new D(300).div(3200)));
    expect(await etherPrice(lapsing)).toBe(r30(new D(300).div(3200)));
    const priced = expectSuccess(await usdInvoice(payable.live), 201).id;
    expect(expectSuccess(await address(priced)).amount).toBe(r30(new D(300).div(3200)));

    // A way to pay enabled after an invoice was priced while its rate was stale: the lock holds no agreed
    // price in it (its payments would be valued at that stale rate), so no address and no price until the
    // lock ends, fresh rate or not; then today's rate prices it.
    expectSuccess(await plain.live.post('/wallets', { chain_family: 'evm', xpub: freshAccount().xpub }), 201);
    const plainAddress = () => plain.live.post(`/invoices/${unguarded}/payment_address`, { provider_id: ether });
    const refusedInLock = await plainAddress();
    expect(expectError(refusedInLock, 503, { code: 'rates_unavailable' }).error).toMatch(/locked exchange rates hold no rate recent enough for ETHEREUM/);
    expect(Number(refusedInLock.headers.get('retry-after'))).toBeGreaterThan(60);
    const plainEtherPrice = async () =>
      expectSuccess(await plain.live.get(`/providers/${unguarded}`)).providers.find((p: { id: string }) => p.id === ether).price;
    expect(await plainEtherPrice()).toBeNull();
    const plainAddresses = await withClient(service.databaseUrl!, async (c) => {
      const { rows } = await c.query(`SELECT count(*)::int AS n FROM deposit_addresses WHERE invoice_id = $1`, [unguarded]);
      return rows[0].n as number;
    });
    expect(plainAddresses).toBe(0);
    await lapseRateLock(unguarded);
    expect(expectSuccess(await plainAddress()).amount).toBe(r30(new D(300).div(3200)));
    expect(await plainEtherPrice()).toBe(r30(new D(300).div(3200)));
  });

  it("does not issue a live period invoice while a method's rate is stale, and issues it on a later pass", async () => {
    feed.ETHEREUM = '3200';
    source.behaviour = 'answer';
    await etherAt('3200');
    const plan = await recurringProduct(payable.live, { payment_type: 'ADVANCE', renew_type: 'ANNIVERSARY', billing_type: 'FULL', base_price: 30 });
    source.behaviour = 'error';
    await etherStale();
    const subscription = expectSuccess(
      await payable.live.post('/subscriptions', { product_id: plan.productId, billing_schema_id: plan.schemaId, customer_email: 'live@example.com' }),
      201,
    );
    // Several passes: the period is recorded and the subscription moves on, but its invoice is not
    // issued; each pass's attempt is refused for the stale rate and logged. Waited for until two passes
    // have been refused (a pass a second), not for a fixed time.
    const refusedFor = () => linesWith(service.server, '"subscription_invoice_failed"').filter((line) => line.includes(subscription.id));
    await waitFor('two refused passes', async () => (refusedFor().length >= 2 ? true : null));
    expect(await readSubscription(payable.live, subscription.id)).toMatchObject({ latest_invoice_id: null });
    const refused = refusedFor();
    expect(refused.length).toBeGreaterThanOrEqual(2);
    expect(refused.every((line) => line.includes('rates'))).toBe(true);

    source.behaviour = 'answer';
    await etherAt('3200');
    const issued = await waitFor('the period invoice', async () => {
      const s = await readSubscription(payable.live, subscription.id);
      return s.latest_invoice_id ? (s.latest_invoice_id as string) : null;
    });
    expect(expectSuccess(await payable.live.post(`/invoices/${issued}`, {})).price).toBe(r30('30'));
  });
});
