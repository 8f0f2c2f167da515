import { anonymous, Api, Api as Client, testDatabaseUrl } from '../../support/api';
import { withClient } from '../../support/pg';
import { expectError, expectSuccess } from '../../support/envelope';
import { createKey, createOrg, TestOrg } from '../../support/factories';
import { r30 } from '../../support/money';

/**
 * Refunds in test mode on a service with no test chain (the shared test service has no CHAINS_FILE):
 * the claim offers the organization's enabled providers, the payout is fixed as usual, and the merchant
 * (or the claim page's test control) finishes it with a simulated payout.
 */
const ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

async function paidInvoice(api: Api, price = '100'): Promise<string> {
  const invoice = expectSuccess(await api.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price }] }), 201).id as string;
  expectSuccess(await api.post('/test_helpers/payments', { invoice_id: invoice, provider_id: 'prov_card_usd', price, status: 'COMPLETED' }), 201);
  return invoice;
}

const tokenOf = (refund: { claim_url: string }) => new URL(refund.claim_url, 'http://x').pathname.split('/').pop()!;

/** A refund of `amount` USD the payer claimed to `address` on `provider`: AWAITING_PAYOUT. */
async function claimedRefund(org: TestOrg, amount = '30', provider = 'prov_ethereum_usdt', address = ADDRESS) {
  const invoice = await paidInvoice(org.test);
  const refund = expectSuccess(await org.test.post(`/invoices/${invoice}/refunds`, { amount }), 201);
  const claim = expectSuccess(await anonymous().post(`/refund_claims/${tokenOf(refund)}`, { provider_id: provider, address }));
  expect(claim.status).toBe('AWAITING_PAYOUT');
  return { invoice, refund, token: tokenOf(refund), claim };
}

const refundEvents = async (api: Client, id: string) =>
  (
    expectSuccess(await api.post('/events', { type: ['refund.updated', 'refund.completed'], limit: 100 })).items as Array<{
      type: string;
      data: { object: { id: string; status: string } };
    }>
  )
    .filter((e) => e.data.object.id === id)
    .reverse();

