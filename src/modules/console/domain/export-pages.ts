import { html, SafeHtml } from './html';
import type { ExportKind } from './csv';
import { page, PageContext } from './pages';
import { may } from './roles';
import type { ConsoleLanguage } from './strings';

/** The exports' words (kept beside the exports so their pages change in one place). */
const WORDS = {
  en: {
    exports: 'Exports',
    export_csv: 'Export CSV',
    intro: 'CSV of one mode, newest first, for a period of created_at in UTC (both days included). Leave a date empty for no bound.',
    from: 'Created from (UTC)',
    to: 'Created to (UTC)',
    status: 'Status',
    any: 'Any',
    invoices: 'Invoices',
    payments: 'Payments',
    refunds: 'Refunds',
    bad_filter: 'The export was refused:',
  },
  de: {
    exports: 'Exporte',
    export_csv: 'Als CSV exportieren',
    intro: 'CSV eines Modus, neueste zuerst, für einen Zeitraum von created_at in UTC (beide Tage eingeschlossen). Ein leeres Datum begrenzt nicht.',
    from: 'Erstellt ab (UTC)',
    to: 'Erstellt bis (UTC)',
    status: 'Status',
    any: 'Alle',
    invoices: 'Rechnungen',
    payments: 'Zahlungen',
    refunds: 'Erstattungen',
    bad_filter: 'Der Export wurde abgelehnt:',
  },
} satisfies Record<ConsoleLanguage, Record<string, string>>;

export type ExportWords = (typeof WORDS)['en'];

export function exportWords(lang: ConsoleLanguage): ExportWords {
  return WORDS[lang];
}

/** The address of an export with a list page's filters (empty ones left out). */
export function exportHref(c: PageContext, kind: ExportKind, filters: Record<string, string>): string {
  const query = new URLSearchParams(Object.entries(filters).filter(([, v]) => v !== '')).toString();
  return `/console/${c.mode}/exports/${kind}.csv${query ? `?${query}` : ''}`;
}

/** The Export button of a list page, with the page's current filters; nothing for a role without exports. */
export function exportButton(c: PageContext, kind: ExportKind, filters: Record<string, string>): SafeHtml {
  if (!may(c.member.role, 'exports', c.mode)) return html``;
  return html`<p><a class="button" id="export-${kind}" href="${exportHref(c, kind, filters)}" download>${exportWords(c.lang).export_csv}</a></p>`;
}

/** The exports page: one form per kind (period and status), each a download. */
export function exportsPage(c: PageContext, statuses: Record<ExportKind, readonly string[]>, problem: string | null): string {
  const w = exportWords(c.lang);
  const form = (kind: ExportKind) =>
    html`<section>
      <h2>${w[kind]}</h2>
      <form method="get" action="/console/${c.mode}/exports/${kind}.csv" class="filters" id="export-form-${kind}">
        <label for="${kind}-from">${w.from}</label><input id="${kind}-from" name="created_at_from" type="date" /> <label for="${kind}-to">${w.to}</label
        ><input id="${kind}-to" name="created_at_to" type="date" />
        <label for="${kind}-status">${w.status}</label>
        <select id="${kind}-status" name="status">
          <option value="">${w.any}</option>
          ${statuses[kind].map((st) => html`<option>${st}</option>`)}
        </select>
        <button type="submit">${w.export_csv}</button>
      </form>
    </section>`;
  return page(
    c,
    w.exports,
    html`${problem ? html`<p class="notice error" role="alert">${w.bad_filter} ${problem}</p>` : ''}
      <p>${w.intro}</p>
      ${form('invoices')} ${form('payments')} ${form('refunds')}`,
  );
}
