// The hosted checkout page's script. It uses only the public payer API, exactly as a merchant's
// own checkout would:
//   POST /invoices/{id}                  the invoice, its items, organization and payments
//   PUT  /invoices/{id}                  {currency}: the payer's currency change
//   GET  /providers/{id}                 the ways to pay, each with the exact amount to send
//   POST /invoices/{id}/payment_address  {provider_id}: a deposit address and payment URI
//   POST /invoices/{id}/test_payment     {provider_id, kind}: test mode only, a simulated payment
//                                        through a method without a rail (has_rail false)
//   GET  /invoices/{id}/short_state      polled every few seconds for the live status
// Amounts are decimal strings from the API and stay strings, never floating-point numbers. Prices and
// totals are rounded half-up to the currency's decimals (fiat: its minor unit; coins: their smallest
// unit, at most 8 places). The amount to send is the API's, already at the coin's smallest unit; for a
// coin with more than 8 decimals (Ether, BNB, POL) it is rounded UP to 8 places, so sending what the
// page shows always covers it (the QR code and the wallet link carry the exact amount). Both are trimmed
// of trailing zeros and grouped for reading.
import qrcode from './qrcode.mjs';

const root = document.getElementById('checkout');
const { strings: t, currencies } = JSON.parse(document.getElementById('checkout-strings').textContent);
const cfg = {
  invoiceId: root.dataset.invoiceId,
  apiBase: root.dataset.apiBase || '',
  lang: root.dataset.lang || 'en',
  pollMs: Number(root.dataset.pollMs) || 4000,
  redirectMs: Number(root.dataset.redirectMs ?? 5000),
  testMode: root.dataset.testMode === 'true',
  /** How far the invoice's clock (the server's now for its organization: a moved test clock) is ahead of this browser's. */
  clockOffsetMs: Number.isFinite(Date.parse(root.dataset.now)) ? Date.parse(root.dataset.now) - Date.now() : 0,
};
const $ = (id) => document.getElementById(id);
const EXPAND = ['items', 'items.product', 'calculations', 'organization', 'payments'];
const FILTERS = ['ALL', 'STABLECOIN', 'NATIVE', 'TOKEN', 'CARD'];
const FINAL = ['COMPLETED', 'VOIDED'];

/**
 * Nothing more will change on the page: a final invoice, except a COMPLETED one whose payment a chain
 * reorg reversed (PAYMENT_REVERSED), which is paid again if the transaction returns to the chain.
 */
function settled(inv) {
  return FINAL.includes(inv.status) && inv.substatus !== 'PAYMENT_REVERSED';
}

const state = {
  invoice: null,
  providers: [],
  filter: 'ALL',
  chosen: null,
  address: null,
  lastShort: '',
  redirectTimer: null,
  pollTimer: null,
  expired: false,
  expiryAsked: false,
  /** The test-payment control: a call under way, or the last one failed. */
  testPay: { busy: false, error: false },
};

// ---------- small helpers ----------

/** A string from the locale file with {name} placeholders filled in. */
function tr(key, values = {}) {
  return (t[key] ?? key).replace(/\{(\w+)\}/g, (_, name) => values[name] ?? `{${name}}`);
}

