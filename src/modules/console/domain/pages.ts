import type { Mode } from '../../../shared/auth/request-context';
import { INVOICE_STATUSES } from '../../invoices';
import { exportButton, exportWords } from './export-pages';
import { html, jsonBlock, SafeHtml } from './html';
import { hiddenHeading, Notice, notice, num, rowHeader, table } from './table';
import { webhookWords } from './webhook-pages';
import { may, mayAssign, Role, ROLES } from './roles';
import type { ConsoleLanguage, ConsoleStrings } from './strings';

/** What every page of a signed-in member knows. */
export interface PageContext {
  lang: ConsoleLanguage;
  s: ConsoleStrings;
  assetVersion: string;
  mode: Mode;
  csrf: string;
  member: { id: string; email: string; role: Role };
  organizationName: string;
  /** The page's path without the mode prefix (for the mode switch), e.g. "/invoices". */
  path: string;
}

/** The shell of a page before sign-in. */
export interface BareContext {
  lang: ConsoleLanguage;
  s: ConsoleStrings;
  assetVersion: string;
}

export type { Notice };

function head(c: BareContext, title: string, scripts: string[] = []): SafeHtml {
  const v = c.assetVersion;
  return html`<head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false}' />
    <title>${title} · ${c.s.title}</title>
    <link rel="stylesheet" href="/console/assets/console.css?v=${v}" />
    <script src="/console/assets/htmx.min.js?v=${v}" defer></script>
    ${scripts.map((f) => html`<script src="/console/assets/${f}?v=${v}" defer></script> `)}
  </head>`;
}

function languageLinks(c: BareContext, path: string): SafeHtml {
  return html`<span class="langs"
    >${(['en', 'de'] as const).map((l) =>
      l === c.lang
        ? html`<span lang="${l}" aria-current="true">${l.toUpperCase()}</span> `
        : html`<a lang="${l}" hreflang="${l}" href="${path}?lang=${l}">${l.toUpperCase()}</a> `,
    )}</span
  >`;
}

export function barePage(c: BareContext, title: string, body: SafeHtml, path = '/console/sign-in'): string {
  return html`<!doctype html>
    <html lang="${c.lang}">
      ${head(c, title)}
      <body class="bare">
        <main id="main">
          <h1>${c.s.title}</h1>
          ${body}
          <p>${languageLinks(c, path)}</p>
        </main>
      </body>
    </html>`.text;
}

export function signInPage(c: BareContext, csrf: string, email: string, n: Notice): string {
  return barePage(
    c,
    c.s.sign_in,
    html`<h2>${c.s.sign_in}</h2>
      ${notice(n)}
      <form method="post" action="/console/sign-in" class="stack">
        <input type="hidden" name="_csrf" value="${csrf}" />
        <label for="email">${c.s.email}</label>
        <input id="email" name="email" type="email" autocomplete="username" required value="${email}" autofocus />
        <label for="password">${c.s.password}</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit">${c.s.sign_in}</button>
      </form>`,
  );
}

export function setPasswordPage(c: BareContext, csrf: string, token: string, email: string, n: Notice): string {
  return barePage(
    c,
    c.s.set_password_title,
    html`<h2>${c.s.set_password_title}</h2>
      ${notice(n)}
      <form method="post" action="/console/link/${token}" class="stack">
        <input type="hidden" name="_csrf" value="${csrf}" />
        <label for="email">${c.s.email}</label>
        <input id="email" name="email" type="email" autocomplete="username" value="${email}" readonly />
        <label for="password">${c.s.new_password}</label>
        <input id="password" name="password" type="password" autocomplete="new-password" minlength="12" required autofocus />
        <button type="submit">${c.s.set_password}</button>
      </form>`,
    `/console/link/${token}`,
  );
}

