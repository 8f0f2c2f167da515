import { chooseClaimLanguage, ClaimShell, renderClaimPage, shortAmount } from './claim-page';

const strings: Record<string, string> = {
  title: 'Your refund',
  amount_label: 'Refund',
  expires_label: 'Claim by',
  choose_method: 'How?',
  address_label: 'Address',
  address_hint: 'Paste it',
  submit: 'Request',
  sending: 'Checking',
  error_generic: 'Error',
  error_network: 'Offline',
  payout_title: 'On its way',
  payout_text: 'The merchant will send',
  payout_amount: 'Amount',
  payout_network: 'Network',
  payout_address: 'Address',
  status_AWAITING_PAYOUT: 'Waiting for the merchant',
  status_COMPLETED: 'Completed',
  title_merchant: 'Your refund from {merchant}',
  merchant_label: 'From',
  invoice_label: 'Invoice',
  items_label: 'For',
  item_payment: 'Payment',
  progress_label: 'Progress',
  step_AWAITING_PAYOUT: 'Waiting',
  step_SENT: 'Sent',
  step_COMPLETED: 'Arrived',
  test_controls_title: 'Test controls',
  test_controls_text: 'Simulate',
  test_payout_paid: 'Simulate payout',
  test_payout_short: 'Simulate short payout',
  status_CANCELED: 'Canceled',
  no_methods: 'No method',
  test_mode: 'Test mode',
};
const shell: ClaimShell = {
  lang: 'en',
  strings,
  languages: [
    { code: 'en', name: 'English' },
    { code: 'de', name: 'Deutsch' },
  ],
  base: '',
  assetVersion: 'abc',
};
const base = {
  token: 'rc_token',
  testMode: false,
  status: 'AWAITING_DESTINATION',
  amount: '10.500000000000000000000000000000',
  currency: 'USD',
  expiresAt: '2026-12-01 10:00:00',
  methods: [{ provider_id: 'prov_ethereum_usdt', name: 'Tether <USD>', network: 'ETHEREUM', currency: 'USDT' }],
  payout: null,
};

describe('claim page', () => {
  it('renders the form with one labelled radio per method, escaped, and no inline script or style', () => {
    const html = renderClaimPage(shell, base);
    expect(html).toContain('<input type="radio" name="provider_id" id="method-0" value="prov_ethereum_usdt" checked>');
    expect(html).toContain('<label for="method-0">Tether &lt;USD&gt; <span class="network">(ETHEREUM)</span></label>');
    expect(html).toContain('<label for="address">Address</label>');
    expect(html).toContain('<dd id="refund-amount">10.50 USD</dd>');
    expect(html).not.toMatch(/<script(?![^>]*(src=|type="application\/json"))/);
    expect(html).not.toMatch(/style=/);
    expect(html).toContain('<script type="module" src="/refund_claims/assets/claim.js?v=abc"></script>');
  });

  const payout = { network: 'ETHEREUM', currency: 'USDT', address: '0xabc', amount: '10.494000000000000000000000000000', uri: 'ethereum:x' };

  it('shows the payout once given with its progress, without the form; the script polls while it may move', () => {
    const html = renderClaimPage(shell, { ...base, status: 'AWAITING_PAYOUT', methods: [], payout, pollMs: 500 });
    expect(html).not.toContain('claim-form');
    expect(html).toContain('claim.js');
    expect(html).toContain('data-poll-ms="500"');
    expect(html).toContain('<dd id="payout-amount">10.494 USDT</dd>');
    expect(html).toContain('<p id="claim-status" role="status" data-status="AWAITING_PAYOUT">Waiting for the merchant</p>');
    expect(html).toContain('<li data-step="AWAITING_PAYOUT" class="step-current" aria-current="step">Waiting</li>');
    expect(html).toContain('<li data-step="SENT" class="step-todo">Sent</li>');
    expect(html).not.toContain('test-controls');
  });

  it('offers the test control in test mode while the payout is on its way, and neither control nor script once completed', () => {
    const waiting = renderClaimPage(shell, { ...base, testMode: true, status: 'AWAITING_PAYOUT', methods: [], payout });
    expect(waiting).toContain('<button type="button" id="test-payout-paid" data-result="paid">Simulate payout</button>');
    expect(waiting).toContain('id="test-payout-short"');
    const done = renderClaimPage(shell, { ...base, testMode: true, status: 'COMPLETED', methods: [], payout });
    expect(done).not.toContain('test-payout-paid');
    expect(done).not.toContain('claim.js');
    expect(done).toContain('<li data-step="COMPLETED" class="step-done">Arrived</li>');
  });

  it('names the merchant and the invoice with its items, escaped', () => {
    const html = renderClaimPage(shell, {
      ...base,
      merchant: 'Acme <Shop>',
      invoice: {
        id: 'invoice_1',
        items: [
          { name: 'Pro & plan', quantity: 2 },
          { name: null, quantity: 1 },
        ],
      },
    });
    expect(html).toContain('<title>Your refund from Acme &lt;Shop&gt;</title>');
    expect(html).toContain('<dd id="claim-merchant">Acme &lt;Shop&gt;</dd>');
    expect(html).toContain('<dd id="claim-invoice"><code>invoice_1</code></dd>');
    expect(html).toContain('<li>Pro &amp; plan × 2</li><li>Payment</li>');
  });

  it('says when no method is available, and when the refund was canceled', () => {
    expect(renderClaimPage(shell, { ...base, methods: [] })).toContain('No method');
    expect(renderClaimPage(shell, { ...base, status: 'CANCELED', methods: [] })).toContain('>Canceled</p>');
  });

  it.each([
    ['de', undefined, 'de'],
    [undefined, 'de-CH,de;q=0.9,en;q=0.8', 'de'],
    [undefined, 'fr-FR,en;q=0.5', 'en'],
    [undefined, 'de;q=0,en', 'en'],
    ['xx', 'de', 'de'],
    [undefined, undefined, 'en'],
  ])('chooses the language from lang=%s and Accept-Language %s: %s', (lang, accept, want) => {
    expect(chooseClaimLanguage(lang, accept)).toBe(want);
  });

  it.each([
    ['10.000000000000000000000000000000', '10.00'],
    ['0.033333333333333333000000000000', '0.033333333333333333'],
    ['7', '7'],
  ])('shortens %s to %s', (text, want) => {
    expect(shortAmount(text)).toBe(want);
  });
});
