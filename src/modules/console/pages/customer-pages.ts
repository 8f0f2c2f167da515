import { SUBSCRIPTION_STATUSES } from '../../subscriptions';
import { html, SafeHtml } from '../domain/html';
import { figures, notice, Notice, table } from '../domain/table';
import { page, PageContext } from '../domain/pages';
import { may } from '../domain/roles';
import type { CustomerStrings } from './customer-strings';

export interface SubscriptionRowView {
  id: string;
  status: string;
  product_id: string;
  billing_schema_id: string;
  customer_email: string;
  quantity: number;
  current_period_start: string;
  current_period_end: string;
  next_invoice_at: string | null;
  cancel_at_period_end: boolean;
  canceled_at: string | null;
  created_at: string;
}

export interface PeriodRowView {
  invoice_id: string;
  period_start: string;
  period_end: string;
  status: string;
  price: string;
  currency: string;
}

export interface UsageRowView {
  type: string;
  description: string;
  metric_key: string | null;
  quantity: string;
  amount: string;
}

export interface CustomerInvoiceRow {
  id: string;
  status: string;
  price: string;
  currency: string;
  created_at: string;
}

/** A customer's totals in USD (exact decimal strings, worked out by the controller with the money library). */
export interface CustomerTotals {
  invoices: number;
  completed: number;
  paid_usd: string;
  refunded_usd: string;
  net_usd: string;
}

const link = (href: string, text: string) => html`<a href="${href}">${text}</a>`;

function subscriptionsTable(c: PageContext, t: CustomerStrings, rows: SubscriptionRowView[], withEmail: boolean): SafeHtml {
  const base = `/console/${c.mode}`;
  return table(
    t.subscriptions,
    [t.id, t.status, ...(withEmail ? [t.customer] : []), t.product, t.quantity, t.current_period, t.next_invoice],
    rows.map((x) => [
      link(`${base}/subscriptions/${x.id}`, x.id),
      x.cancel_at_period_end && x.status !== 'CANCELED' ? `${x.status} (${t.ends_at_period_end})` : x.status,
      ...(withEmail ? [link(`${base}/customers?email=${encodeURIComponent(x.customer_email)}`, x.customer_email)] : []),
      x.product_id,
      String(x.quantity),
      `${x.current_period_start} – ${x.current_period_end}`,
      x.next_invoice_at ?? '',
    ]),
    t.no_entries,
  );
}

/** Subscriptions, filtered by status and customer email; the filter and the next page swap only the list (htmx). */
export function subscriptionsPage(
  c: PageContext,
  t: CustomerStrings,
  rows: SubscriptionRowView[],
  f: { status: string; email: string },
  next: string | null,
): string {
  const action = `/console/${c.mode}/subscriptions`;
  const swap = html`hx-target="#list" hx-select="#list" hx-swap="outerHTML" hx-push-url="true"`;
  return page(
    c,
    t.subscriptions,
    html`<form method="get" action="${action}" class="filters" hx-get="${action}" ${swap} hx-trigger="change from:#f-status, submit">
        <label for="f-status">${t.status}</label>
        <select id="f-status" name="status">
          <option value="">${t.any}</option>
          ${SUBSCRIPTION_STATUSES.map((st) => html`<option${st === f.status ? html` selected` : ''}>${st}</option>`)}
        </select>
        <label for="f-email">${t.customer}</label><input id="f-email" name="customer_email" type="email" value="${f.email}" />
        <button type="submit">${t.filter}</button>
      </form>
      <div id="list" aria-live="polite">
        ${subscriptionsTable(c, t, rows, true)}
        ${next ? html`<p><a href="${action}?${next}" hx-get="${action}?${next}" ${swap} rel="next">${t.next_page}</a></p>` : ''}
      </div>`,
  );
}