/** Builds an element: h('p', { class: 'x', text: 'y' }, child, ...). No HTML parsing anywhere. */
function h(tag, attrs = {}, ...children) {
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

const SEPARATORS = (() => {
  const parts = new Intl.NumberFormat(cfg.lang).formatToParts(1234567.5);
  return {
    group: parts.find((p) => p.type === 'group')?.value ?? ',',
    decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.',
  };
})();

/** "1234.500000" -> "1,234.5" (en) / "1.234,5" (de): the exact digits, trailing zeros trimmed. */
export function formatAmount(text) {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(String(text ?? ''));
  if (!m) return String(text ?? '');
  const [, sign, whole, frac = ''] = m;
  const fraction = frac.replace(/0+$/, '');
  const grouped = whole.replace(/^0+(?=\d)/, '').replace(/\B(?=(\d{3})+(?!\d))/g, SEPARATORS.group);
  return `${sign}${grouped}${fraction ? SEPARATORS.decimal + fraction : ''}`;
}

/** "1234.500000" -> "1234.5": the plain decimal a wallet or a copy button wants. */
function plainAmount(text) {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(String(text ?? ''));
  if (!m) return String(text ?? '');
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  return fraction ? `${m[1]}.${fraction}` : m[1];
}

// Exact decimal arithmetic on the API's strings: scaled BigInts, 30 fractional digits.
const SCALE = 30;
function toUnits(text) {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(String(text));
  if (!m) return 0n;
  return BigInt(m[1] + (m[2] ?? '').padEnd(SCALE, '0').slice(0, SCALE));
}
function fromUnits(units) {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(SCALE + 1, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -SCALE)}.${digits.slice(-SCALE)}`;
}

/** How a currency code reads next to an amount: the usual ticker for coins, the code otherwise. */
const TICKERS = {
  BITCOIN: 'BTC',
  ETHEREUM: 'ETH',
  USDC_NATIVE: 'USDC',
  SOLANA: 'SOL',
  BINANCE_COIN: 'BNB',
  RIPPLE: 'XRP',
  POLYGON: 'POL',
  TRON: 'TRX',
  LITECOIN: 'LTC',
  BITCOIN_CASH: 'BCH',
  DOGECOIN: 'DOGE',
};
const ticker = (currency) => TICKERS[currency] ?? currency;

/** A coin's smallest unit, in decimal places (the catalog's decimals; a token's are its contract's). */
const COIN_DECIMALS = {
  BITCOIN: 8,
  ETHEREUM: 18,
  USDT: 6,
  USDC: 6,
  USDC_NATIVE: 6,
  SOLANA: 9,
  BINANCE_COIN: 18,
  RIPPLE: 6,
  POLYGON: 18,
  TRON: 6,
  LITECOIN: 8,
  BITCOIN_CASH: 8,
  DOGECOIN: 8,
};
const isCoin = (currency) => currency in COIN_DECIMALS;

/** Places a price in this currency is shown with: a coin's smallest unit (at most 8), a fiat currency's minor unit. */
export function displayDecimals(currency) {
  if (isCoin(currency)) return Math.min(COIN_DECIMALS[currency], 8);
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits;
  } catch {
    return 2;
  }
}

/**
 * "0.000136986301369863013698630137" at 8 places -> "0.00013699": half-up on the exact digits, or up
 * (away from zero) when `up` is set.
 */
export function roundAmount(text, places, up = false) {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(String(text ?? ''));
  if (!m) return String(text ?? '');
  const frac = m[2] ?? '';
  if (frac.length <= places) return text;
  const rest = frac.slice(places);
  const carry = up ? /[1-9]/.test(rest) : rest.charCodeAt(0) >= 53;
  const kept = BigInt(m[1] + frac.slice(0, places)) + (carry ? 1n : 0n);
  const digits = kept.toString().padStart(places + 1, '0');
  return places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`;
}

/** A price or total: rounded to the currency's decimals, then read as formatAmount reads it. */
function money(amount, currency) {
  return `${formatAmount(roundAmount(amount, displayDecimals(currency)))} ${ticker(currency)}`;
}

/** An amount to send as the page shows and copies it: the API's, rounded up to 8 places at most. */
function sendAmount(amount) {
  return roundAmount(amount, 8, true);
}

function sendMoney(amount, currency) {
  return `${formatAmount(sendAmount(amount))} ${ticker(currency)}`;
}

/** "2026-11-21 10:15:00" (UTC) -> Date. */
function parseTime(text) {
  return text ? new Date(`${text.replace(' ', 'T')}Z`) : null;
}

