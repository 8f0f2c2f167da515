/**
 * The HTML of the refund claim page (decisions §19): server-rendered in the payer's language, with
 * the form to pick a payout method and give an address, or the payout once given. Its script
 * (static/claim.js) only sends the form to POST /refund_claims/{token} and shows the answer's field
 * errors; no inline script or style (a strict CSP holds), strings from the locale files. Pure: every
 * value put into the markup is escaped here.
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
  payout: { network: string; currency: string; address: string; amount: string; uri: string } | null;
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
<p id="claim-status" role="status">${escapeHtml(s[`status_${data.status}`] ?? data.status)}</p></section>`;
  } else {
    body = `<p id="claim-status" role="status">${escapeHtml(s[`status_${data.status}`] ?? data.status)}</p>`;
  }
  return `${head(shell, s.title, data.status === 'AWAITING_DESTINATION')}
<body>
${languageLinks(shell, path)}
<main class="claim" id="claim" data-token="${escapeHtml(data.token)}" data-base="${escapeHtml(shell.base)}">
<h1>${escapeHtml(s.title)}</h1>
${data.testMode ? `<p class="test-mode">${escapeHtml(s.test_mode)}</p>` : ''}
<dl class="summary"><dt>${escapeHtml(s.amount_label)}</dt><dd id="refund-amount">${escapeHtml(amount)}</dd>
<dt>${escapeHtml(s.expires_label)}</dt><dd>${escapeHtml(data.expiresAt)}</dd></dl>
${body}
</main>
<script type="application/json" id="claim-strings">${jsonForHtml({ sending: s.sending, submit: s.submit, error_generic: s.error_generic, error_network: s.error_network })}</script>
</body></html>`;
}