/** The shell of a signed-in page: header with the mode switch (always visible), navigation, content. */
export function page(c: PageContext, title: string, body: SafeHtml, scripts: string[] = []): string {
  const s = c.s;
  const other: Mode = c.mode === 'test' ? 'live' : 'test';
  const nav: Array<[string, string, boolean]> = [
    ['', s.overview, true],
    ['/invoices', s.invoices, true],
    ['/payments', s.payments, true],
    ['/refunds', s.refunds, true],
    ['/subscriptions', s.subscriptions, true],
    ['/customers', s.customers, true],
    ['/products', s.products, true],
    ['/wallets', s.wallets, true],
    ['/api-keys', s.api_keys, true],
    ['/members', s.members, true],
    ['/webhooks', webhookWords(c.lang).webhooks, true],
    ['/exports', exportWords(c.lang).exports, may(c.member.role, 'exports', c.mode)],
    ['/audit', s.audit_log, may(c.member.role, 'audit_log.read', c.mode)],
  ];
  return html`<!doctype html>
    <html lang="${c.lang}">
      ${head(c, title, scripts)}
      <body class="mode-${c.mode}" hx-headers="${JSON.stringify({ 'X-CSRF-Token': c.csrf })}">
        <a class="skip" href="#main">${s.skip}</a>
        <header class="top">
          <p class="org"><strong>${c.organizationName}</strong> <span class="who">${c.member.email} (${c.member.role})</span></p>
          <p class="mode" aria-live="polite">
            <span class="badge badge-${c.mode}">${c.mode === 'test' ? s.mode_test : s.mode_live}</span>
            <a class="switch" href="/console/${other}${c.path}">${other === 'test' ? s.switch_to_test : s.switch_to_live}</a>
          </p>
          <form method="post" action="/console/sign-out" class="inline">
            <input type="hidden" name="_csrf" value="${c.csrf}" /><button type="submit" class="link">${s.sign_out}</button>
          </form>
          <form method="post" action="/console/sign-out-everywhere" class="inline">
            <input type="hidden" name="_csrf" value="${c.csrf}" /><button type="submit" class="link">${s.sign_out_everywhere}</button>
          </form>
          ${languageLinks(c, `/console/${c.mode}${c.path}`)}
        </header>
        <nav aria-label="${s.nav}">
          <ul>
            ${nav
              .filter(([, , shown]) => shown)
              .map(([p, label]) => html`<li><a href="/console/${c.mode}${p}" ${p === c.path ? html` aria-current="page"` : ''}>${label}</a></li>`)}
          </ul>
        </nav>
        <main id="main" tabindex="-1">
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html>`.text;
}

export function messagePage(c: PageContext | BareContext, title: string, text: string): string {
  const body = html`<p role="alert">${text}</p>
    <p><a href="/console">${c.s.overview}</a></p>`;
  return 'mode' in c ? page(c, title, body) : barePage(c, title, body);
}

export const PERIOD_CHOICES = ['last_7_days', 'last_30_days', 'last_90_days', 'last_365_days', 'last_day'] as const;
export type PeriodChoice = (typeof PERIOD_CHOICES)[number];

export interface OverviewData {
  period: PeriodChoice;
  invoices: { count: number; paid_count: number; paid_volume_usd: string; conversion_rate: string; by_status: Record<string, number> };
  series: Array<{ date: string; payments_volume_usd: string; invoices_count: number }>;
  /** USD of the refunds completed in the window, and the paid volume less it. */
  refunded_usd: string;
  net_volume_usd: string;
  providers: Array<{ provider_id: string; name: string; payments_count: number; volume_usd: string; share: string }>;
  top_customers: Array<{ customer_email: string; invoices_count: number; paid_volume_usd: string }>;
}

/** A ratio (0..1, 30 decimals) as a percentage with one decimal, for reading; the exact figure stays in the API. */
function percent(ratio: string): string {
  const [whole, fraction = ''] = ratio.split('.');
  const tenths = Number(whole) * 1000 + Number((fraction + '000').slice(0, 3)) + (Number(fraction[3] ?? '0') >= 5 ? 1 : 0);
  return `${Math.floor(tenths / 10)}.${tenths % 10} %`;
}

