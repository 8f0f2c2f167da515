import { canMoveInvoice, isInvoiceStatus } from '../../invoices';
import { PAYMENT_STATUSES } from '../../payments';
import { REFUND_STATUSES } from '../../refunds';
import { exportButton } from '../domain/export-pages';
import { html, SafeHtml } from '../domain/html';
import { figures, notice, Notice, table } from '../domain/table';
import { page, PageContext } from '../domain/pages';
import { may } from '../domain/roles';
import type { PageStrings } from './page-strings';

/** An invoice as the detail page shows it (the invoice read with items). */
export interface InvoiceDetail {
  id: string;
  status: string;
  substatus: string | null;
  price: string;
  currency: string;
  price_usd: string;
  refunded_usd: string;
  customer_email: string | null;
  created_at: string;
  expires_at: string | null;
  checkout_url: string;
  items: Array<{ id: string; type: string; description: string | null; quantity: string; price: string | null; currency: string }>;
}

/** A payment as the pages show it (the payments module's view). */
export interface PaymentRowView {
  id: string;
  invoice_id: string | null;
  provider_id: string;
  currency: string;
  price: string;
  price_usd: string;
  status: string;
  confirmations: number;
  required_confirmations: number;
  tx_hash: string | null;
  created_at: string;
}

/** A refund as the pages show it (the refunds module's view). */
export interface RefundRowView {
  id: string;
  invoice_id: string;
  status: string;
  amount: string;
  currency: string;
  amount_usd: string;
  reason: string | null;
  claim_url: string;
  expires_at: string;
  destination: { provider_id: string; network: string; address: string } | null;
  payout: {
    provider_id: string;
    network: string;
    currency: string;
    address: string;
    amount: string;
    tx_hash: string | null;
    confirmations: number;
    required_confirmations: number;
  } | null;
  created_at: string;
  updated_at: string;
}

export interface EventRowView {
  id: string;
  type: string;
  created_at: string;
  object_id: string;
}

/** Refund states the merchant may still cancel. */
export const CANCELABLE_REFUND = ['AWAITING_DESTINATION', 'AWAITING_PAYOUT'];
/** Refund states that do not move any more: the refund page stops following them. */
const FINAL_REFUND = ['COMPLETED', 'CANCELED', 'EXPIRED'];

const link = (href: string, text: string) => html`<a href="${href}">${text}</a>`;

function postButton(c: PageContext, action: string, label: string, cls = '', extra: SafeHtml = html``): SafeHtml {
  return html`<form method="post" action="${action}" class="inline">
    <input type="hidden" name="_csrf" value="${c.csrf}" />${extra}<button type="submit" ${cls ? html`class="${cls}"` : ''}>${label}</button>
  </form>`;
}

/** Where the invoice page's events stand among all of the invoice's: the first one shown (0: the newest), how many there are, and a page's size. */
export interface EventsPage {
  offset: number;
  total: number;
  /** False when the count stopped at its cap: at least `total` (shown as "10000+"). */
  exact: boolean;
  size: number;
}

/** Which of the invoice's events the page shows, with links to the older and newer ones (only when there are more than a page). */
function eventsPager(c: PageContext, p: PageStrings, invoiceId: string, e: EventsPage, shown: number): SafeHtml {
  if (e.offset === 0 && shown >= e.total) return html``;
  const at = (offset: number) => `/console/${c.mode}/invoices/${invoiceId}?events_offset=${offset}#events-h`;
  const newer = e.offset > 0 ? html`<a href="${at(Math.max(0, e.offset - e.size))}" rel="prev">${p.newer_events}</a>` : '';
  const older = e.offset + shown < e.total ? html`<a href="${at(e.offset + e.size)}" rel="next">${p.older_events}</a>` : '';
  return html`<p id="events-range">${shown ? `${e.offset + 1}–${e.offset + shown}` : '0'} ${p.events_of} ${e.total}${e.exact ? '' : '+'} ${newer} ${older}</p>`;
}

/** The most payments, and the most refunds, the invoice page lists (the newest first). */
export const INVOICE_PAGE_ROWS = 100;

/** When the invoice has more payments or refunds than the page lists, a sentence saying how many it shows of how many. */
function moreThanShown(id: string, p: PageStrings, what: string, shown: number, total: number): SafeHtml {
  if (total <= shown) return html``;
  return html`<p class="muted" id="${id}">${p.showing_first} ${shown} ${p.events_of} ${total} ${what}.</p>`;
}

