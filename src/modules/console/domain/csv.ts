/**
 * CSV writing for the exports (decisions §25): RFC 4180 text (comma separated, CRLF line ends, a cell
 * quoted when it holds a comma, a quote or a line break, quotes doubled inside), UTF-8 without a byte
 * order mark.
 *
 * Formula injection: a spreadsheet runs a cell that starts with `=`, `+`, `-` or `@` as a formula,
 * and some also a cell that starts with a tab or a carriage return followed by one (the OWASP CSV
 * injection page lists all six). Such a cell gets a leading `'`, which spreadsheets show as text, so
 * `=HYPERLINK(...)` in a customer's email or a metadata value arrives as the text it was.
 * The guard applies to every cell, amounts included: our amounts are never negative, so no number
 * column is touched by it. A spreadsheet that splits lines on `;` or tabs (Excel in several locales)
 * starts a cell after each one, so such a character followed by a formula character inside a cell gets
 * the `'` there too (`Order 12;=cmd|...` is written `Order 12;'=cmd|...`). Such a spreadsheet reads the
 * comma-separated line as one field, a quote inside it as a plain character, and so a line break inside
 * a quoted cell as the end of its row: the text after a line break is guarded the same way.
 */

/** The first characters that make a spreadsheet read a cell as a formula. */
const FORMULA_START = new Set(['=', '+', '-', '@', '\t', '\r']);

/** One cell's text: the formula guard, then RFC 4180 quoting. Null and undefined are empty cells. */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (text.length > 0 && FORMULA_START.has(text[0])) text = `'${text}`;
  // After each separator or line break, looked ahead so that one right after another is guarded too.
  text = text.replace(/([;\t\r\n])(?=[=+\-@\t\r])/g, "$1'");
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One line of cells, ended by CRLF. */
export function csvLine(cells: ReadonlyArray<string | number | boolean | null | undefined>): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** A column of an export: its header and the dotted path of the value in the list's object. */
export interface ExportColumn {
  header: string;
  path: string;
}

/**
 * A list object's value at a dotted path (`payout.amount`), as cell text: nested objects are
 * flattened into one column per field (`payout.amount`, `payout.tx_hash`, ...); a free map
 * (metadata) is one column holding its JSON; a missing part is an empty cell.
 */
export function valueAt(object: unknown, path: string): string | number | boolean | null {
  let at: unknown = object;
  for (const part of path.split('.')) {
    if (at === null || typeof at !== 'object') return null;
    at = (at as Record<string, unknown>)[part];
  }
  if (at === undefined || at === null) return null;
  if (typeof at === 'object') return JSON.stringify(at);
  if (typeof at === 'string' || typeof at === 'number' || typeof at === 'boolean') return at;
  return null;
}

/** The header line of an export. */
export function csvHeader(columns: readonly ExportColumn[]): string {
  return csvLine(columns.map((c) => c.header));
}

/** One object's line: its values in the columns' order. */
export function csvRow(columns: readonly ExportColumn[], object: unknown): string {
  return csvLine(columns.map((c) => valueAt(object, c.path)));
}

const cols = (paths: string[]): ExportColumn[] => paths.map((path) => ({ header: path, path }));

/** The columns of each export: the list's fields, flattened, in the order the API shows them. */
export const EXPORT_COLUMNS = {
  invoices: cols([
    'id',
    'organization_id',
    'status',
    'substatus',
    'currency',
    'price',
    'price_usd',
    'refunded_usd',
    'customer_email',
    'created_at',
    'updated_at',
    'expires_at',
    'monitoring_until',
    'redirect_url',
    'checkout_url',
    'subscription_id',
    'period_start',
    'period_end',
    'metadata',
  ]),
  payments: cols([
    'id',
    'organization_id',
    'invoice_id',
    'provider_id',
    'status',
    'currency',
    'price',
    'price_usd',
    'tx_hash',
    'confirmations',
    'required_confirmations',
    'idempotency_key',
    'happened_at',
    'created_at',
    'updated_at',
  ]),
  refunds: cols([
    'id',
    'invoice_id',
    'status',
    'amount',
    'currency',
    'amount_usd',
    'rate',
    'reason',
    'claim_url',
    'expires_at',
    'destination.provider_id',
    'destination.network',
    'destination.address',
    'payout.provider_id',
    'payout.network',
    'payout.currency',
    'payout.address',
    'payout.amount',
    'payout.uri',
    'payout.tx_hash',
    'payout.confirmations',
    'payout.required_confirmations',
    'created_at',
    'updated_at',
  ]),
} as const satisfies Record<string, ExportColumn[]>;

export type ExportKind = keyof typeof EXPORT_COLUMNS;
export const EXPORT_KINDS = Object.keys(EXPORT_COLUMNS) as ExportKind[];

export function isExportKind(value: unknown): value is ExportKind {
  return typeof value === 'string' && (EXPORT_KINDS as string[]).includes(value);
}
