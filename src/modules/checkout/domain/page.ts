/**
 * The HTML of the hosted checkout page: a server-rendered shell in the payer's language that the
 * page's script (static/checkout.js) fills from the public payer API. No inline script or style:
 * the strings the script needs travel in a JSON data block, its settings in data attributes.
 * Pure: every value put into the markup is escaped here.
 */
import type { CurrencyFact } from './currency-facts';
import type { CheckoutLanguage } from './locale';

export type Strings = Readonly<Record<string, string>>;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** JSON safe inside a <script type="application/json"> block (no "</script>", no HTML comment openers). */
export function jsonForHtml(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export interface Shell {
  lang: CheckoutLanguage;
  strings: Strings;
  /** Every language the page speaks, with its own name, for the switcher. */
  languages: ReadonlyArray<{ code: CheckoutLanguage; name: string }>;
  /** PUBLIC_BASE_URL ('' for links relative to the service). */
  base: string;
  /** Content hash of the script and stylesheet, for long-lived caching. */
  assetVersion: string;
}

export interface CheckoutShell extends Shell {
  invoiceId: string;
  /** Now for the invoice's organization and mode (ISO 8601): a moved test clock included. */
  now: string;
  testMode: boolean;
  pollMs: number;
  redirectMs: number;
  currencies: readonly string[];
  /** What the page's script needs to show amounts in each currency (ticker, coin or not, decimals, name). */
  currencyFacts: Readonly<Record<string, CurrencyFact>>;
}

function head(shell: Shell, title: string, withScript: boolean): string {
  const v = encodeURIComponent(shell.assetVersion);
  return `<!doctype html>
<html lang="${shell.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="${escapeHtml(shell.base)}/checkout/assets/favicon.svg?v=${v}" type="image/svg+xml">
<link rel="stylesheet" href="${escapeHtml(shell.base)}/checkout/assets/checkout.css?v=${v}">
${withScript ? `<script type="module" src="${escapeHtml(shell.base)}/checkout/assets/checkout.js?v=${v}"></script>\n` : ''}</head>`;
}

function languageSwitcher(shell: Shell): string {
  const links = shell.languages
    .map((l) =>
      l.code === shell.lang
        ? `<a href="?lang=${l.code}" lang="${l.code}" hreflang="${l.code}" aria-current="true">${escapeHtml(l.name)}</a>`
        : `<a href="?lang=${l.code}" lang="${l.code}" hreflang="${l.code}">${escapeHtml(l.name)}</a>`,
    )
    .join('');
  return `<nav class="languages" aria-label="${escapeHtml(shell.strings.language_label)}">${links}</nav>`;
}

function footer(shell: Shell): string {
  return `<footer class="footer"><span>${escapeHtml(shell.strings.footer)}</span>${languageSwitcher(shell)}</footer>`;
}

export function renderCheckoutPage(shell: CheckoutShell): string {
  const t = shell.strings;
  const e = escapeHtml;
  return `${head(shell, t.title, true)}
<body>
${shell.testMode ? `<div class="test-banner" role="note"><strong>TEST MODE</strong> <span>${e(t.test_mode)}</span></div>\n` : ''}<main id="checkout" class="checkout" data-invoice-id="${e(shell.invoiceId)}" data-api-base="${e(shell.base)}" data-lang="${shell.lang}" data-poll-ms="${shell.pollMs}" data-redirect-ms="${shell.redirectMs}" data-test-mode="${shell.testMode}" data-now="${e(shell.now)}" aria-busy="true">
<header class="merchant">
<img id="merchant-logo" class="merchant-logo" alt="" width="48" height="48" hidden>
<div class="merchant-text"><p class="eyebrow">${e(t.pay_to)}</p><h1 id="merchant-name" class="merchant-name">${e(t.loading)}</h1></div>
</header>
<div class="layout">
<section class="card summary" aria-labelledby="summary-title">
<h2 id="summary-title" class="section-title">${e(t.order_summary)}</h2>
<ul id="items" class="items"></ul>
<div class="total-row"><span>${e(t.total)}</span><strong id="total" class="amount total-amount"></strong></div>
<div class="currency-row"><label for="currency">${e(t.currency_label)}</label><select id="currency" disabled></select></div>
<p id="currency-note" class="note" role="status" aria-live="polite"></p>
</section>
<section class="card pay" aria-labelledby="status-title">
<div id="status" class="status" data-state="loading" role="status" aria-live="polite" aria-atomic="true"><h2 id="status-title" class="status-title">${e(t.loading)}</h2><p id="status-text" class="status-text"></p></div>
<p id="countdown" class="countdown" hidden></p>
<div id="methods" class="methods" hidden></div>
<div id="payment" class="payment" hidden></div>
</section>
</div>
<noscript><p class="card notice">${e(t.noscript)}</p></noscript>
${footer(shell)}
</main>
<script type="application/json" id="checkout-strings">${jsonForHtml({ strings: t, currencies: shell.currencies, currencyFacts: shell.currencyFacts })}</script>
</body>
</html>
`;
}

/** A page with a title and one sentence (404, 429): no script. */
export function renderMessagePage(shell: Shell, title: string, text: string): string {
  return `${head(shell, title, false)}
<body>
<main class="checkout message-page">
<section class="card message">
<h1 class="status-title">${escapeHtml(title)}</h1>
<p>${escapeHtml(text)}</p>
</section>
${footer(shell)}
</main>
</body>
</html>
`;
}