/** The invoice's page: figures, checkout link, items, payments with their transactions, refunds, events, and the actions the role allows. */
export function invoiceDetailPage(
  c: PageContext,
  p: PageStrings,
  d: {
    invoice: InvoiceDetail;
    payments: PaymentRowView[];
    /** How many payments and refunds the invoice has (the page lists at most INVOICE_PAGE_ROWS of each). */
    paymentsTotal: number;
    /** Whether a payment of the invoice completed (listed or not): a refund may be asked for. */
    refundable: boolean;
    refunds: RefundRowView[];
    refundsTotal: number;
    events: EventRowView[];
    eventsPage: EventsPage;
  },
  n: Notice,
): string {
  const inv = d.invoice;
  const base = `/console/${c.mode}`;
  const role = c.member.role;
  // Void and mark paid are the invoices module's merchant moves to VOIDED and COMPLETED.
  const merchantMay = (to: 'VOIDED' | 'COMPLETED') => isInvoiceStatus(inv.status) && canMoveInvoice(inv.status, to, 'merchant');
  const canVoid = may(role, 'invoices.write', c.mode) && merchantMay('VOIDED');
  const canMark = may(role, 'invoices.mark_paid', c.mode) && merchantMay('COMPLETED');
  const canRefund = may(role, 'invoices.write', c.mode) && d.refundable;
  const canRecurrency = may(role, 'invoices.write', c.mode) && inv.status === 'PENDING';
  const actions = canVoid || canMark || canRefund || canRecurrency;
  return page(
    c,
    `${p.invoice} ${inv.id}`,
    html`${notice(n)}
      ${figures([
        [p.status, inv.substatus ? `${inv.status} (${inv.substatus})` : inv.status],
        [p.amount, `${inv.price} ${inv.currency}`],
        [p.amount_usd, inv.price_usd],
        [p.refunded_usd, inv.refunded_usd],
        [p.customer, inv.customer_email ?? ''],
        [p.created, inv.created_at],
        [p.expires, inv.expires_at ?? ''],
      ])}
      <p><a href="${inv.checkout_url}" id="checkout-link">${p.checkout_link}</a></p>
      ${
        actions
          ? html`<section aria-labelledby="actions-h">
              <h2 id="actions-h">${p.actions}</h2>
              ${canVoid ? postButton(c, `${base}/invoices/${inv.id}/void`, p.void_invoice, 'danger') : ''}
              ${canMark ? postButton(c, `${base}/invoices/${inv.id}/mark-paid`, p.mark_paid) : ''}
              ${
                canRecurrency
                  ? html`<form method="post" action="${base}/invoices/${inv.id}/currency" class="inline" id="currency-form">
                      <input type="hidden" name="_csrf" value="${c.csrf}" />
                      <label for="new-currency">${p.new_currency}</label>
                      <input id="new-currency" name="currency" required maxlength="20" value="${inv.currency}" />
                      <button type="submit">${p.change_currency}</button>
                    </form>`
                  : ''
              }
              ${
                canRefund
                  ? html`<form method="post" action="${base}/invoices/${inv.id}/refunds" class="stack" id="refund-form">
                      <input type="hidden" name="_csrf" value="${c.csrf}" />
                      <label for="refund-amount">${p.refund_amount}</label>
                      <input id="refund-amount" name="amount" inputmode="decimal" pattern="[0-9]+(\\.[0-9]+)?" maxlength="60" />
                      <label for="refund-currency">${p.refund_currency}</label>
                      <input id="refund-currency" name="currency" maxlength="20" />
                      <label for="refund-reason">${p.refund_reason}</label>
                      <input id="refund-reason" name="reason" maxlength="500" />
                      <button type="submit">${p.create_refund}</button>
                    </form>`
                  : ''
              }
            </section>`
          : ''
      }
      <section aria-labelledby="items-h">
        <h2 id="items-h">${p.items}</h2>
        ${table(
          p.items,
          [p.id, p.description, p.quantity, p.price, p.type],
          inv.items.map((i) => [i.id, i.description ?? '', i.quantity, `${i.price ?? ''} ${i.currency}`, i.type]),
          p.no_entries,
        )}
      </section>
      <section aria-labelledby="payments-h">
        <h2 id="payments-h">${p.payments}</h2>
        ${moreThanShown('payments-more', p, p.payments_counted, d.payments.length, d.paymentsTotal)} ${paymentsTable(c, p, d.payments, false)}
      </section>
      <section aria-labelledby="refunds-h">
        <h2 id="refunds-h">${p.refunds}</h2>
        ${moreThanShown('refunds-more', p, p.refunds_counted, d.refunds.length, d.refundsTotal)} ${refundsTable(c, p, d.refunds, false)}
      </section>
      <section aria-labelledby="events-h">
        <h2 id="events-h">${p.events}</h2>
        <p class="muted">${p.events_note}</p>
        ${table(
          p.events,
          [p.created, p.type, p.id],
          d.events.map((e) => [e.created_at, e.type, e.object_id]),
          p.no_entries,
        )}
        ${eventsPager(c, p, inv.id, d.eventsPage, d.events.length)}
      </section>`,
  );
}