async function api(method, path, body) {
  const res = await fetch(`${cfg.apiBase}${path}`, {
    method,
    headers: body === undefined ? { Accept: 'application/json' } : { Accept: 'application/json', 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'omit',
    cache: 'no-store',
  });
  let envelope = null;
  try {
    envelope = await res.json();
  } catch {
    // not JSON: a proxy's error page
  }
  if (!res.ok) {
    const err = new Error(envelope?.error ?? `HTTP ${res.status}`);
    err.status = res.status;
    err.code = envelope?.code ?? null;
    throw err;
  }
  return envelope;
}

const id = encodeURIComponent(cfg.invoiceId);
const readInvoice = async () => (await api('POST', `/invoices/${id}`, { expand: EXPAND })).data;
const readProviders = async () => (await api('GET', `/providers/${id}`)).data.providers;
const readShortState = async () => (await api('GET', `/invoices/${id}/short_state`)).data;

// ---------- rendering ----------

function renderMerchant(inv) {
  const org = inv.organization ?? { name: '', image_url: null };
  $('merchant-name').textContent = org.name || tr('title');
  document.title = org.name ? tr('title_merchant', { merchant: org.name }) : tr('title');
  const logo = $('merchant-logo');
  if (org.image_url && (/^https?:\/\//.test(org.image_url) || org.image_url.startsWith('/'))) {
    logo.src = org.image_url;
    logo.hidden = false;
  } else {
    logo.hidden = true;
  }
}

/** What one item costs in the invoice currency: the last calculation step of that item. */
function itemPrice(inv, item) {
  const steps = (inv.calculations ?? []).filter((c) => c.invoice_item_id === item.id).sort((a, b) => a.idx - b.idx);
  const last = steps[steps.length - 1];
  if (last) return { price: last.price, currency: last.currency };
  return item.price ? { price: item.price, currency: item.currency } : null;
}

/**
 * How an item reads: what the service wrote it charges (a subscription's period line names the plan, the usage
 * and the period), else its product's name, or for a payment intent what was asked ("Payment of 25 USDT").
 */
function itemName(item) {
  if (item.description) return item.description;
  if (item.product?.name) return item.product.name;
  if (item.type === 'PAYMENT_INTENT' && item.price) return tr('payment_intent', { amount: money(item.price, item.currency) });
  return tr('item_fallback');
}

function renderItems(inv) {
  const list = $('items');
  list.replaceChildren(
    ...(inv.items ?? []).map((item) => {
      const name = itemName(item);
      const description = item.product?.description || null;
      const price = itemPrice(inv, item);
      return h(
        'li',
        { class: 'item' },
        // No product image: stored files need the merchant's key, which a payer's browser does not have.
        h(
          'div',
          { class: 'item-main' },
          h(
            'div',
            {},
            h('p', { class: 'item-name', text: name }),
            description ? h('p', { class: 'item-description', text: description }) : null,
            item.quantity > 1 ? h('p', { class: 'item-qty', text: tr('quantity', { n: item.quantity }) }) : null,
          ),
        ),
        price ? h('span', { class: 'amount item-price', text: money(price.price, price.currency) }) : null,
      );
    }),
  );
  $('total').textContent = money(inv.price, inv.currency);
}

/** Offered first, after the invoice's own currency: what most payers pick. */
const COMMON_CURRENCIES = ['USD', 'EUR', 'GBP', 'BITCOIN', 'ETHEREUM', 'USDT', 'USDC'];

const COIN_NAMES = {
  BITCOIN: 'Bitcoin',
  ETHEREUM: 'Ether',
  USDT: 'Tether USD',
  USDC: 'USD Coin',
  USDC_NATIVE: 'USD Coin, native',
  SOLANA: 'Solana',
  BINANCE_COIN: 'BNB',
  RIPPLE: 'XRP',
  POLYGON: 'POL',
  TRON: 'TRON',
  LITECOIN: 'Litecoin',
  BITCOIN_CASH: 'Bitcoin Cash',
  DOGECOIN: 'Dogecoin',
};

/** "Bitcoin (BTC)", "Swiss franc (CHF)": the name in the page's language where the browser knows it. */
function currencyLabel(currency) {
  if (isCoin(currency)) {
    const name = COIN_NAMES[currency] ?? currency;
    return name === ticker(currency) ? name : `${name} (${ticker(currency)})`;
  }
  try {
    const name = new Intl.DisplayNames([cfg.lang], { type: 'currency' }).of(currency);
    return name && name !== currency ? `${name.charAt(0).toUpperCase()}${name.slice(1)} (${currency})` : currency;
  } catch {
    return currency;
  }
}

/**
 * The currency choice, grouped as a payer looks for it: the invoice's currency and the common ones first,
 * then every other coin, then every other fiat currency by name.
 */
function currencyGroups(invoiceCurrency) {
  const common = [...new Set([invoiceCurrency, ...COMMON_CURRENCIES])].filter((c) => currencies.includes(c));
  const byName = (a, b) => currencyLabel(a).localeCompare(currencyLabel(b), cfg.lang);
  const rest = currencies.filter((c) => !common.includes(c));
  return [
    { label: tr('currency_common'), list: common },
    { label: tr('currency_crypto'), list: rest.filter(isCoin).sort(byName) },
    { label: tr('currency_fiat'), list: rest.filter((c) => !isCoin(c)).sort(byName) },
  ].filter((g) => g.list.length);
}

function renderCurrencySelect(inv) {
  const select = $('currency');
  if (!select.options.length) {
    select.append(
      ...currencyGroups(inv.currency).map((g) =>
        h(
          'optgroup',
          { label: g.label },
          g.list.map((c) => h('option', { value: c, text: currencyLabel(c) })),
        ),
      ),
    );
    select.addEventListener('change', () => changeCurrency(select.value));
  }
  select.value = inv.currency;
  // The payer may change the currency only while nothing is paid (PUT /invoices/{id} answers 400 otherwise).
  select.disabled = inv.status !== 'PENDING' || state.expired;
}

async function changeCurrency(currency) {
  const select = $('currency');
  const note = $('currency-note');
  select.disabled = true;
  note.textContent = tr('currency_changing');
  try {
    await api('PUT', `/invoices/${id}`, { currency });
    state.address = null;
    await refreshAll();
    note.textContent = '';
  } catch {
    note.textContent = tr('currency_error');
    select.value = state.invoice?.currency ?? currency;
  } finally {
    select.disabled = !state.invoice || state.invoice.status !== 'PENDING' || state.expired;
  }
}

function payable(inv) {
  return !FINAL.includes(inv.status) && !state.expired;
}

/** A payment is seen and being confirmed: nothing to choose or send meanwhile. */
function confirming(inv) {
  return inv.status === 'WAITING_FOR_CONFIRMATIONS' || inv.status === 'PROCESSING';
}

function renderMethods() {
  const box = $('methods');
  const inv = state.invoice;
  // While a payment is being confirmed there is nothing to choose; after a part payment there is.
  if (!inv || !payable(inv) || state.chosen || confirming(inv)) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const tags = FILTERS.filter((f) => f === 'ALL' || state.providers.some((p) => p.filters.includes(f)));
  const visible = state.providers.filter((p) => state.filter === 'ALL' || p.filters.includes(state.filter));
  const networks = [...new Set(visible.map((p) => p.network))];
  const chips =
    tags.length > 2
      ? h(
          'div',
          { class: 'filters', role: 'group', 'aria-label': tr('filter_label') },
          tags.map((f) =>
            h('button', {
              type: 'button',
              class: 'chip',
              'aria-pressed': String(state.filter === f),
              text: tr(`filter_${f}`),
              on: {
                click: () => {
                  state.filter = f;
                  renderMethods();
                },
              },
            }),
          ),
        )
      : null;
  box.replaceChildren(
    ...[
      h('h2', { class: 'section-title', id: 'methods-title', tabindex: '-1', text: tr('choose_method') }),
      chips,
      state.providers.length === 0 ? h('p', { class: 'note', text: tr('no_methods') }) : null,
      ...networks.map((network) => {
        const group = visible.filter((p) => p.network === network);
        const titleId = `net-${network}`;
        return h(
          'section',
          { class: 'network', 'aria-labelledby': titleId },
          h(
            'h3',
            { class: 'network-title', id: titleId },
            h('img', { src: group[0].metadata.image_url_network, alt: '', width: 20, height: 20 }),
            tr('network_group', { network: networkName(network) }),
          ),
          h(
            'ul',
            { class: 'providers' },
            group.map((p) =>
              h(
                'li',
                {},
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'provider',
                    'data-provider-id': p.id,
                    on: { click: () => choose(p.id) },
                  },
                  h('img', { class: 'provider-image', src: p.metadata.image_url, alt: '', width: 32, height: 32 }),
                  h(
                    'span',
                    { class: 'provider-text' },
                    h('span', { class: 'provider-name', text: p.name }),
                    h(
                      'span',
                      { class: 'provider-tags' },
                      p.filters
                        .filter((f) => f !== network && f !== 'CRYPTO' && f !== 'FIAT')
                        .map((f) => h('span', { class: 'tag', text: t[`filter_${f}`] ?? f })),
                    ),
                  ),
                  // GET /providers prices the whole invoice: after a part payment only the address answer knows what is left.
                  inv.status === 'PENDING' ? h('span', { class: 'amount provider-price', text: sendMoney(p.price, p.currency) }) : null,
                ),
              ),
            ),
          ),
        );
      }),
    ].filter(Boolean),
  );
}

