import type { RpcRecorder } from '../../chain/rpc-recorder';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService } from '../../support/isolated';
import { eventually } from '../../support/webhook-receiver';
import { merchant, RecordedChain, startRecordedChain } from '../rails/chain-helpers';
import { addressAt } from '../rails/rails-helpers';

/**
 * A claim is checked open when it arrives, then asks the rates and the chain's tip (a node call) before it
 * is written: a slow node may take it past the claim's end, and a claim that ended meanwhile must not be
 * written as made in time.
 */
describe('a refund claim whose time ends while the node is asked for its tip', () => {
  let setup: RecordedChain;
  let recorder: RpcRecorder;
  let service: IsolatedService;
  beforeAll(async () => {
    // The watcher polls once a minute: the head asked during the test is the claim's. The payout worker (which
    // closes ended claims) stays out of the way: the claim itself must refuse.
    setup = await startRecordedChain({ poll_interval_ms: 60_000 }, { CLOCK_CONTROL: 'true', REFUND_CHECK_SECONDS: '3600' });
    ({ recorder, service } = setup);
  }, 120_000);
  afterAll(async () => setup?.stop());

  it('refuses it as expired, and leaves the refund without a destination', async () => {
    const shop = await merchant(service);
    const invoiceId = expectSuccess(await shop.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '30' }] }), 201)
      .id as string;
    expectSuccess(
      await shop.test.post('/test_helpers/payments', { invoice_id: invoiceId, provider_id: 'prov_card_usd', price: '30', status: 'COMPLETED' }),
      201,
    );
    const refund = expectSuccess(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount: '10', expires_in_minutes: 5 }), 201);
    const token = new URL(refund.claim_url as string, 'http://x').pathname.split('/').pop();

    // The node answers its head slowly; the organization's clock passes the claim's end meanwhile.
    recorder.delaying = (call) => (call.method === 'eth_blockNumber' ? 2000 : 0);
    try {
      const asked = recorder.calls.length;
      const claiming = new Api(null, service.server.baseUrl).post(`/refund_claims/${token}`, { provider_id: 'prov_ethereum_usdt', address: addressAt(7, 0) });
      // The claim is past its first check once it asks the node for the head (held there for 2 s).
      await eventually(async () => expect(recorder.calls.slice(asked).some((c) => c.method === 'eth_blockNumber')).toBe(true));
      expectSuccess(await shop.test.post('/test_helpers/clock', { advance_seconds: 600 }), 200);
      expectError(await claiming, 400, { code: 'claim_expired', field: 'token' });
    } finally {
      recorder.delaying = null;
    }
    expect(expectSuccess(await shop.test.get(`/refunds/${refund.id}`))).toMatchObject({ status: 'AWAITING_DESTINATION', destination: null, payout: null });
  });
});