export function overviewPage(c: PageContext, d: OverviewData): string {
  const s = c.s;
  const statuses = Object.entries(d.invoices.by_status);
  const chart = {
    labels: d.series.map((p) => p.date),
    volume: d.series.map((p) => p.payments_volume_usd),
    invoices: d.series.map((p) => p.invoices_count),
    statusLabels: statuses.map(([k]) => k),
    statusCounts: statuses.map(([, v]) => v),
    providerLabels: d.providers.map((p) => p.name),
    providerVolumes: d.providers.map((p) => p.volume_usd),
    titles: { volume: s.volume_by_day, invoices: s.invoices_by_day, status: s.status_mix, providers: s.providers_by_volume },
  };
  return page(
    c,
    s.overview,
    html`<form method="get" action="/console/${c.mode}" class="row">
        <label for="period">${s.period}</label>
        <select id="period" name="period">
          ${PERIOD_CHOICES.map((p) => html`<option value="${p}" ${p === d.period ? html` selected` : ''}>${p.replace(/_/g, ' ')}</option>`)}
        </select>
        <button type="submit">${s.show}</button>
      </form>
      <dl class="figures">
        <div>
          <dt>${s.invoice_count}</dt>
          <dd>${d.invoices.count}</dd>
        </div>
        <div>
          <dt>${s.paid_volume}</dt>
          <dd>${d.invoices.paid_volume_usd}</dd>
        </div>
        <div>
          <dt>${s.conversion}</dt>
          <dd>${d.invoices.conversion_rate}</dd>
        </div>
        <div>
          <dt>${s.refunded}</dt>
          <dd>${d.refunded_usd}</dd>
        </div>
        <div>
          <dt>${s.net_volume}</dt>
          <dd>${d.net_volume_usd}</dd>
        </div>
      </dl>
      <div class="charts" aria-hidden="true">
        <figure>
          <figcaption>${s.volume_by_day}</figcaption>
          <canvas id="chart-volume" width="300" height="200"></canvas>
        </figure>
        <figure>
          <figcaption>${s.invoices_by_day}</figcaption>
          <canvas id="chart-invoices" width="300" height="200"></canvas>
        </figure>
        <figure>
          <figcaption>${s.status_mix}</figcaption>
          <canvas id="chart-status" width="300" height="200"></canvas>
        </figure>
        <figure>
          <figcaption>${s.providers_by_volume}</figcaption>
          <canvas id="chart-providers" width="300" height="200"></canvas>
        </figure>
      </div>
      <script type="application/json" id="chart-data">
        ${jsonBlock(chart)}
      </script>
      <details open>
        <summary>${s.data_table}</summary>
        ${table(
          `${s.volume_by_day} · ${s.invoices_by_day}`,
          [s.date, s.volume_usd, s.count],
          d.series.map((p) => [rowHeader(p.date), num(p.payments_volume_usd), num(p.invoices_count)]),
        )}
        ${table(
          s.status_mix,
          [s.status, s.count],
          statuses.map(([k, v]) => [rowHeader(k), num(v)]),
        )}
        ${table(
          s.providers_by_volume,
          [s.provider, s.payments_count, s.volume_usd, s.share],
          d.providers.map((p) => [rowHeader(p.name), num(p.payments_count), num(p.volume_usd), num(percent(p.share))]),
        )}
      </details>
      <section aria-labelledby="top-customers">
        <h2 id="top-customers">${s.top_customers}</h2>
        ${table(
          null,
          [s.customer, s.invoice_count, s.paid_usd],
          d.top_customers.map((t) => [
            rowHeader(html`<a href="/console/${c.mode}/customers?email=${encodeURIComponent(t.customer_email)}">${t.customer_email}</a>`),
            num(t.invoices_count),
            num(t.paid_volume_usd),
          ]),
          s.none_in_period,
        )}
      </section>`,
    ['chart.umd.min.js', 'console.js'],
  );
}

export interface InvoiceRow {
  id: string;
  status: string;
  price: string;
  currency: string;
  created_at: string;
  customer_email: string | null;
}

export interface InvoiceFilterValues {
  status: string;
  currency: string;
  customer_email: string;
  created_from: string;
  created_to: string;
}

export function invoicesPage(c: PageContext, rows: InvoiceRow[], f: InvoiceFilterValues, nextQuery: string | null, n: Notice = null): string {
  const s = c.s;
  return page(
    c,
    s.invoices,
    html`${notice(n)}${may(c.member.role, 'invoices.write', c.mode) ? html`<p><a class="button" href="/console/${c.mode}/invoices/new">${s.new_invoice}</a></p>` : ''}
      <form method="get" action="/console/${c.mode}/invoices" class="filters">
        <label for="f-status">${s.status}</label>
        <select id="f-status" name="status">
          <option value="">${s.any}</option>
          ${INVOICE_STATUSES.map((st) => html`<option${st === f.status ? html` selected` : ''}>${st}</option>`)}
        </select>
        <label for="f-currency">${s.currency}</label><input id="f-currency" name="currency" value="${f.currency}" maxlength="20" />
        <label for="f-email">${s.customer}</label><input id="f-email" name="customer_email" type="email" value="${f.customer_email}" />
        <label for="f-from">${s.created_from}</label><input id="f-from" name="created_from" type="date" value="${f.created_from}" />
        <label for="f-to">${s.created_to}</label><input id="f-to" name="created_to" type="date" value="${f.created_to}" />
        <button type="submit">${s.filter}</button>
      </form>
      ${exportButton(c, 'invoices', {
        status: f.status,
        currency: f.currency,
        customer_email: f.customer_email,
        created_at_from: f.created_from,
        created_at_to: lastDayBefore(f.created_to),
      })}
      ${table(
        s.invoices,
        [s.id, s.status, s.amount, s.customer, s.created],
        rows.map((r) => [
          html`<a href="/console/${c.mode}/invoices/${r.id}">${r.id}</a>`,
          r.status,
          num(`${r.price} ${r.currency}`),
          r.customer_email ?? '',
          r.created_at,
        ]),
        s.no_invoices,
      )}
      ${nextQuery ? html`<p><a href="/console/${c.mode}/invoices?${nextQuery}">${s.next_page}</a></p>` : ''}`,
  );
}