describe('refunds in test mode without a test chain', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await createOrg('Refund Test Shop');
  });

  it('offers every enabled provider that takes an address (no card), fixes the payout, and checks the address by the network rules', async () => {
    const invoice = await paidInvoice(org.test);
    const refund = expectSuccess(await org.test.post(`/invoices/${invoice}/refunds`, { amount: '12' }), 201);
    const state = expectSuccess(await anonymous().get(`/refund_claims/${tokenOf(refund)}/state`));
    const ids = state.methods.map((m: { provider_id: string }) => m.provider_id);
    expect(ids).toEqual(expect.arrayContaining(['prov_ethereum_usdt', 'prov_bitcoin_bitcoin', 'prov_tron_usdt', 'prov_solana_solana']));
    expect(ids.some((id: string) => id.startsWith('prov_card_'))).toBe(false);
    expect(state).toMatchObject({ status: 'AWAITING_DESTINATION', test_mode: true, merchant: { name: 'Refund Test Shop' } });
    expect(state.invoice).toEqual({ id: invoice, items: [{ name: null, quantity: 1 }] });

    const token = tokenOf(refund);
    expectError(await anonymous().post(`/refund_claims/${token}`, { provider_id: 'prov_card_usd', address: ADDRESS }), 400, { field: 'provider_id' });
    expectError(await anonymous().post(`/refund_claims/${token}`, { provider_id: 'prov_ethereum_usdt', address: ADDRESS.replace('aAeb', 'aaEb') }), 400, {
      field: 'address',
    });
    expectError(await anonymous().post(`/refund_claims/${token}`, { provider_id: 'prov_tron_usdt', address: `${TRON_ADDRESS.slice(0, -1)}u` }), 400, {
      field: 'address',
    });
    expectError(
      await anonymous().post(`/refund_claims/${token}`, { provider_id: 'prov_bitcoin_bitcoin', address: '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa' }),
      400,
      {
        field: 'address',
      },
    );
    const claim = expectSuccess(await anonymous().post(`/refund_claims/${token}`, { provider_id: 'prov_tron_usdt', address: TRON_ADDRESS }));
    // 12 USD in USDT at the invoice rates, to its 6 decimals; a plain payment URI (no wallet sends it, the payout is simulated).
    expect(claim.payout).toMatchObject({ provider_id: 'prov_tron_usdt', network: 'TRON', currency: 'USDT', address: TRON_ADDRESS });
    expect(claim.payout.amount).toMatch(/^1[12]\.\d{6}0{24}$/);
    expect(claim.payout.uri).toBe(`tron:${TRON_ADDRESS}?amount=${claim.payout.amount.replace(/0+$/, '').replace(/\.$/, '')}`);
    const read = expectSuccess(await org.test.get(`/refunds/${refund.id}`));
    expect(read.status).toBe('AWAITING_PAYOUT');
    expect(read.payout).toMatchObject({ tx_hash: null, confirmations: 0 });
  });

  it('paid: COMPLETED as a confirmed payout completes it, with refund.updated and refund.completed, and the invoice refunded_usd', async () => {
    const { invoice, refund } = await claimedRefund(org, '30');
    const done = await org.test.post(`/test_helpers/refunds/${refund.id}/payout`, { result: 'paid' });
    const completed = expectSuccess(done);
    expect(done.body.message).toBe('Simulated payout completed the refund');
    expect(completed).toMatchObject({ id: refund.id, status: 'COMPLETED' });
    expect(completed.payout.tx_hash).toBe(`simulated:${refund.id}`);
    expect(completed.payout.confirmations).toBe(completed.payout.required_confirmations);
    expect(expectSuccess(await org.test.get(`/refunds/${refund.id}`)).status).toBe('COMPLETED');
    expect(expectSuccess(await org.test.post(`/invoices/${invoice}`, {})).refunded_usd).toBe(r30(30));

    const events = await refundEvents(org.test, refund.id);
    const tail = events.slice(-2).map((e) => [e.type, e.data.object.status]);
    expect(tail).toEqual([
      ['refund.updated', 'SENT'],
      ['refund.completed', 'COMPLETED'],
    ]);

    // Again: the refund as it is, nothing more recorded.
    expect(expectSuccess(await org.test.post(`/test_helpers/refunds/${refund.id}/payout`, { result: 'paid' })).status).toBe('COMPLETED');
    expect((await refundEvents(org.test, refund.id)).length).toBe(events.length);
    expect(expectSuccess(await org.test.post(`/invoices/${invoice}`, {})).refunded_usd).toBe(r30(30));
    // A completed refund cannot be taken back.
    expectError(await org.test.post(`/test_helpers/refunds/${refund.id}/payout`, { result: 'short' }), 400, {
      code: 'invalid_state_transition',
      field: 'status',
    });
  });

  it("keeps the invoice's refunded_usd the sum of its completed refunds when several of them complete at once", async () => {
    const invoice = await paidInvoice(org.test);
    const refunds: string[] = [];
    for (let i = 0; i < 8; i++) {
      const refund = expectSuccess(await org.test.post(`/invoices/${invoice}/refunds`, { amount: '10' }), 201);
      expectSuccess(await anonymous().post(`/refund_claims/${tokenOf(refund)}`, { provider_id: 'prov_ethereum_usdt', address: ADDRESS }));
      refunds.push(refund.id as string);
    }
    const done = await Promise.all(refunds.map((id) => org.test.post(`/test_helpers/refunds/${id}/payout`, { result: 'paid' })));
    for (const res of done) expect(expectSuccess(res).status).toBe('COMPLETED');
    // Each completion sums the invoice's completed refunds: one that summed before another committed must not write the smaller total.
    expect(expectSuccess(await org.test.post(`/invoices/${invoice}`, {})).refunded_usd).toBe(r30(80));
  });

  it('answers the same destination sent several times at once with the one claim (a retry racing its original), and refuses another', async () => {
    const invoice = await paidInvoice(org.test);
    const refund = expectSuccess(await org.test.post(`/invoices/${invoice}/refunds`, { amount: '20' }), 201);
    const token = tokenOf(refund);
    const same = await Promise.all(
      Array.from({ length: 6 }, () => anonymous().post(`/refund_claims/${token}`, { provider_id: 'prov_tron_usdt', address: TRON_ADDRESS })),
    );
    const payouts = same.map((res) => expectSuccess(res).payout);
    for (const payout of payouts) expect(payout).toEqual(payouts[0]);
    expect(payouts[0]).toMatchObject({ provider_id: 'prov_tron_usdt', address: TRON_ADDRESS });
    // The claim was recorded once.
    const moved = (await refundEvents(org.test, refund.id)).filter((e) => e.data.object.status === 'AWAITING_PAYOUT');
    expect(moved).toHaveLength(1);
    // Another destination once it is given: refused at the status.
    expectError(await anonymous().post(`/refund_claims/${token}`, { provider_id: 'prov_ethereum_usdt', address: ADDRESS }), 400, { field: 'status' });
  });

  it('short: back to AWAITING_PAYOUT with payout_mismatch, refunding nothing; then paid completes it', async () => {
    const { invoice, refund } = await claimedRefund(org, '20');
    const res = await org.test.post(`/test_helpers/refunds/${refund.id}/payout`, { result: 'short' });
    const back = expectSuccess(res);
    expect(back).toMatchObject({ id: refund.id, status: 'AWAITING_PAYOUT' });
    expect(back.payout.tx_hash).toBeNull();
    expect(res.body.message).toMatch(
      /^Simulated payout taken back \(payout_mismatch\): the transaction does not pay 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed at least \d+ smallest units of USDT$/,
    );
    expect(expectSuccess(await org.test.post(`/invoices/${invoice}`, {})).refunded_usd).toBe(r30(0));
    const events = await refundEvents(org.test, refund.id);
    expect(events.slice(-2).map((e) => [e.type, e.data.object.status])).toEqual([
      ['refund.updated', 'SENT'],
      ['refund.updated', 'AWAITING_PAYOUT'],
    ]);
    // Short again is another report taken back; the refund can still be canceled, or paid.
    expect(expectSuccess(await org.test.post(`/test_helpers/refunds/${refund.id}/payout`, { result: 'short' })).status).toBe('AWAITING_PAYOUT');
    expect(expectSuccess(await org.test.post(`/test_helpers/refunds/${refund.id}/payout`, { result: 'paid' })).status).toBe('COMPLETED');
    expect(expectSuccess(await org.test.post(`/invoices/${invoice}`, {})).refunded_usd).toBe(r30(20));
  });

  it('refuses a refund in another state, live keys, read-only keys, other organizations and unknown ids', async () => {
    const invoice = await paidInvoice(org.test);
    const waiting = expectSuccess(await org.test.post(`/invoices/${invoice}/refunds`, { amount: '5' }), 201);
    expectError(await org.test.post(`/test_helpers/refunds/${waiting.id}/payout`, { result: 'paid' }), 400, {
      code: 'invalid_state_transition',
      field: 'status',
    });
    const canceled = expectSuccess(await org.test.post(`/invoices/${invoice}/refunds`, { amount: '5' }), 201);
    expectSuccess(await org.test.post(`/refunds/${canceled.id}/cancel`));
    expectError(await org.test.post(`/test_helpers/refunds/${canceled.id}/payout`, { result: 'short' }), 400, { code: 'invalid_state_transition' });
    expect(expectSuccess(await org.test.get(`/refunds/${waiting.id}`)).status).toBe('AWAITING_DESTINATION');

    const { refund } = await claimedRefund(org, '5');
    expectError(await org.live.post(`/test_helpers/refunds/${refund.id}/payout`, { result: 'paid' }), 403, { code: 'live_mode_forbidden' });
    const readOnly = new Client(await createKey(org.id, 'test', true));
    expectError(await readOnly.post(`/test_helpers/refunds/${refund.id}/payout`, { result: 'paid' }), 403, { code: 'read_only_key' });
    expectError(await anonymous().post(`/test_helpers/refunds/${refund.id}/payout`, { result: 'paid' }), 401);
    const stranger = await createOrg();
    expectError(await stranger.test.post(`/test_helpers/refunds/${refund.id}/payout`, { result: 'paid' }), 404, { code: 'refund_not_found' });
    expectError(await org.test.post('/test_helpers/refunds/refund_00000000-0000-0000-0000-000000000000/payout', { result: 'paid' }), 404, {
      code: 'refund_not_found',
    });
    // None of those moved it.
    expect(expectSuccess(await org.test.get(`/refunds/${refund.id}`)).status).toBe('AWAITING_PAYOUT');
  });

  it.each([[{}], [{ result: 'lost' }], [{ result: 1 }], [{ result: 'paid', amount: '1' }]])('refuses %j naming the field', async (body) => {
    const { refund } = await claimedRefund(org, '1');
    const field = 'amount' in body ? 'amount' : 'result';
    expectError(await org.test.post(`/test_helpers/refunds/${refund.id}/payout`, body), 400, { code: 'validation_failed', field });
  });

  it('honours Idempotency-Key: a retried short payout is answered once', async () => {
    const { refund } = await claimedRefund(org, '2');
    const headers = { 'Idempotency-Key': `short-${refund.id}` };
    const first = await org.test.post(`/test_helpers/refunds/${refund.id}/payout`, { result: 'short' }, { headers });
    const again = await org.test.post(`/test_helpers/refunds/${refund.id}/payout`, { result: 'short' }, { headers });
    expect(expectSuccess(again)).toEqual(expectSuccess(first));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await refundEvents(org.test, refund.id)).filter((e) => e.data.object.status === 'SENT')).toHaveLength(1);
  });

  it("the claim page's keyless test control: the token is the capability, for test-mode refunds only", async () => {
    const { refund, token, invoice } = await claimedRefund(org, '7');
    const short = await anonymous().post(`/refund_claims/${token}/test_payout`, { result: 'short' });
    expect(expectSuccess(short).status).toBe('AWAITING_PAYOUT');
    expect(short.body.message).toContain('payout_mismatch');
    const paid = expectSuccess(await anonymous().post(`/refund_claims/${token}/test_payout`, { result: 'paid' }));
    expect(paid).toMatchObject({ status: 'COMPLETED', methods: [], payout: { provider_id: 'prov_ethereum_usdt', address: ADDRESS } });
    expect(paid).not.toHaveProperty('reason');
    expect(expectSuccess(await org.test.get(`/refunds/${refund.id}`)).status).toBe('COMPLETED');
    expect(expectSuccess(await org.test.post(`/invoices/${invoice}`, {})).refunded_usd).toBe(r30(7));
    expect(expectSuccess(await anonymous().get(`/refund_claims/${token}/state`)).status).toBe('COMPLETED');
    expectError(await anonymous().post('/refund_claims/rc_unknown/test_payout', { result: 'paid' }), 404);
    expectError(await anonymous().post(`/refund_claims/${token}/test_payout`, { result: 'maybe' }), 400, { field: 'result' });
    expectError(await anonymous().get('/refund_claims/rc_unknown/state'), 404);
  });

  it('the claim token moves no live refund: a refund in live mode answers 404 there', async () => {
    const { refund, token } = await claimedRefund(org, '3');
    // A live refund needs a live payment on a chain; its mode is what the guard reads, so the row is switched here.
    await withClient(testDatabaseUrl(), (db) => db.query(`UPDATE refunds SET mode = 'live' WHERE id = $1`, [refund.id]));
    try {
      expectError(await anonymous().post(`/refund_claims/${token}/test_payout`, { result: 'paid' }), 404);
      expectError(await org.live.post(`/test_helpers/refunds/${refund.id}/payout`, { result: 'paid' }), 403, { code: 'live_mode_forbidden' });
      const row = await withClient(testDatabaseUrl(), (db) => db.query(`SELECT status, tx_hash FROM refunds WHERE id = $1`, [refund.id]));
      expect(row.rows[0]).toEqual({ status: 'AWAITING_PAYOUT', tx_hash: null });
    } finally {
      await withClient(testDatabaseUrl(), (db) => db.query(`UPDATE refunds SET mode = 'test' WHERE id = $1`, [refund.id]));
    }
  });
});