const NETWORK_NAMES = { BSC: 'BNB Smart Chain', CARD: t.filter_CARD };
function networkName(network) {
  return (
    NETWORK_NAMES[network] ??
    network.charAt(0) +
      network
        .slice(1)
        .toLowerCase()
        .replace(/_(\w)/g, (_, c) => ` ${c.toUpperCase()}`)
  );
}

async function choose(providerId) {
  state.chosen = providerId;
  state.address = { loading: true };
  state.testPay = { busy: false, error: false };
  renderMethods();
  renderPayment();
  await loadAddress();
  $('payment-heading')?.focus();
}

/** A method without a rail has no deposit address: in test mode the page simulates its payment instead. */
function withoutRail(provider) {
  return provider.has_rail === false;
}

async function loadAddress() {
  const provider = state.providers.find((p) => p.id === state.chosen);
  if (!provider) return;
  if (withoutRail(provider)) {
    state.address = cfg.testMode ? { test: true } : { unavailable: true };
    renderPayment();
    return;
  }
  try {
    const res = await api('POST', `/invoices/${id}/payment_address`, { provider_id: provider.id });
    state.address = { ok: res.data };
  } catch (err) {
    // 400 rail_not_configured / no_receiving_wallet (and 404 where the call does not exist): this
    // method has no address here; anything else may pass, so offer a retry.
    const unavailable = err.status === 404 || err.status === 400 || err.code === 'rail_not_configured' || err.code === 'no_receiving_wallet';
    state.address = unavailable ? { unavailable: true } : { failed: true };
  }
  renderPayment();
}