function paymentsTable(c: PageContext, p: PageStrings, rows: PaymentRowView[], withInvoice: boolean): SafeHtml {
  const base = `/console/${c.mode}`;
  return table(
    p.payments,
    [p.id, ...(withInvoice ? [p.invoice_id] : []), p.provider, p.amount, p.amount_usd, p.status, p.confirmations, p.transaction, p.created],
    rows.map((x) => [
      link(`${base}/payments/${x.id}`, x.id),
      ...(withInvoice ? [x.invoice_id ? link(`${base}/invoices/${x.invoice_id}`, x.invoice_id) : ''] : []),
      x.provider_id,
      `${x.price} ${x.currency}`,
      x.price_usd,
      x.status,
      `${x.confirmations}/${x.required_confirmations}`,
      x.tx_hash ? html`<code>${x.tx_hash}</code>` : '',
      x.created_at,
    ]),
    p.no_entries,
  );
}

function refundsTable(c: PageContext, p: PageStrings, rows: RefundRowView[], withInvoice: boolean): SafeHtml {
  const base = `/console/${c.mode}`;
  return table(
    p.refunds,
    [p.id, ...(withInvoice ? [p.invoice_id] : []), p.status, p.amount, p.amount_usd, p.created],
    rows.map((r) => [
      link(`${base}/refunds/${r.id}`, r.id),
      ...(withInvoice ? [link(`${base}/invoices/${r.invoice_id}`, r.invoice_id)] : []),
      r.status,
      `${r.amount} ${r.currency}`,
      r.amount_usd,
      r.created_at,
    ]),
    p.no_entries,
  );
}

/**
 * A list page with a status filter and a next-page link. Filtering and paging swap only the list
 * (`#list`, htmx, with the address bar following); without script they are plain links and forms.
 * The Export button (inside the list, so a swap carries the new filter) downloads the rows as CSV.
 */
function listPage(
  c: PageContext,
  p: PageStrings,
  title: string,
  path: '/payments' | '/refunds',
  statuses: readonly string[],
  status: string,
  list: SafeHtml,
  next: string | null,
): string {
  const action = `/console/${c.mode}${path}`;
  const swap = html`hx-target="#list" hx-select="#list" hx-swap="outerHTML" hx-push-url="true"`;
  return page(
    c,
    title,
    html`<form method="get" action="${action}" class="filters" hx-get="${action}" ${swap} hx-trigger="change, submit">
        <label for="f-status">${p.status}</label>
        <select id="f-status" name="status">
          <option value="">${p.any}</option>
          ${statuses.map((st) => html`<option${st === status ? html` selected` : ''}>${st}</option>`)}
        </select>
        <button type="submit">${p.filter}</button>
      </form>
      <div id="list" aria-live="polite">
        ${exportButton(c, path === '/payments' ? 'payments' : 'refunds', status ? { status } : {})} ${list}
        ${next ? html`<p><a href="${action}?${next}" hx-get="${action}?${next}" ${swap} rel="next">${p.next_page}</a></p>` : ''}
      </div>`,
  );
}

export function paymentsPage(c: PageContext, p: PageStrings, rows: PaymentRowView[], status: string, next: string | null): string {
  return listPage(c, p, p.payments, '/payments', PAYMENT_STATUSES, status, paymentsTable(c, p, rows, true), next);
}

export function refundsPage(c: PageContext, p: PageStrings, rows: RefundRowView[], status: string, next: string | null): string {
  return listPage(c, p, p.refunds, '/refunds', REFUND_STATUSES, status, refundsTable(c, p, rows, true), next);
}

export function paymentPage(c: PageContext, p: PageStrings, x: PaymentRowView): string {
  const base = `/console/${c.mode}`;
  return page(
    c,
    `${p.payment} ${x.id}`,
    figures([
      [p.status, x.status],
      [p.amount, `${x.price} ${x.currency}`],
      [p.amount_usd, x.price_usd],
      [p.provider, x.provider_id],
      [p.confirmations, `${x.confirmations}/${x.required_confirmations}`],
      [p.transaction, x.tx_hash ? html`<code>${x.tx_hash}</code>` : p.none_yet],
      [p.invoice_id, x.invoice_id ? link(`${base}/invoices/${x.invoice_id}`, x.invoice_id) : ''],
      [p.created, x.created_at],
    ]),
  );
}

