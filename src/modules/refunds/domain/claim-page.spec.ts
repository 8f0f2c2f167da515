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

  it('shows the payout once given, without the form or the script', () => {
    const html = renderClaimPage(shell, {
      ...base,
      status: 'AWAITING_PAYOUT',
      methods: [],
      payout: { network: 'ETHEREUM', currency: 'USDT', address: '0xabc', amount: '10.494000000000000000000000000000', uri: 'ethereum:x' },
    });
    expect(html).not.toContain('claim-form');
    expect(html).not.toContain('claim.js');
    expect(html).toContain('<dd id="payout-amount">10.494 USDT</dd>');
    expect(html).toContain('<p id="claim-status" role="status">Waiting for the merchant</p>');
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
