import { html, SafeHtml } from './html';

type Content = SafeHtml | string | number | null | undefined;

/** A body cell drawn otherwise than a plain `<td>`: a figure (`num`, right-aligned), the row's header, or with attributes. */
export interface CellSpec {
  content: Content;
  num?: boolean;
  /** `<th scope="row">`: the cell that names the row. */
  rowHeader?: boolean;
  attrs?: SafeHtml;
}

/** A body cell: its content in a `<td>`, or a CellSpec. */
export type Cell = Content | CellSpec;

/** A body row with attributes on its `<tr>` (`data-key="…"`), for tests and scripts to find it. */
export interface RowSpec {
  cells: Cell[];
  attrs: SafeHtml;
}

/** A figure's cell (`class="num"`). */
export const num = (content: Content): CellSpec => ({ content, num: true });

/** The cell that names its row. */
export const rowHeader = (content: Content): CellSpec => ({ content, rowHeader: true });

/** A column heading only screen readers announce (a column of buttons). */
export const hiddenHeading = (text: string): SafeHtml => html`<span class="sr-only">${text}</span>`;

function isSpec(cell: Cell): cell is CellSpec {
  return typeof cell === 'object' && cell !== null && !(cell instanceof SafeHtml);
}

function cellHtml(cell: Cell): SafeHtml {
  if (!isSpec(cell)) return html`<td>${cell}</td>`;
  const attrs = cell.attrs ? html` ${cell.attrs}` : '';
  if (cell.rowHeader) return html`<th scope="row" ${attrs}>${cell.content}</th>`;
  return html`<td${cell.num ? html` class="num"` : ''}${attrs}>${cell.content}</td>`;
}

function rowHtml(row: Cell[] | RowSpec): SafeHtml {
  const [cells, attrs] = Array.isArray(row) ? [row, ''] : [row.cells, html` ${row.attrs}`];
  return html`<tr${attrs}>
    ${cells.map(cellHtml)}
  </tr>`;
}

/**
 * Every console table: in a scrolling box a keyboard can reach, a caption (null: none, where a heading
 * names it), one heading per column and a row per entry. With `empty`, no rows show that sentence
 * instead of an empty table.
 */
export function table(
  caption: string | null,
  columns: Array<string | SafeHtml>,
  rows: Array<Cell[] | RowSpec>,
  empty: string | null = null,
  id?: string,
): SafeHtml {
  if (rows.length === 0 && empty !== null) return html`<p>${empty}</p>`;
  return html`<div class="scroll" tabindex="0" ${id ? html` id="${id}"` : ''}>
    <table>
      ${
        caption === null
          ? ''
          : html`<caption>
              ${caption}
            </caption>`
      }
      <thead>
        <tr>
          ${columns.map((col) => html`<th scope="col">${col}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows.map(rowHtml)}
      </tbody>
    </table>
  </div>`;
}

/** A sentence shown above a page's content after an action: a refusal (announced at once) or a confirmation. */
export type Notice = { kind: 'error' | 'info'; text: string } | null;

/** The notice's paragraph, or nothing. */
export function notice(n: Notice): SafeHtml {
  if (!n) return html``;
  return n.kind === 'error' ? html`<p class="notice error" role="alert">${n.text}</p>` : html`<p class="notice info" role="status">${n.text}</p>`;
}

/** Named figures (a detail page's facts) as a description list. */
export function figures(pairs: Array<[string, SafeHtml | string]>): SafeHtml {
  return html`<dl class="figures">
    ${pairs.map(
      ([k, v]) =>
        html`<div>
          <dt>${k}</dt>
          <dd>${v}</dd>
        </div>`,
    )}
  </dl>`;
}