function copyButton(value, label) {
  const button = h('button', { type: 'button', class: 'copy', 'aria-label': label, text: tr('copy') });
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(value);
      button.textContent = tr('copied');
    } catch {
      button.textContent = tr('copy_failed');
    }
    setTimeout(() => {
      button.textContent = tr('copy');
    }, 2000);
  });
  return button;
}

/** The QR code of the payment URI as an SVG built with DOM calls (the CSP allows no inline markup). */
function qrSvg(text) {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  const n = qr.getModuleCount();
  const quiet = 4;
  const size = n + quiet * 2;
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
  svg.setAttribute('class', 'qr');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', tr('qr_label'));
  svg.setAttribute('shape-rendering', 'crispEdges');
  const bg = document.createElementNS(ns, 'rect');
  bg.setAttribute('width', String(size));
  bg.setAttribute('height', String(size));
  bg.setAttribute('fill', '#ffffff');
  svg.append(bg);
  let d = '';
  for (let row = 0; row < n; row += 1) {
    for (let col = 0; col < n; col += 1) if (qr.isDark(row, col)) d += `M${col + quiet} ${row + quiet}h1v1h-1z`;
  }
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', d);
  path.setAttribute('fill', '#000000');
  svg.append(path);
  return svg;
}

/** What is still due in USD: the invoice's price_usd less its completed payments (exact). */
function remainingUsd(inv) {
  const paid = (inv.payments ?? []).filter((p) => p.status === 'COMPLETED').reduce((sum, p) => sum + toUnits(p.price_usd), 0n);
  const left = toUnits(inv.price_usd) - paid;
  return left > 0n ? fromUnits(left) : null;
}