/** A refund (followed every 5 seconds by htmx until it is final, swapping only its own part): where it stands, the payer's claim link, the destination and payout as the chain reports them, and cancel while allowed. */
export function refundPage(c: PageContext, p: PageStrings, r: RefundRowView, n: Notice): string {
  const base = `/console/${c.mode}`;
  const canCancel = may(c.member.role, 'invoices.write', c.mode) && CANCELABLE_REFUND.includes(r.status);
  return page(
    c,
    `${p.refund} ${r.id}`,
    html`${notice(n)}
      <div
        id="refund-live"
        ${FINAL_REFUND.includes(r.status) ? '' : html`hx-get="${base}/refunds/${r.id}" hx-trigger="every 5s" hx-headers='{"X-Console-Poll": "1"}' hx-select="#refund-live" hx-swap="outerHTML"`}
      >
        ${figures([
          [p.status, html`<span id="refund-status" role="status">${r.status}</span>`],
          [p.amount, `${r.amount} ${r.currency}`],
          [p.amount_usd, r.amount_usd],
          [p.invoice_id, link(`${base}/invoices/${r.invoice_id}`, r.invoice_id)],
          [p.reason, r.reason ?? ''],
          [p.expires, r.expires_at],
          [p.created, r.created_at],
        ])}
        ${
          r.status === 'AWAITING_DESTINATION'
            ? html`<section aria-labelledby="claim-h">
                <h2 id="claim-h">${p.claim_link}</h2>
                ${
                  may(c.member.role, 'invoices.write', c.mode)
                    ? html`<p>${p.claim_help}</p>
                        <p><code class="secret" id="claim-url">${r.claim_url}</code></p>`
                    : html`<p>${p.claim_hidden}</p>`
                }
              </section>`
            : ''
        }
        <section aria-labelledby="dest-h">
          <h2 id="dest-h">${p.destination}</h2>
          ${
            r.destination
              ? figures([
                  [p.provider, r.destination.provider_id],
                  [p.network, r.destination.network],
                  [p.address, html`<code>${r.destination.address}</code>`],
                ])
              : html`<p>${p.none_yet}</p>`
          }
        </section>
        <section aria-labelledby="payout-h">
          <h2 id="payout-h">${p.payout}</h2>
          ${
            r.payout
              ? figures([
                  [p.amount, `${r.payout.amount} ${r.payout.currency}`],
                  [p.network, r.payout.network],
                  [p.address, html`<code>${r.payout.address}</code>`],
                  [p.transaction, r.payout.tx_hash ? html`<code>${r.payout.tx_hash}</code>` : p.none_yet],
                  [p.confirmations, `${r.payout.confirmations}/${r.payout.required_confirmations}`],
                ])
              : html`<p>${p.none_yet}</p>`
          }
        </section>
        ${canCancel ? postButton(c, `${base}/refunds/${r.id}/cancel`, p.cancel_refund, 'danger') : ''}
      </div>`,
  );
}

/** The form values of the new-invoice page, kept after a refusal so the member corrects rather than retypes. */
export interface NewInvoiceForm {
  price: string;
  currency: string;
  customer_email: string;
}

/** A new invoice of one amount (a PAYMENT_INTENT item), for members who may create invoices in this mode. */
export function newInvoicePage(c: PageContext, p: PageStrings, form: NewInvoiceForm, n: Notice): string {
  return page(
    c,
    p.new_invoice,
    html`${notice(n)}
      <p>${p.new_invoice_intro}</p>
      <form method="post" action="/console/${c.mode}/invoices/new" class="stack">
        <input type="hidden" name="_csrf" value="${c.csrf}" />
        <label for="n-price">${p.amount}</label>
        <input id="n-price" name="price" required inputmode="decimal" maxlength="40" value="${form.price}" />
        <label for="n-currency">${p.currency}</label>
        <input id="n-currency" name="currency" required maxlength="20" value="${form.currency}" />
        <label for="n-email">${p.customer_email}</label>
        <input id="n-email" name="customer_email" type="email" maxlength="254" value="${form.customer_email}" />
        <button type="submit">${p.create_invoice}</button>
      </form>`,
  );
}
