/**
 * The HTML of the refund claim page (decisions §19): server-rendered in the payer's language, naming
 * the merchant and the invoice, with the form to pick a payout method and give an address, or the
 * payout once given and the refund's progress (waiting for the payout, sent, completed). Its script
 * (static/claim.js) sends the form to POST /refund_claims/{token} and shows the answer's field errors,
 * polls GET /refund_claims/{token}/state while the payout is on its way (as checkout polls a payment),
 * and in test mode drives the test control (POST /refund_claims/{token}/test_payout). No inline
 * script or style (a strict CSP holds), strings from the locale files. Pure: every value put into the
 * markup is escaped here.
 */
export const CLAIM_LANGUAGES = ['en', 'de'] as const;
export type ClaimLanguage = (typeof CLAIM_LANGUAGES)[number];
export type ClaimStrings = Readonly<Record<string, string>>;

/** `lang` when it is one of ours, else the best of Accept-Language, else English. */
export function chooseClaimLanguage(lang: unknown, acceptLanguage: string | undefined): ClaimLanguage {
  if (typeof lang === 'string' && (CLAIM_LANGUAGES as readonly string[]).includes(lang)) return lang as ClaimLanguage;
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => /^q=([01](?:\.\d{1,3})?)$/.exec(p.trim())).find(Boolean);
      return { base: tag.split('-')[0], q: q ? Number(q[1]) : 1, i };
    })
    .filter((t) => t.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  const hit = ranked.find((t) => (CLAIM_LANGUAGES as readonly string[]).includes(t.base));
  return (hit?.base as ClaimLanguage | undefined) ?? 'en';
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** JSON safe inside a <script type="application/json"> block. */
function jsonForHtml(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

export interface ClaimShell {
  lang: ClaimLanguage;
  strings: ClaimStrings;
  languages: ReadonlyArray<{ code: ClaimLanguage; name: string }>;
  /** PUBLIC_BASE_URL ('' for links relative to the service). */
  base: string;
  assetVersion: string;
}

export interface ClaimPageData {
  token: string;
  testMode: boolean;
  status: string;
  amount: string;
  currency: string;
  expiresAt: string;
  methods: ReadonlyArray<{ provider_id: string; name: string; network: string; currency: string }>;
  payout: { network: string; currency: string; address: string; amount: string; uri: string | null } | null;
  /** The organization's name ('' when it has none). */
  merchant?: string;
  /** The invoice refunded: its id and items (a null name is an amount without a product). */
  invoice?: { id: string; items: ReadonlyArray<{ name: string | null; quantity: number }> };
  /** How often the script asks for the refund's state, in milliseconds. */
  pollMs?: number;
}

/** The steps of a payout's progress the page shows, in order. */
export const PROGRESS_STEPS = ['AWAITING_PAYOUT', 'SENT', 'COMPLETED'] as const;

/** States the page keeps polling in (the refund may still move without the payer doing anything). */
export const MOVING_STATES: readonly string[] = ['AWAITING_DESTINATION', 'AWAITING_PAYOUT', 'SENT'];

/** The test control's states: a payout is fixed and not yet final. */
export const TEST_PAYOUT_STATES: readonly string[] = ['AWAITING_PAYOUT', 'SENT'];

/** `{name}` placeholders filled from values (the values are escaped by the caller's escapeHtml). */
function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole);
}

function progress(s: ClaimStrings, status: string): string {
  const at = (PROGRESS_STEPS as readonly string[]).indexOf(status);
  const steps = PROGRESS_STEPS.map((step, i) => {
    const state = at < 0 ? 'todo' : i < at || status === 'COMPLETED' ? 'done' : i === at ? 'current' : 'todo';
    return `<li data-step="${step}" class="step-${state}"${state === 'current' ? ' aria-current="step"' : ''}>${escapeHtml(s[`step_${step}`] ?? step)}</li>`;
  }).join('');
  return `<ol class="progress" id="claim-progress" aria-label="${escapeHtml(s.progress_label ?? '')}">${steps}</ol>`;
}

function testControls(s: ClaimStrings): string {
  return `<section class="test-controls" id="test-controls" aria-labelledby="test-controls-title">
<h2 id="test-controls-title">${escapeHtml(s.test_controls_title)}</h2>
<p class="hint">${escapeHtml(s.test_controls_text)}</p>
<button type="button" id="test-payout-paid" data-result="paid">${escapeHtml(s.test_payout_paid)}</button>
<button type="button" id="test-payout-short" class="secondary" data-result="short">${escapeHtml(s.test_payout_short)}</button>
<p class="test-result" id="test-result" role="status" hidden></p>
<p class="form-error" id="test-error" role="alert" hidden></p>
</section>`;
}

function context(s: ClaimStrings, data: ClaimPageData): string {
  const rows: string[] = [];
  if (data.merchant) rows.push(`<dt>${escapeHtml(s.merchant_label)}</dt><dd id="claim-merchant">${escapeHtml(data.merchant)}</dd>`);
  if (data.invoice) {
    rows.push(`<dt>${escapeHtml(s.invoice_label)}</dt><dd id="claim-invoice"><code>${escapeHtml(data.invoice.id)}</code></dd>`);
    const items = data.invoice.items.map((i) => `<li>${escapeHtml(i.name ?? s.item_payment)}${i.quantity > 1 ? ` × ${i.quantity}` : ''}</li>`).join('');
    if (items) rows.push(`<dt>${escapeHtml(s.items_label)}</dt><dd><ul class="items" id="claim-items">${items}</ul></dd>`);
  }
  return rows.join('\n');
}