function renderPayment() {
  const box = $('payment');
  const inv = state.invoice;
  const provider = state.providers.find((p) => p.id === state.chosen);
  if (!inv || !provider || !payable(inv) || confirming(inv)) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  box.hidden = false;
  const address = state.address ?? {};
  // The address answer's amount is what is still due; GET /providers' price is the whole invoice's,
  // right only while nothing is paid.
  const amount = address.ok?.amount ?? (inv.status === 'PENDING' ? provider.price : null);
  const currency = address.ok?.currency ?? provider.currency;
  const rows = [
    h(
      'h2',
      { class: 'section-title', id: 'payment-heading', tabindex: '-1' },
      h('img', { src: provider.metadata.image_url, alt: '', width: 24, height: 24 }),
      provider.name,
    ),
  ];
  if (amount !== null) {
    rows.push(
      h(
        'div',
        { class: 'field' },
        h('p', { class: 'field-label', id: 'amount-label', text: tr('amount_to_send') }),
        h(
          'div',
          { class: 'field-value' },
          h('strong', { class: 'amount pay-amount', id: 'pay-amount', 'aria-labelledby': 'amount-label pay-amount', text: sendMoney(amount, currency) }),
          copyButton(plainAmount(sendAmount(amount)), tr('copy_amount')),
        ),
      ),
    );
    // A simulated payment sends nothing on any network.
    if (!address.test) rows.push(h('p', { class: 'note', text: tr('send_exactly', { currency: ticker(currency), network: networkName(provider.network) }) }));
  }
  if (address.test) rows.push(testPaymentControl(provider));
  if (address.loading) rows.push(h('p', { class: 'note', text: tr('loading_address') }));
  if (address.ok) {
    const a = address.ok;
    rows.push(
      h(
        'div',
        { class: 'field' },
        h('p', { class: 'field-label', text: tr('address') }),
        h('div', { class: 'field-value' }, h('code', { class: 'address', id: 'pay-address', text: a.address }), copyButton(a.address, tr('copy_address'))),
      ),
      // A chain without a payment-URI standard (Tron) answers uri null: the QR code is the address alone.
      h('div', { class: 'qr-box' }, qrSvg(a.uri ?? a.address)),
    );
    if (a.uri) rows.push(h('a', { class: 'button primary', id: 'open-wallet', href: a.uri, text: tr('open_wallet') }));
  }
  if (address.unavailable) {
    rows.push(
      h(
        'div',
        { class: 'notice', id: 'no-address' },
        h('p', { class: 'notice-title', text: tr('no_address_title') }),
        h('p', { text: tr('no_address_text', { name: provider.name }) }),
      ),
    );
  }
  if (address.failed) {
    rows.push(
      h(
        'div',
        { class: 'notice' },
        h('p', { text: tr('address_error') }),
        h('button', {
          type: 'button',
          class: 'button',
          text: tr('retry'),
          on: {
            click: () => {
              state.address = { loading: true };
              renderPayment();
              loadAddress();
            },
          },
        }),
      ),
    );
  }
  rows.push(
    h('button', {
      type: 'button',
      class: 'button link',
      text: tr('change_method'),
      on: {
        click: () => {
          state.chosen = null;
          state.address = null;
          renderPayment();
          renderMethods();
          $('methods-title')?.focus();
        },
      },
    }),
  );
  // A redraw (a status poll answering while a test payment is made) must not take the keyboard away:
  // the focused test-payment button is focused again in the new section.
  const focusedKind = box.contains(document.activeElement) ? document.activeElement?.dataset?.testKind : undefined;
  box.replaceChildren(...rows);
  if (focusedKind) box.querySelector(`[data-test-kind="${focusedKind}"]`)?.focus();
}

const TEST_KINDS = ['exact', 'partial', 'over'];

/**
 * Test mode, a method without a rail: three buttons that record a simulated payment (what is due, half
 * of it, a tenth more) through the payer call POST /invoices/{id}/test_payment. No money moves.
 */
function testPaymentControl(provider) {
  const { busy, error } = state.testPay;
  return h(
    'section',
    {
      class: 'test-pay',
      id: 'test-payment',
      role: 'group',
      'aria-labelledby': 'test-pay-title',
      'aria-describedby': 'test-pay-text',
      'aria-busy': String(busy),
    },
    h('h3', { class: 'test-pay-title', id: 'test-pay-title', text: tr('test_pay_title') }),
    h('p', { class: 'note', id: 'test-pay-text', text: tr('test_pay_text', { name: provider.name }) }),
    h(
      'div',
      { class: 'test-pay-buttons' },
      TEST_KINDS.map((kind) =>
        h('button', {
          type: 'button',
          class: kind === 'exact' ? 'button primary' : 'button',
          'data-test-kind': kind,
          disabled: busy,
          text: tr(`test_pay_${kind}`),
          on: { click: () => testPay(kind) },
        }),
      ),
    ),
    busy ? h('p', { class: 'note', role: 'status', text: tr('test_pay_busy') }) : null,
    error ? h('p', { class: 'note warning', role: 'alert', id: 'test-pay-error', text: tr('test_pay_error') }) : null,
  );
}

