import { html } from './html';
import { hiddenHeading, num, rowHeader, table } from './table';

const squash = (s: string) => s.replace(/\s+/g, ' ').replace(/> </g, '><').replace(/ >/g, '>').trim();

describe('table', () => {
  it('draws a caption, the column headings and one row per entry, escaping text and keeping markup', () => {
    const out = squash(table('Invoices <all>', ['Id', hiddenHeading('Action')], [[html`<a href="/x">x</a>`, 'a & b']], 'None').text);
    expect(out).toBe(
      '<div class="scroll" tabindex="0"><table><caption> Invoices &lt;all&gt; </caption><thead><tr><th scope="col">Id</th>' +
        '<th scope="col"><span class="sr-only">Action</span></th></tr></thead><tbody><tr><td><a href="/x">x</a></td><td>a &amp; b</td></tr></tbody></table></div>',
    );
  });

  it('shows the empty sentence instead of a table only when one is given', () => {
    expect(table('Events', ['Id'], [], 'No entries').text).toBe('<p>No entries</p>');
    expect(squash(table(null, ['Id'], []).text)).toBe(
      '<div class="scroll" tabindex="0"><table><thead><tr><th scope="col">Id</th></tr></thead><tbody></tbody></table></div>',
    );
  });

  it('draws figures, row headers, row and cell attributes, and the box id', () => {
    const out = squash(
      table(
        'Keys',
        ['Name', 'Count', 'Used'],
        [{ cells: [rowHeader('k1'), num(3), { content: 'never', attrs: html`data-last-used` }], attrs: html`data-key="${'key_1'}"` }],
        null,
        'list',
      ).text,
    );
    expect(out).toContain('<div class="scroll" tabindex="0" id="list">');
    expect(out).toContain('<tr data-key="key_1"><th scope="row">k1</th><td class="num">3</td><td data-last-used>never</td></tr>');
  });
});
