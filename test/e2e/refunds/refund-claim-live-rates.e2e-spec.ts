import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { LocalChain } from '../../chain/local-chain';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { D } from '../../support/money';
import { freshAccount, writeChainsFile } from '../rails/rails-helpers';
import { paymentAddress, units, waitForPayments } from '../rails/chain-helpers';
import { fakeExchange, FakeExchange, waitFor } from '../rates/rate-source-helpers';

const trimmed = (amount: string) => amount.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');

/**
 * A live refund with `rate: current` fixes its payout at the claim (decisions §19, §21): the claim takes
 * fresh rates or answers 503 rates_unavailable and stores nothing, and once the source answers again
 * the payout is priced at the rate of that moment. A live invoice on a real Hardhat node, paid in Ether,
 * with one local URL rate source.
 */
describe('a live refund claimed at the current rate (Hardhat, a local rate source)', () => {
  const feed = { ETHEREUM: '2000' } as Record<string, string>;
  let chain: LocalChain;
  let source: FakeExchange;
  let service: IsolatedService;
  let org: Awaited<ReturnType<IsolatedService['createOrg']>>;

  beforeAll(async () => {
    chain = await LocalChain.start();
    source = await fakeExchange(() => ({ taken_at: new Date().toISOString(), rates: { ...feed } }));
    service = await startIsolatedService({
      CHAINS_FILE: writeChainsFile({ live: { ethereum: { rpc_url: chain.rpcUrl, chain_id: 31337, poll_interval_ms: 100, confirmations: 30 } } }),
      CHAIN_LOCK_RETRY_MS: '300',
      RATE_SOURCES: `${source.url}/rates.json`,
      RATES_REFRESH_SECONDS: '1',
      RATES_MAX_AGE_SECONDS: '10',
      RATE_SOURCE_TIMEOUT_MS: '500',
    });
    org = await service.createOrg('Live refunds');
    expectSuccess(await org.live.post('/wallets', { chain_family: 'evm', xpub: freshAccount().xpub }), 201);
  }, 180_000);

  afterAll(async () => {
    await service?.stop();
    await source?.close();
    await chain?.stop();
  });

  const etherQuote = () => org.live.post('/pay/quote', { currency: 'USD', items: [{ type: 'PAYMENT_INTENT', currency: 'ETHEREUM', price: '1' }] });
  const etherAt = (usd: string) =>
    waitFor(`live Ether at ${usd} USD`, async () => {
      const res = await etherQuote();
      return res.status === 200 && new D(res.body.data.total.price).eq(usd) ? true : null;
    });
  const claim = (refund: { claim_url: string }, body: unknown) =>
    new Api(null, service.server.baseUrl).post(`/refund_claims/${new URL(refund.claim_url, 'http://x').pathname.split('/').pop()}`, body);

  it('answers 503 rates_unavailable while the rates are stale and stores nothing, then prices the payout at the rate of the claim', async () => {
    await etherAt('2000');
    const invoiceId = expectSuccess<{ id: string }>(
      await org.live.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '100' }] }),
      201,
    ).id;
    const pay = await paymentAddress(org.live, invoiceId, 'prov_ethereum_ethereum');
    expect(new D(pay.amount).eq(new D(100).div(2000))).toBe(true);
    await chain.sendNative(1, pay.address, units(trimmed(pay.amount), 18));
    await chain.mine(12);
    await waitForPayments(org.live, invoiceId, (p) => p.length === 1 && p[0].status === 'COMPLETED', 30_000);

    const refund = expectSuccess(await org.live.post(`/invoices/${invoiceId}/refunds`, { amount: '50', rate: 'current' }), 201);
    const payer = privateKeyToAccount(generatePrivateKey()).address;

    // The source stops answering: Ether's rate ages past RATES_MAX_AGE_SECONDS and the claim is refused.
    source.behaviour = 'error';
    await waitFor('live Ether to be refused', async () => ((await etherQuote()).status === 503 ? true : null), 30_000);
    const refused = expectError(await claim(refund, { provider_id: 'prov_ethereum_ethereum', address: payer }), 503, { code: 'rates_unavailable' });
    expect(refused.error).toContain('ETHEREUM');
    const still = expectSuccess(await org.live.get(`/refunds/${refund.id}`));
    expect([still.status, still.destination]).toEqual(['AWAITING_DESTINATION', null]);

    // It answers again, at another price: the payout is fixed at the claim's rate, not the invoice's.
    // (15 % above the last rate: within RATES_MAX_JUMP, so the lone source's answer is taken.)
    feed.ETHEREUM = '2300';
    source.behaviour = 'answer';
    await etherAt('2300');
    const claimed = expectSuccess(await claim(refund, { provider_id: 'prov_ethereum_ethereum', address: payer }));
    // 50 USD at 2300, in Ether's 18 decimals (rounded up to the last wei); at the invoice's 2000 it would be 0.025.
    const payout = new D(claimed.payout.amount);
    expect(payout.minus(new D(50).div(2300)).abs().lte('1e-18')).toBe(true);
    expect(payout.lt('0.025')).toBe(true);
  }, 120_000);
});
