import { escapeHtml, jsonForHtml, renderCheckoutPage, renderMessagePage } from './page';

const shell = {
  lang: 'en' as const,
  strings: {
    title: 'Checkout',
    loading: 'Loading',
    pay_to: 'From',
    order_summary: 'Summary',
    total: 'Total',
    currency_label: 'Currency',
    noscript: 'JS',
    footer: 'Foot',
    language_label: 'Language',
    test_mode: 'Test </script><b>',
  },
  languages: [
    { code: 'en' as const, name: 'English' },
    { code: 'de' as const, name: 'Deutsch' },
  ],
  base: '',
  assetVersion: 'abc',
};

describe('checkout page markup', () => {
  it('escapes text and ids put into the markup', () => {
    expect(escapeHtml(`<a href="x">'&`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;');
    const html = renderCheckoutPage({
      ...shell,
      invoiceId: 'invoice_"><script>',
      now: '2026-11-21T10:00:00.000Z',
      testMode: true,
      pollMs: 4000,
      redirectMs: 5000,
      currencies: ['USD'],
      currencyFacts: {},
    });
    expect(html).not.toContain('<script>');
    expect(html).toContain('data-invoice-id="invoice_&quot;&gt;&lt;script&gt;"');
  });

  it('carries its strings in a JSON block that cannot close the script element', () => {
    expect(jsonForHtml({ a: '</script><!--' })).toBe('{"a":"\\u003c/script\\u003e\\u003c!--"}');
    const html = renderCheckoutPage({
      ...shell,
      invoiceId: 'invoice_1',
      now: '2026-11-21T10:00:00.000Z',
      testMode: false,
      pollMs: 4000,
      redirectMs: 5000,
      currencies: ['USD'],
      currencyFacts: {},
    });
    const block = /<script type="application\/json" id="checkout-strings">(.*)<\/script>/.exec(html)![1];
    expect(JSON.parse(block).strings.test_mode).toBe('Test </script><b>');
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html).not.toMatch(/\s(style|on[a-z]+)=/);
  });

  it('shows the TEST MODE banner only for test-mode invoices', () => {
    const base = { ...shell, invoiceId: 'invoice_1', now: '2026-11-21T10:00:00.000Z', pollMs: 4000, redirectMs: 5000, currencies: ['USD'], currencyFacts: {} };
    expect(renderCheckoutPage({ ...base, testMode: true })).toContain('TEST MODE');
    expect(renderCheckoutPage({ ...base, testMode: false })).not.toContain('TEST MODE');
  });

  it("gives the script the invoice's now, so the countdown runs on a moved test clock", () => {
    const html = renderCheckoutPage({
      ...shell,
      invoiceId: 'invoice_1',
      now: '2026-12-21T10:00:00.000Z',
      testMode: true,
      pollMs: 4000,
      redirectMs: 5000,
      currencies: ['USD'],
      currencyFacts: {},
    });
    expect(html).toContain('data-now="2026-12-21T10:00:00.000Z"');
  });

  it('message pages load no script', () => {
    const html = renderMessagePage(shell, 'Invoice not found', 'No invoice here');
    expect(html).not.toContain('<script');
    expect(html).toContain('<h1 class="status-title">Invoice not found</h1>');
  });
});