export interface MemberView {
  id: string;
  email: string;
  name: string;
  role: Role;
  last_sign_in_at: string | null;
  pending: boolean;
  locked: boolean;
}

export function membersPage(c: PageContext, members: MemberView[], n: Notice, link: { text: string; url: string } | null): string {
  const s = c.s;
  const me = c.member;
  const manage = may(me.role, 'members.manage', c.mode);
  const roleOptions = (current: Role | null, target: Role | null) =>
    ROLES.filter((r) => mayAssign(me.role, target, r)).map((r) => html`<option value="${r}" ${r === current ? html` selected` : ''}>${r}</option>`);
  return page(
    c,
    s.members,
    html`${notice(n)}
    ${
      link
        ? html`<div class="once" role="status">
            <p>${link.text}</p>
            <p><code class="secret" id="one-time-link">${link.url}</code></p>
          </div>`
        : ''
    }
    ${table(
      s.members,
      [s.email, s.role, s.last_sign_in, ...(manage ? [hiddenHeading(s.action)] : [])],
      members.map((m) => {
        const self = m.id === me.id;
        const editable = manage && mayAssign(me.role, m.role, m.role);
        return {
          attrs: html`data-member="${m.id}"`,
          cells: [
            html`${m.email}${m.name ? html` <span class="muted">(${m.name})</span>` : ''}${self ? html` <span class="muted">(${s.you})</span>` : ''}`,
            m.role,
            m.pending ? s.pending : (m.last_sign_in_at ?? s.never),
            ...(manage
              ? [
                  editable
                    ? html`<form method="post" action="/console/${c.mode}/members/${m.id}/role" class="inline">
                          <input type="hidden" name="_csrf" value="${c.csrf}" />
                          <label class="sr-only" for="role-${m.id}">${s.role}: ${m.email}</label>
                          <select id="role-${m.id}" name="role">
                            ${roleOptions(m.role, m.role)}
                          </select>
                          <button type="submit">${s.change_role}</button>
                        </form>
                        <form method="post" action="/console/${c.mode}/members/${m.id}/reset" class="inline">
                          <input type="hidden" name="_csrf" value="${c.csrf}" /><button type="submit" aria-label="${s.reset_password}: ${m.email}">
                            ${s.reset_password}
                          </button>
                        </form>
                        ${m.locked ? html`<form method="post" action="/console/${c.mode}/members/${m.id}/unlock" class="inline"><input type="hidden" name="_csrf" value="${c.csrf}" /><button type="submit" aria-label="${s.unlock}: ${m.email}">${s.unlock}</button></form>` : ''}
                        <form method="post" action="/console/${c.mode}/members/${m.id}/remove" class="inline">
                          <input type="hidden" name="_csrf" value="${c.csrf}" /><button type="submit" class="danger" aria-label="${s.remove}: ${m.email}">
                            ${s.remove}
                          </button>
                        </form>`
                    : '',
                ]
              : []),
          ],
        };
      }),
    )}
    ${
      manage
        ? html`<section>
            <h2>${s.invite_member}</h2>
            <form method="post" action="/console/${c.mode}/members" class="stack">
              <input type="hidden" name="_csrf" value="${c.csrf}" />
              <label for="invite-email">${s.email}</label><input id="invite-email" name="email" type="email" required />
              <label for="invite-name">${s.name}</label><input id="invite-name" name="name" maxlength="200" /> <label for="invite-role">${s.role}</label
              ><select id="invite-role" name="role">
                ${roleOptions('developer', null)}
              </select>
              <button type="submit">${s.invite}</button>
            </form>
          </section>`
        : ''
    }`,
  );
}

export interface AuditView {
  created_at: string;
  actor: string;
  action: string;
  target: string | null;
  mode: string | null;
  ip: string | null;
}

export function auditPage(c: PageContext, entries: AuditView[]): string {
  const s = c.s;
  return page(
    c,
    s.audit_log,
    table(
      s.audit_log,
      [s.when, s.who, s.action, s.target, s.mode, s.from_where],
      entries.map((e) => [e.created_at, e.actor, e.action, e.target ?? '', e.mode ?? '', e.ip ?? '']),
      s.no_entries,
    ),
  );
}

/**
 * The list's "created before" a day is the export's inclusive `created_at_to` of the day before (a bare
 * date there means the whole day), so the Export button downloads the rows the list shows. A time, not
 * a bare date, is passed on as it is.
 */
export function lastDayBefore(createdBefore: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(createdBefore)) return createdBefore;
  const day = new Date(`${createdBefore}T00:00:00Z`);
  if (Number.isNaN(day.getTime())) return createdBefore;
  return new Date(day.getTime() - 86_400_000).toISOString().slice(0, 10);
}
