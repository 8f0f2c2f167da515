// The page's own facts, read once from the server-rendered markup: its settings (data attributes on
// #checkout), its strings in the payer's language and the currency facts (the JSON data block), and the
// small DOM helpers every other module builds with.

export const root = document.getElementById('checkout');
/**
 * strings: the locale file's strings; currencies: every currency the invoice may be changed to, in the
 * server's order; currencyFacts: per currency its ticker, whether it is a coin, its decimals and a coin's
 * name (a fiat currency's name and minor unit come from the browser's Intl data in the page's language).
 */
export const { strings: t, currencies, currencyFacts } = JSON.parse(document.getElementById('checkout-strings').textContent);
export const cfg = {
  invoiceId: root.dataset.invoiceId,
  apiBase: root.dataset.apiBase || '',
  lang: root.dataset.lang || 'en',
  pollMs: Number(root.dataset.pollMs) || 4000,
  redirectMs: Number(root.dataset.redirectMs ?? 5000),
  testMode: root.dataset.testMode === 'true',
  /** How far the invoice's clock (the server's now for its organization: a moved test clock) is ahead of this browser's. */
  clockOffsetMs: Number.isFinite(Date.parse(root.dataset.now)) ? Date.parse(root.dataset.now) - Date.now() : 0,
};
export const $ = (id) => document.getElementById(id);

/** A string from the locale file with {name} placeholders filled in. */
export function tr(key, values = {}) {
  return (t[key] ?? key).replace(/\{(\w+)\}/g, (_, name) => values[name] ?? `{${name}}`);
}

/** Builds an element: h('p', { class: 'x', text: 'y' }, child, ...). No HTML parsing anywhere. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'text') el.textContent = value;
    else if (name === 'on') for (const [ev, fn] of Object.entries(value)) el.addEventListener(ev, fn);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

const NETWORK_NAMES = { BSC: 'BNB Smart Chain', CARD: t.filter_CARD };
export function networkName(network) {
  return (
    NETWORK_NAMES[network] ??
    network.charAt(0) +
      network
        .slice(1)
        .toLowerCase()
        .replace(/_(\w)/g, (_, c) => ` ${c.toUpperCase()}`)
  );
}
