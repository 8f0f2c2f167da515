import { csvCell, csvHeader, csvLine, csvRow, EXPORT_COLUMNS, valueAt } from './csv';
import { exportFileName, parseExportParams } from './export-params';

describe('csv cells', () => {
  it.each([
    ['plain', 'plain'],
    ['', ''],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['0.100000000000000000000000000000', '0.100000000000000000000000000000'],
  ])('%j is written as %j', (value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  it.each([
    ['=1+2', "'=1+2"],
    ['+1', "'+1"],
    ['-1', "'-1"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1', "'\t'=1"],
    ['\r=1', `"'\r'=1"`],
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
  ])('a formula-like cell %j gets a leading quote: %j', (value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  it.each([
    ["Order 12;=cmd|'/C calc'!A0;", "Order 12;'=cmd|'/C calc'!A0;"],
    ['a\t=1+1', "a\t'=1+1"],
    ['x;-1;@A1', "x;'-1;'@A1"],
    ['a\t\t=cmd', "a\t'\t'=cmd"],
    ['a;\t=cmd', "a;'\t'=cmd"],
  ])('a formula character after a ; or a tab (a new cell where lines split on them) gets a quote too: %j', (value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  it.each([
    ['x\r\n=1+1;', `"x\r\n'=1+1;"`],
    ['x\n@A1', `"x\n'@A1"`],
    ['x\r-1', `"x\r'-1"`],
  ])('a formula character after a line break (a new row where lines split on ; or tabs) gets a quote too: %j', (value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  it('keeps a formula character that is not first', () => {
    expect(csvCell('a=b')).toBe('a=b');
    expect(csvCell('jane+tag@example.com')).toBe('jane+tag@example.com');
  });

  it('writes null and undefined as empty cells, numbers and booleans as text', () => {
    expect(csvLine([null, undefined, 3, true, 'x'])).toBe(',,3,true,x\r\n');
  });
});

describe('export rows', () => {
  it('flattens nested objects by dotted path and a free map as JSON', () => {
    expect(valueAt({ payout: { amount: '1.5', tx_hash: null } }, 'payout.amount')).toBe('1.5');
    expect(valueAt({ payout: null }, 'payout.amount')).toBeNull();
    expect(valueAt({ payout: { tx_hash: null } }, 'payout.tx_hash')).toBeNull();
    expect(valueAt({ metadata: { order: '=7' } }, 'metadata')).toBe('{"order":"=7"}');
    expect(valueAt({}, 'subscription_id')).toBeNull();
  });

  it('writes the header and one line per object in the columns order', () => {
    const columns = [
      { header: 'id', path: 'id' },
      { header: 'payout.amount', path: 'payout.amount' },
    ];
    expect(csvHeader(columns)).toBe('id,payout.amount\r\n');
    expect(csvRow(columns, { id: 'refund_1', payout: { amount: '2.000000000000000000000000000000' } })).toBe('refund_1,2.000000000000000000000000000000\r\n');
  });

  it('has unique headers for each kind', () => {
    for (const columns of Object.values(EXPORT_COLUMNS)) {
      expect(new Set(columns.map((c) => c.header)).size).toBe(columns.length);
    }
  });
});

describe('export parameters', () => {
  const statuses = ['PENDING', 'COMPLETED'];

  it('reads the period in UTC, lists by comma or repetition, currencies by ticker', () => {
    const r = parseExportParams(
      'invoices',
      { created_at_from: '2026-11-01', created_at_to: '2026-11-30', status: ['PENDING', 'COMPLETED,PENDING'], currency: 'usd,btc', price_usd_from: '10' },
      statuses,
    );
    expect(r).toEqual({
      ok: true,
      filter: {
        createdFrom: new Date('2026-11-01T00:00:00.000Z'),
        createdTo: new Date('2026-11-30T23:59:59.999Z'),
        status: ['PENDING', 'COMPLETED'],
        currency: ['USD', 'BITCOIN'],
        priceUsdFrom: '10',
      },
    });
  });

  it('treats empty parameters as absent', () => {
    expect(parseExportParams('payments', { status: '', created_at_from: '', invoice_id: '' }, statuses)).toEqual({ ok: true, filter: {} });
  });

  it.each([
    ['invoices', { created_at_from: '2026-13-01' }, 'created_at_from'],
    ['invoices', { created_at_from: '2026-11-02', created_at_to: '2026-11-01' }, 'created_at_to'],
    ['invoices', { status: 'PAID' }, 'status'],
    ['invoices', { currency: 'DOLLARS' }, 'currency'],
    ['invoices', { price_usd_to: '1e3' }, 'price_usd_to'],
    ['invoices', { price_usd_from: '-1' }, 'price_usd_from'],
    ['invoices', { provider_id: 'a,b' }, 'provider_id'],
    ['invoices', { invoice_id: 'invoice_1' }, 'invoice_id'],
    ['refunds', { currency: 'USD' }, 'currency'],
    ['payments', { limit: '10' }, 'limit'],
    ['payments', { customer_email: ['a@example.com', 'b@example.com'] }, 'customer_email'],
  ] as const)('%s export refuses %j naming %s', (kind, query, field) => {
    const r = parseExportParams(kind, query, statuses);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(Object.keys(r.problems)).toEqual([field]);
  });

  it('names the file after the kind, mode and period', () => {
    expect(exportFileName('payments', 'live', { createdFrom: new Date('2026-11-01T00:00:00Z'), createdTo: new Date('2026-11-30T23:59:59.999Z') })).toBe(
      'payments-live-2026-11-01-to-2026-11-30.csv',
    );
    expect(exportFileName('refunds', 'test', {})).toBe('refunds-test.csv');
  });
});