/** A fresh key per click: a retry of the same request pays once (the server answers the first payment). */
function clickKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `checkout-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

async function testPay(kind) {
  if (state.testPay.busy || !state.chosen) return;
  state.testPay = { busy: true, error: false };
  renderPayment();
  try {
    await api('POST', `/invoices/${id}/test_payment`, { provider_id: state.chosen, kind, idempotency_key: clickKey() });
    state.testPay = { busy: false, error: false };
    state.invoice = await readInvoice();
    const inv = state.invoice;
    state.lastShort = `${inv.status}|${inv.substatus}|${inv.updated_at}`;
    render();
  } catch {
    state.testPay = { busy: false, error: true };
    renderPayment();
  }
  // The buttons were drawn again: keep the keyboard where it was while the invoice still takes payments.
  document.querySelector(`[data-test-kind="${kind}"]`)?.focus();
}

function setStatus(kind, title, text, extra = []) {
  const box = $('status');
  box.dataset.state = kind;
  box.replaceChildren(
    h('h2', { class: 'status-title', id: 'status-title', text: title }),
    ...[text ? h('p', { class: 'status-text', id: 'status-text', text }) : null, ...extra].filter(Boolean),
  );
}

function renderStatus() {
  const inv = state.invoice;
  if (!inv) return;
  const sub = inv.substatus;
  root.dataset.status = inv.status;
  if (inv.status === 'COMPLETED' && sub === 'PAYMENT_REVERSED') {
    // The merchant counted this invoice paid, then the chain dropped the payment: neither "paid" nor
    // "pay now". The payer is sent to the merchant, and the page keeps watching for the transaction's return.
    setStatus('reversed', tr('status_reversed'), tr('reversed_text'));
  } else if (inv.status === 'COMPLETED') {
    // PAID_OVER is not worth alarming the payer: amounts due are rounded up to the rail's smallest
    // unit, so paying exactly what the page asked can end a hair over the total.
    const text = sub === 'PAID_LATE' ? tr('paid_late') : sub === 'MARKED_PAID' ? tr('marked_paid') : tr('paid_text');
    setStatus('paid', tr('status_paid'), text, redirectBlock(inv));
    scheduleRedirect(inv);
  } else if (inv.status === 'VOIDED') {
    if (sub === 'EXPIRED') setStatus('expired', tr('status_expired'), tr('expired_text'));
    else setStatus('voided', tr('status_voided'), tr('voided_text'));
  } else if (state.expired) {
    setStatus('expired', tr('status_expired'), tr('expired_text'));
  } else if (inv.status === 'WAITING_FOR_CONFIRMATIONS') {
    const pending = (inv.payments ?? []).filter((p) => p.status === 'PENDING');
    const best = pending.sort((a, b) => b.confirmations - a.confirmations)[0];
    const text =
      best && best.required_confirmations > 0
        ? tr('confirmations', { n: Math.min(best.confirmations, best.required_confirmations), m: best.required_confirmations })
        : '';
    setStatus('seen', tr('status_seen'), text, [
      best && best.required_confirmations > 0 ? progress(best.confirmations, best.required_confirmations) : null,
      best?.tx_hash ? transactionLine(best.tx_hash) : null,
    ]);
  } else if (inv.status === 'PROCESSING') {
    setStatus('seen', tr('status_processing'), '');
  } else if (inv.status === 'PARTIALLY_PAID') {
    const left = remainingUsd(inv);
    setStatus('partial', tr('status_partial'), left ? tr('remaining', { amount: money(left, 'USD') }) : '');
  } else {
    setStatus('waiting', tr('status_waiting'), tr('status_waiting_text'));
  }
}

/** "0x7775…7807": a transaction hash short enough to read; the copy button copies all of it. */
function shortHash(hash) {
  return hash.length > 14 ? `${hash.slice(0, hash.startsWith('0x') ? 6 : 4)}…${hash.slice(-4)}` : hash;
}

/** The transaction that paid: shortened, its whole hash in the title and the copy button. */
function transactionLine(hash) {
  return h(
    'div',
    { class: 'field tx', id: 'transaction' },
    h('p', { class: 'field-label', id: 'tx-label', text: tr('transaction') }),
    h(
      'div',
      { class: 'field-value' },
      h('code', { class: 'tx-hash', id: 'tx-hash', title: hash, 'data-hash': hash, text: shortHash(hash) }),
      copyButton(hash, tr('copy_transaction')),
    ),
  );
}

function progress(n, m) {
  const bar = h('div', {
    class: 'progress',
    role: 'progressbar',
    'aria-valuemin': '0',
    'aria-valuemax': String(m),
    'aria-valuenow': String(Math.min(n, m)),
    'aria-label': tr('confirmations', { n, m }),
  });
  const steps = Math.min(m, 24);
  for (let i = 0; i < steps; i += 1) bar.append(h('span', { class: i < Math.round((Math.min(n, m) / m) * steps) ? 'step done' : 'step' }));
  return bar;
}

function safeRedirect(inv) {
  return inv.redirect_url && /^https?:\/\//i.test(inv.redirect_url) ? inv.redirect_url : null;
}

function redirectBlock(inv) {
  const url = safeRedirect(inv);
  if (!url) return [];
  const seconds = Math.ceil(cfg.redirectMs / 1000);
  return [
    h('p', { class: 'note', id: 'redirect-note', text: tr('redirecting', { n: seconds }) }),
    h('a', { class: 'button primary', href: url, text: tr('return_now') }),
  ];
}

function scheduleRedirect(inv) {
  const url = safeRedirect(inv);
  if (!url || state.redirectTimer) return;
  state.redirectTimer = setTimeout(() => window.location.assign(url), cfg.redirectMs);
}

/** Now on the invoice's clock: the browser's time, set to the server's now for the invoice when the page was served. */
function invoiceNow() {
  return Date.now() + cfg.clockOffsetMs;
}

function renderCountdown() {
  const el = $('countdown');
  const inv = state.invoice;
  const ends = parseTime(inv?.expires_at);
  if (!inv || !ends || inv.status !== 'PENDING' || state.expired) {
    el.hidden = true;
    return;
  }
  const left = Math.max(0, Math.floor((ends.getTime() - invoiceNow()) / 1000));
  const hours = Math.floor(left / 3600);
  const mm = String(Math.floor((left % 3600) / 60)).padStart(2, '0');
  const ss = String(left % 60).padStart(2, '0');
  el.textContent = tr('expires_in', { time: hours ? `${hours}:${mm}:${ss}` : `${mm}:${ss}` });
  el.hidden = false;
}

function render() {
  const inv = state.invoice;
  state.expired = inv.substatus === 'EXPIRED';
  renderMerchant(inv);
  renderItems(inv);
  renderCurrencySelect(inv);
  renderStatus();
  renderCountdown();
  renderMethods();
  renderPayment();
  root.setAttribute('aria-busy', 'false');
}

// ---------- data flow ----------

async function refreshAll() {
  const [inv, providers] = await Promise.all([readInvoice(), readProviders()]);
  state.invoice = inv;
  state.providers = providers;
  if (state.chosen && !providers.some((p) => p.id === state.chosen)) state.chosen = null;
  render();
  if (state.chosen && payable(inv)) await loadAddress();
}

/** One poll: the short state; the full invoice only when something changed or confirmations may have. */
async function poll() {
  if (state.polling) return;
  state.polling = true;
  try {
    const short = await readShortState();
    const key = `${short.status}|${short.substatus}|${short.updated_at}`;
    const moving = short.status === 'WAITING_FOR_CONFIRMATIONS' || short.status === 'PROCESSING';
    if (key !== state.lastShort || moving) {
      const changed = key !== state.lastShort;
      state.lastShort = key;
      state.invoice = await readInvoice();
      render();
      // The amount still due changed: ask for the address's amount again.
      if (changed && state.chosen && payable(state.invoice) && state.address?.ok) await loadAddress();
    }
    $('connection')?.remove();
  } catch (err) {
    if (!$('connection')) $('status').after(h('p', { class: 'note warning', id: 'connection', role: 'alert', text: tr('load_error') }));
  } finally {
    state.polling = false;
  }
  if (state.invoice && settled(state.invoice)) return;
  state.pollTimer = setTimeout(poll, cfg.pollMs);
}

async function start() {
  for (;;) {
    try {
      await refreshAll();
      break;
    } catch {
      setStatus('error', tr('load_error'), '');
      await new Promise((r) => setTimeout(r, cfg.pollMs));
    }
  }
  const inv = state.invoice;
  state.lastShort = `${inv.status}|${inv.substatus}|${inv.updated_at}`;
  setInterval(() => {
    if (!state.invoice) return;
    const ends = parseTime(state.invoice.expires_at);
    renderCountdown();
    // At expiry the next poll brings the EXPIRED substatus; ask now rather than wait.
    if (ends && state.invoice.status === 'PENDING' && !state.expired && invoiceNow() >= ends.getTime() && !state.expiryAsked) {
      state.expiryAsked = true;
      clearTimeout(state.pollTimer);
      poll();
    }
  }, 1000);
  if (!settled(inv)) state.pollTimer = setTimeout(poll, cfg.pollMs);
}

start();
