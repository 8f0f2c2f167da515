import { anonymous, Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createKey, createOrg, TestOrg } from '../../support/factories';
import { D, r30, rate } from '../../support/money';

/** An invoice of `price` USD paid in full by a COMPLETED test payment (card). */
async function paidInvoice(api: Api, price = '100'): Promise<string> {
  const invoice = expectSuccess(await api.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price }] }), 201).id as string;
  expectSuccess(await api.post('/test_helpers/payments', { invoice_id: invoice, provider_id: 'prov_card_usd', price, status: 'COMPLETED' }), 201);
  return invoice;
}

describe('refunds: the merchant API', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await createOrg();
  });

  it('creates a partial refund of a paid invoice, with a claim URL, waiting for the destination', async () => {
    const invoice = await paidInvoice(org.test);
    const refund = expectSuccess(await org.test.post(`/invoices/${invoice}/refunds`, { amount: '30', reason: 'One item returned' }), 201);
    expect(refund).toEqual({
      id: expect.stringMatching(/^refund_[0-9a-f-]{36}$/),
      invoice_id: invoice,
      status: 'AWAITING_DESTINATION',
      amount: r30(30),
      currency: 'USD',
      amount_usd: r30(30),
      rate: 'invoice',
      reason: 'One item returned',
      claim_url: expect.stringMatching(/\/refund_claims\/rc_[A-Za-z0-9_-]{32}$/),
      expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      destination: null,
      payout: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    // Claims stay open 7 days by default.
    const days = (Date.parse(`${refund.expires_at}Z`) - Date.parse(`${refund.created_at}Z`)) / 86_400_000;
    expect(days).toBe(7);
    expect(expectSuccess(await org.test.get(`/refunds/${refund.id}`))).toEqual(refund);
  });

  it('refunds everything refundable by default, and refuses more than was paid and not yet refunded', async () => {
    const invoice = await paidInvoice(org.test);
    const first = expectSuccess(await org.test.post(`/invoices/${invoice}/refunds`, { amount: '25.5' }), 201);
    expectError(await org.test.post(`/invoices/${invoice}/refunds`, { amount: '74.51' }), 400, { code: 'refund_exceeds_paid', field: 'amount' });
    const rest = expectSuccess(await org.test.post(`/invoices/${invoice}/refunds`, {}), 201);
    expect([rest.amount, rest.currency, rest.amount_usd]).toEqual([r30('74.5'), 'USD', r30('74.5')]);
    expectError(await org.test.post(`/invoices/${invoice}/refunds`, { amount: '0.01' }), 400, { code: 'nothing_to_refund' });
    // A canceled refund gives its amount back to the refundable.
    const canceled = expectSuccess(await org.test.post(`/refunds/${first.id}/cancel`));
    expect(canceled.status).toBe('CANCELED');
    expect(expectSuccess(await org.test.post(`/refunds/${first.id}/cancel`)).status).toBe('CANCELED');
    expect(expectSuccess(await org.test.post(`/invoices/${invoice}/refunds`, {}), 201).amount_usd).toBe(r30('25.5'));
  });

  it('refuses, naming the field, a refund whose amount or rest rounds to 0 (not a 500 from the database)', async () => {
    const invoice = await paidInvoice(org.test);
    const tiny = '0.000000000000000000000000000001';
    // 1e-30 JPY is worth 6.4e-33 USD: 0 at 30 digits.
    expect(rate('JPY').lessThan('0.5')).toBe(true);
    const worthless = expectError(await org.test.post(`/invoices/${invoice}/refunds`, { amount: tiny, currency: 'JPY' }), 400, { field: 'amount' });
    expect(worthless.validator.amount).toContain('rounds to 0');
    // All but 1e-30 USD refunded: the rest is 0 in BTC (1e-30 USD is about 1e-35 BTC), and refundable in USD.
    expectSuccess(await org.test.post(`/invoices/${invoice}/refunds`, { amount: new D(100).minus(tiny).toFixed() }), 201);
    const rest = expectError(await org.test.post(`/invoices/${invoice}/refunds`, { currency: 'BITCOIN' }), 400, { field: 'currency' });
    expect(rest.validator.currency).toContain('rounds to 0 BITCOIN');
    expect(expectSuccess(await org.test.post(`/invoices/${invoice}/refunds`, {}), 201).amount_usd).toBe(r30(tiny));
  });

  it('values a refund in another currency at the invoice rates or at current ones', async () => {
    const invoice = await paidInvoice(org.test);
    const eur = expectSuccess(await org.test.post(`/invoices/${invoice}/refunds`, { amount: '10', currency: 'EUR' }), 201);
    expect(eur.amount_usd).toBe(r30(new D(10).mul(rate('EUR'))));
    const current = expectSuccess(await org.test.post(`/invoices/${invoice}/refunds`, { amount: '10', currency: 'EUR', rate: 'current' }), 201);
    expect([current.rate, current.currency, current.amount_usd]).toEqual(['current', 'EUR', r30(new D(10).mul(rate('EUR')))]);
  });

  it('answers nothing_to_refund for an invoice without completed payments', async () => {
    const invoice = expectSuccess(await org.test.post('/invoices/create', { items: [{ type: 'PAYMENT_INTENT', currency: 'USD', price: '5' }] }), 201).id;
    expectError(await org.test.post(`/invoices/${invoice}/refunds`, {}), 400, { code: 'nothing_to_refund' });
    // A pending payment is not refundable either.
    expectSuccess(await org.test.post('/test_helpers/payments', { invoice_id: invoice, provider_id: 'prov_tron_usdt', price: '5' }), 201);
    expectError(await org.test.post(`/invoices/${invoice}/refunds`, {}), 400, { code: 'nothing_to_refund' });
  });

  it.each([
    [{ amount: '-1' }, 'amount'],
    [{ amount: '1e3' }, 'amount'],
    [{ amount: '0' }, 'amount'],
    [{ currency: 'XYZ' }, 'currency'],
    [{ rate: 'yesterday' }, 'rate'],
    [{ reason: '' }, 'reason'],
    [{ expires_in_minutes: 1 }, 'expires_in_minutes'],
    [{ expires_in_minutes: 10.5 }, 'expires_in_minutes'],
    [{ amount_usd: '1' }, 'amount_usd'],
  ])('refuses %j naming %s', async (body, field) => {
    const invoice = await paidInvoice(org.test, '10');
    expectError(await org.test.post(`/invoices/${invoice}/refunds`, body), 400, { field });
  });

  it('honours Idempotency-Key on create', async () => {
    const invoice = await paidInvoice(org.test);
    const headers = { 'Idempotency-Key': `refund-${invoice}` };
    const first = await org.test.post(`/invoices/${invoice}/refunds`, { amount: '60' }, { headers });
    const again = await org.test.post(`/invoices/${invoice}/refunds`, { amount: '60' }, { headers });
    expect(expectSuccess(again, 201).id).toBe(expectSuccess(first, 201).id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // One refund of 60 only: 40 is left.
    expectError(await org.test.post(`/invoices/${invoice}/refunds`, { amount: '40.01' }), 400, { code: 'refund_exceeds_paid' });
  });

  it('lists refunds newest first, filtered by invoice and status, paginated', async () => {
    const own = await createOrg();
    const a = await paidInvoice(own.test);
    const b = await paidInvoice(own.test);
    const r1 = expectSuccess(await own.test.post(`/invoices/${a}/refunds`, { amount: '1' }), 201);
    const r2 = expectSuccess(await own.test.post(`/invoices/${a}/refunds`, { amount: '2' }), 201);
    const r3 = expectSuccess(await own.test.post(`/invoices/${b}/refunds`, { amount: '3' }), 201);
    expectSuccess(await own.test.post(`/refunds/${r2.id}/cancel`));
    const all = expectSuccess(await own.test.get('/refunds'));
    expect(all.items.map((r: { id: string }) => r.id)).toEqual([r3.id, r2.id, r1.id]);
    expect([all.total, all.limit, all.offset, all.has_more]).toEqual([3, 20, 0, false]);
    expect(expectSuccess(await own.test.get(`/refunds?invoice_id=${a}`)).items.map((r: { id: string }) => r.id)).toEqual([r2.id, r1.id]);
    expect(expectSuccess(await own.test.get(`/refunds?status=CANCELED`)).items.map((r: { id: string }) => r.id)).toEqual([r2.id]);
    expect(expectSuccess(await own.test.get(`/refunds?invoice_id=${a}&status=AWAITING_DESTINATION`)).items.map((r: { id: string }) => r.id)).toEqual([r1.id]);
    const page = expectSuccess(await own.test.get('/refunds?limit=1&offset=1'));
    expect([page.items[0].id, page.total, page.has_more]).toEqual([r2.id, 3, true]);
    expect(expectSuccess(await own.test.get(`/refunds?starting_after=${r3.id}&limit=1`)).items[0].id).toBe(r2.id);
    expectError(await own.test.get('/refunds?status=DONE'), 400, { field: 'status' });
    expectError(await own.test.get('/refunds?limit=101'), 400, { field: 'limit' });
    expectError(await own.test.get(`/refunds?starting_after=refund_nope`), 400, { field: 'starting_after' });
    expect(expectSuccess(await own.live.get('/refunds')).total).toBe(0);
  });

  it('refuses a payout report before the payer named a destination', async () => {
    const invoice = await paidInvoice(org.test);
    const refund = expectSuccess(await org.test.post(`/invoices/${invoice}/refunds`, { amount: '5' }), 201);
    const tx = `0x${'ab'.repeat(32)}`;
    expectError(await org.test.post(`/refunds/${refund.id}/sent`, { tx_hash: tx }), 400, { code: 'invalid_state_transition', field: 'status' });
    expectError(await org.test.post(`/refunds/${refund.id}/sent`, {}), 400, { field: 'tx_hash' });
  });

  it('records refund.created and refund.canceled events', async () => {
    const own = await createOrg();
    const invoice = await paidInvoice(own.test);
    const refund = expectSuccess(await own.test.post(`/invoices/${invoice}/refunds`, { amount: '5' }), 201);
    expectSuccess(await own.test.post(`/refunds/${refund.id}/cancel`));
    const events = expectSuccess(await own.test.post('/events', { type: ['refund.created', 'refund.updated', 'refund.canceled'] })).items.reverse();
    expect(events.map((e: { type: string }) => e.type)).toEqual(['refund.created', 'refund.canceled']);
    expect(events[0].data.object).toEqual(refund);
    expect(events[1].data.object.status).toBe('CANCELED');
    expect(events[1].data.previous_attributes.status).toBe('AWAITING_DESTINATION');
  });

  it('needs a key with write rights; other organizations and the other mode get 404', async () => {
    const invoice = await paidInvoice(org.test);
    const refund = expectSuccess(await org.test.post(`/invoices/${invoice}/refunds`, { amount: '5' }), 201);
    const readOnly = new Api(await createKey(org.id, 'test', true));
    expectError(await readOnly.post(`/invoices/${invoice}/refunds`, {}), 403, { code: 'read_only_key' });
    expectError(await readOnly.post(`/refunds/${refund.id}/cancel`), 403, { code: 'read_only_key' });
    expectError(await readOnly.post(`/refunds/${refund.id}/sent`, { tx_hash: `0x${'1'.repeat(64)}` }), 403, { code: 'read_only_key' });
    expect(expectSuccess(await readOnly.get(`/refunds/${refund.id}`)).id).toBe(refund.id);
    for (const path of [`/invoices/${invoice}/refunds`, `/refunds/${refund.id}/cancel`]) expectError(await anonymous().post(path, {}), 401);
    expectError(await anonymous().get('/refunds'), 401);
    expectError(await anonymous().get(`/refunds/${refund.id}`), 401);
    expectError(await anonymous().post(`/refunds/${refund.id}/sent`, { tx_hash: `0x${'1'.repeat(64)}` }), 401);
    const stranger = await createOrg();
    expectError(await stranger.test.post(`/invoices/${invoice}/refunds`, {}), 404, { code: 'invoice_not_found' });
    expectError(await stranger.test.get(`/refunds/${refund.id}`), 404, { code: 'refund_not_found' });
    expectError(await org.live.get(`/refunds/${refund.id}`), 404, { code: 'refund_not_found' });
    expectError(await org.live.post(`/refunds/${refund.id}/cancel`), 404);
    expect(expectSuccess(await stranger.test.get(`/refunds?invoice_id=${invoice}`)).total).toBe(0);
  });

  it('answers 404 for an unknown claim token, as JSON and as a page', async () => {
    expectError(
      await anonymous().post('/refund_claims/rc_unknown', { provider_id: 'prov_ethereum_usdt', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' }),
      404,
    );
    const page = await anonymous().get('/refund_claims/rc_unknown');
    expect(page.status).toBe(404);
    expect(page.text).toContain('Refund not found');
  });

  it('serves the claim page under a strict CSP, with its script and stylesheet, in English and German', async () => {
    const invoice = await paidInvoice(org.test);
    const refund = expectSuccess(await org.test.post(`/invoices/${invoice}/refunds`, { amount: '5', reason: 'One item returned' }), 201);
    const path = new URL(refund.claim_url, 'http://x').pathname;
    const page = await anonymous().get(path);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).toContain('<h1>Your refund</h1>');
    expect(page.text).toContain(`<dd id="claim-merchant">${org.name}</dd>`);
    expect(page.text).toContain('<dd id="refund-amount">5.00 USD</dd>');
    // No rail in this service: test mode offers the organization's providers anyway (the payout is simulated); no reason shown to the payer.
    expect(page.text).not.toContain('No payout method is available right now');
    expect(page.text).toContain('value="prov_ethereum_usdt"');
    expect(page.text).not.toContain('One item returned');
    // The invoice it refunds, by its id and items.
    expect(page.text).toContain(`<dd id="claim-invoice"><code>${refund.invoice_id}</code></dd>`);
    const de = await anonymous().get(path, { headers: { 'accept-language': 'de-DE,de;q=0.9' } });
    expect(de.text).toContain('<html lang="de">');
    expect(de.text).toContain('<h1>Ihre Rückerstattung</h1>');
    expect(de.text).toContain(`<title>Ihre Rückerstattung von ${org.name}</title>`);
    const script = await anonymous().get('/refund_claims/assets/claim.js');
    expect([script.status, script.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
    expect((await anonymous().get('/refund_claims/assets/nope.js')).status).toBe(404);
    const token = path.split('/').pop();
    // A card takes no payout address: not offered.
    expectError(
      await anonymous().post(`/refund_claims/${token}`, { provider_id: 'prov_card_usd', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' }),
      400,
      {
        field: 'provider_id',
      },
    );
    expectError(await anonymous().post(`/refund_claims/${token}`, { provider_id: 'prov_ethereum_usdt' }), 400, { field: 'address' });
    expectError(await anonymous().post(`/refund_claims/${token}`, { provider_id: 'prov_ethereum_usdt', address: 'x', memo: 'y' }), 400, { field: 'memo' });
  });
});
