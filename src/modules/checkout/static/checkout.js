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
// The page's parts are ES modules served beside this one from the same route: page.js (settings,
// strings, currency facts, DOM helpers), amounts.js (exact amounts), currencies.js (how currencies
// read), api.js (the payer API) and qr.js (QR code, copy buttons); this one holds the state, the
// rendering and the polling.
import { api, id, readInvoice, readProviders, readShortState } from './api.js';
import { fromUnits, parseTime, plainAmount, sendAmount, toUnits } from './amounts.js';
import { currencyGroups, currencyLabel, money, sendMoney, ticker } from './currencies.js';
import { $, cfg, h, networkName, root, t, tr } from './page.js';
import { copyButton, qrSvg } from './qr.js';

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
                  // No price: live rates too old to price with now (the address call says so too).
                  inv.status === 'PENDING' && p.price !== null ? h('span', { class: 'amount provider-price', text: sendMoney(p.price, p.currency) }) : null,
                ),
              ),
            ),
          ),
        );
      }),
    ].filter(Boolean),
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

/**
 * Whether the invoice waits for money whose window has ended on its clock: the service takes no new payment to
 * it any more. A payment already seen and being confirmed is followed to its end, window or not.
 */
function paymentWindowClosed(inv) {
  if (inv.status !== 'PENDING' && inv.status !== 'PARTIALLY_PAID') return false;
  const until = parseTime(inv.monitoring_until);
  return !!until && invoiceNow() >= until.getTime();
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
  // Expired, or past its payment window (a partly paid invoice stays PARTIALLY_PAID): its addresses are no longer watched.
  state.expired = inv.substatus === 'EXPIRED' || paymentWindowClosed(inv);
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