/** A subscription: its terms, the periods billed (its period invoices), the current period's usage so far, and cancel (now or at the period's end). */
export function subscriptionPage(
  c: PageContext,
  t: CustomerStrings,
  d: { subscription: SubscriptionRowView; periods: PeriodRowView[]; usage: UsageRowView[] | null; upcomingTotal: string | null; currency: string | null },
  n: Notice,
): string {
  const x = d.subscription;
  const base = `/console/${c.mode}`;
  const canCancel = may(c.member.role, 'subscriptions.cancel', c.mode) && x.status !== 'CANCELED';
  return page(
    c,
    `${t.subscription} ${x.id}`,
    html`${notice(n)}
      ${figures([
        [t.status, html`<span id="subscription-status">${x.status}</span>`],
        [t.customer, link(`${base}/customers?email=${encodeURIComponent(x.customer_email)}`, x.customer_email)],
        [t.product, x.product_id],
        [t.quantity, String(x.quantity)],
        [t.current_period, `${x.current_period_start} – ${x.current_period_end}`],
        [t.next_invoice, x.next_invoice_at ?? ''],
        [t.ends_at_period_end, x.cancel_at_period_end ? t.yes : t.no],
        [t.canceled_at, x.canceled_at ?? ''],
      ])}
      ${
        canCancel
          ? html`<section aria-labelledby="cancel-h">
              <h2 id="cancel-h">${t.cancel}</h2>
              <form method="post" action="${base}/subscriptions/${x.id}/cancel" class="inline">
                <input type="hidden" name="_csrf" value="${c.csrf}" /><input type="hidden" name="when" value="now" />
                <button type="submit" class="danger">${t.cancel_now}</button>
              </form>
              ${
                x.cancel_at_period_end
                  ? ''
                  : html`<form method="post" action="${base}/subscriptions/${x.id}/cancel" class="inline">
                      <input type="hidden" name="_csrf" value="${c.csrf}" /><input type="hidden" name="when" value="period_end" />
                      <button type="submit">${t.cancel_at_period_end}</button>
                    </form>`
              }
            </section>`
          : ''
      }
      <section aria-labelledby="periods-h">
        <h2 id="periods-h">${t.periods}</h2>
        ${table(
          t.periods,
          [t.period, t.invoice, t.status, t.amount],
          d.periods.map((p) => [
            `${p.period_start} – ${p.period_end}`,
            link(`${base}/invoices/${p.invoice_id}`, p.invoice_id),
            p.status,
            `${p.price} ${p.currency}`,
          ]),
          t.no_entries,
        )}
      </section>
      <section aria-labelledby="usage-h">
        <h2 id="usage-h">${t.usage}</h2>
        ${
          d.usage
            ? html`${table(
                  t.usage,
                  [t.line, t.metric, t.quantity, t.amount],
                  d.usage.map((u) => [u.description, u.metric_key ?? u.type, u.quantity, u.amount]),
                  t.no_entries,
                )}
                <p>${t.upcoming_total}: <strong id="upcoming-total">${d.upcomingTotal ?? ''} ${d.currency ?? ''}</strong></p>`
            : html`<p>${t.no_upcoming}</p>`
        }
      </section>`,
  );
}

/** A customer, by email: totals, invoices and subscriptions. */
export function customerPage(
  c: PageContext,
  t: CustomerStrings,
  email: string,
  d: { invoices: CustomerInvoiceRow[]; subscriptions: SubscriptionRowView[]; totals: CustomerTotals; more: boolean } | null,
): string {
  const base = `/console/${c.mode}`;
  return page(
    c,
    t.customers,
    html`<form method="get" action="${base}/customers" class="filters" role="search">
        <label for="c-email">${t.customer}</label><input id="c-email" name="email" type="email" required value="${email}" />
        <button type="submit">${t.find}</button>
      </form>
      ${
        d
          ? html`<h2>${email}</h2>
              ${figures([
                [t.invoice_count, String(d.totals.invoices)],
                [t.completed_count, String(d.totals.completed)],
                [t.paid_usd, html`<span id="paid-usd">${d.totals.paid_usd}</span>`],
                [t.refunded_usd, html`<span id="refunded-usd">${d.totals.refunded_usd}</span>`],
                [t.net_usd, html`<span id="net-usd">${d.totals.net_usd}</span>`],
              ])}
              ${d.more ? html`<p class="muted">${t.totals_of_latest}</p>` : ''}
              <section aria-labelledby="cust-inv-h">
                <h2 id="cust-inv-h">${t.invoices}</h2>
                ${table(
                  t.invoices,
                  [t.id, t.status, t.amount, t.created],
                  d.invoices.map((i) => [link(`${base}/invoices/${i.id}`, i.id), i.status, `${i.price} ${i.currency}`, i.created_at]),
                  t.no_entries,
                )}
              </section>
              <section aria-labelledby="cust-sub-h">
                <h2 id="cust-sub-h">${t.subscriptions}</h2>
                ${subscriptionsTable(c, t, d.subscriptions, false)}
              </section>`
          : ''
      }`,
  );
}