/** An amount without the trailing zeros of its 30 fractional digits (at least two kept for fiat-like reading). */
export function shortAmount(text: string): string {
  if (!text.includes('.')) return text;
  const [int, frac] = text.split('.');
  const trimmed = frac.replace(/0+$/, '');
  return `${int}.${trimmed.padEnd(2, '0')}`;
}

function head(shell: ClaimShell, title: string, withScript: boolean): string {
  const v = encodeURIComponent(shell.assetVersion);
  const base = escapeHtml(shell.base);
  return `<!doctype html>
<html lang="${shell.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${base}/refund_claims/assets/claim.css?v=${v}">
${withScript ? `<script type="module" src="${base}/refund_claims/assets/claim.js?v=${v}"></script>\n` : ''}</head>`;
}

function languageLinks(shell: ClaimShell, path: string): string {
  const links = shell.languages
    .map((l) =>
      l.code === shell.lang
        ? `<li><span aria-current="true" lang="${l.code}">${escapeHtml(l.name)}</span></li>`
        : `<li><a href="${escapeHtml(path)}?lang=${l.code}" lang="${l.code}" hreflang="${l.code}">${escapeHtml(l.name)}</a></li>`,
    )
    .join('');
  return `<nav class="languages" aria-label="Language / Sprache"><ul>${links}</ul></nav>`;
}

export function renderClaimMessagePage(shell: ClaimShell, title: string, text: string): string {
  return `${head(shell, title, false)}
<body><main class="claim"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></main></body></html>`;
}

export function renderClaimPage(shell: ClaimShell, data: ClaimPageData): string {
  const s = shell.strings;
  const path = `${shell.base}/refund_claims/${encodeURIComponent(data.token)}`;
  const amount = `${shortAmount(data.amount)} ${data.currency}`;
  let body: string;
  if (data.status === 'AWAITING_DESTINATION' && data.methods.length) {
    const options = data.methods
      .map(
        (m, i) =>
          `<li><input type="radio" name="provider_id" id="method-${i}" value="${escapeHtml(m.provider_id)}"${i === 0 ? ' checked' : ''}>` +
          `<label for="method-${i}">${escapeHtml(m.name)} <span class="network">(${escapeHtml(m.network)})</span></label></li>`,
      )
      .join('');
    body = `<form id="claim-form" novalidate>
<fieldset><legend>${escapeHtml(s.choose_method)}</legend><ul class="methods">${options}</ul>
<p class="field-error" id="provider-error" role="alert" hidden></p></fieldset>
<label for="address">${escapeHtml(s.address_label)}</label>
<input id="address" name="address" type="text" autocomplete="off" autocapitalize="off" spellcheck="false" required aria-describedby="address-hint address-error">
<p class="hint" id="address-hint">${escapeHtml(s.address_hint)}</p>
<p class="field-error" id="address-error" role="alert" hidden></p>
<button type="submit" id="claim-submit">${escapeHtml(s.submit)}</button>
<p class="form-error" id="form-error" role="alert" hidden></p>
</form>`;
  } else if (data.status === 'AWAITING_DESTINATION') {
    body = `<p>${escapeHtml(s.no_methods)}</p>`;
  } else if (data.payout && data.status !== 'CANCELED') {
    body = `<section aria-labelledby="payout-title"><h2 id="payout-title">${escapeHtml(s.payout_title)}</h2>
<p>${escapeHtml(s.payout_text)}</p>
<dl class="payout">
<dt>${escapeHtml(s.payout_amount)}</dt><dd id="payout-amount">${escapeHtml(shortAmount(data.payout.amount))} ${escapeHtml(data.payout.currency)}</dd>
<dt>${escapeHtml(s.payout_network)}</dt><dd id="payout-network">${escapeHtml(data.payout.network)}</dd>
<dt>${escapeHtml(s.payout_address)}</dt><dd id="payout-address"><code>${escapeHtml(data.payout.address)}</code></dd>
</dl>
${progress(s, data.status)}
<p id="claim-status" role="status" data-status="${escapeHtml(data.status)}">${escapeHtml(s[`status_${data.status}`] ?? data.status)}</p></section>
${data.testMode && TEST_PAYOUT_STATES.includes(data.status) ? testControls(s) : ''}`;
  } else {
    body = `<p id="claim-status" role="status" data-status="${escapeHtml(data.status)}">${escapeHtml(s[`status_${data.status}`] ?? data.status)}</p>`;
  }
  const title = data.merchant && s.title_merchant ? fill(s.title_merchant, { merchant: data.merchant }) : s.title;
  const scripted = MOVING_STATES.includes(data.status);
  const texts: Record<string, string> = { sending: s.sending, submit: s.submit, error_generic: s.error_generic, error_network: s.error_network };
  for (const key of Object.keys(s)) if (key.startsWith('status_') || key.startsWith('step_') || key.startsWith('test_payout')) texts[key] = s[key];
  return `${head(shell, title, scripted)}
<body>
${languageLinks(shell, path)}
<main class="claim" id="claim" data-token="${escapeHtml(data.token)}" data-base="${escapeHtml(shell.base)}" data-status="${escapeHtml(data.status)}" data-poll-ms="${data.pollMs ?? 4000}">
<h1>${escapeHtml(s.title)}</h1>
${data.testMode ? `<p class="test-mode">${escapeHtml(s.test_mode)}</p>` : ''}
<dl class="summary">${context(s, data)}
<dt>${escapeHtml(s.amount_label)}</dt><dd id="refund-amount">${escapeHtml(amount)}</dd>
<dt>${escapeHtml(s.expires_label)}</dt><dd>${escapeHtml(data.expiresAt)}</dd></dl>
${body}
</main>
<script type="application/json" id="claim-strings">${jsonForHtml(texts)}</script>
</body></html>`;
}
