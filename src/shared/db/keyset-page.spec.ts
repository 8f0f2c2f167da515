import type { Scope } from '../auth/request-context';
import { keysetPageStatement, ListWhere } from './keyset-page';

const scope = { organizationId: 'org_a', mode: 'test' } as Scope;

describe('ListWhere', () => {
  it('has no parts without a status filter', () => {
    const w = new ListWhere(scope);
    w.add((p) => `currency = ANY(${p}::text[])`, ['USD']);
    expect(w.parts).toBeUndefined();
    expect(w.filtered).toBe(true);
  });

  it('splits the clause once per distinct status, keeping every other clause, those added after it included', () => {
    const w = new ListWhere(scope);
    w.add((p) => `currency = ANY(${p}::text[])`, ['USD']);
    w.statuses(['PENDING', 'COMPLETED', 'PENDING']);
    w.add((p) => `created_at >= ${p}`, new Date(0), 'time');
    expect(w.where).toBe('organization_id = $1 AND mode = $2 AND currency = ANY($3::text[]) AND status IN ($4, $5) AND created_at >= $6');
    expect(w.parts).toEqual([
      'organization_id = $1 AND mode = $2 AND currency = ANY($3::text[]) AND status = $4 AND created_at >= $6',
      'organization_id = $1 AND mode = $2 AND currency = ANY($3::text[]) AND status = $5 AND created_at >= $6',
    ]);
    expect(w.params).toEqual(['org_a', 'test', ['USD'], 'PENDING', 'COMPLETED', new Date(0)]);
  });
});

describe('ListWhere.oneOf', () => {
  it('sends up to four distinct values as one parameter each, more as one array', () => {
    const few = new ListWhere(scope);
    few.oneOf('currency', ['USD', 'EUR', 'USD']);
    expect(few.where).toBe('organization_id = $1 AND mode = $2 AND currency IN ($3, $4)');
    expect(few.params).toEqual(['org_a', 'test', 'USD', 'EUR']);
    expect(few.filtered).toBe(true);
    const many = new ListWhere(scope);
    many.oneOf('currency', ['USD', 'EUR', 'USDT', 'BITCOIN', 'ETHEREUM']);
    expect(many.where).toBe('organization_id = $1 AND mode = $2 AND currency = ANY($3::text[])');
    expect(many.params).toEqual(['org_a', 'test', ['USD', 'EUR', 'USDT', 'BITCOIN', 'ETHEREUM']]);
  });
});

describe('ListWhere.scopeOnRow', () => {
  it('tests the scope as one boolean, in the WHERE clause and in every part', () => {
    const w = new ListWhere(scope);
    w.add((p) => `invoice_id = ${p}`, 'invoice_1');
    w.statuses(['COMPLETED', 'FAILED']);
    w.scopeOnRow();
    expect(w.where).toBe('(organization_id = $1 AND mode = $2) IS TRUE AND invoice_id = $3 AND status IN ($4, $5)');
    expect(w.parts).toEqual([
      '(organization_id = $1 AND mode = $2) IS TRUE AND invoice_id = $3 AND status = $4',
      '(organization_id = $1 AND mode = $2) IS TRUE AND invoice_id = $3 AND status = $5',
    ]);
  });
});

describe('keysetPageStatement', () => {
  const request = (parts?: string[]) => {
    const w = new ListWhere(scope);
    w.statuses(['PENDING', 'VOIDED']);
    return { table: 'invoices', columns: 'id, created_at', where: w.where, params: w.params, limit: 20, offset: 5, filtered: true, parts: parts ?? w.parts };
  };

  it('with parts, walks each one newest first for offset + limit + 1 entries and adds up a count of each part', () => {
    const { text, params } = keysetPageStatement(request());
    // $5 is the cursor, $6 the page's limit (one more than asked, for has_more), $7 the offset.
    expect(params).toEqual(['org_a', 'test', 'PENDING', 'VOIDED', null, 21, 5]);
    const walks = text.match(/status = \$\d ORDER BY created_at DESC, id DESC LIMIT \$6::bigint \+ \$7::bigint/g);
    expect(walks).toEqual([expect.stringContaining('status = $3'), expect.stringContaining('status = $4')]);
    expect(text).toContain(
      '(SELECT count(*) FROM invoices WHERE organization_id = $1 AND mode = $2 AND status = $3) + (SELECT count(*) FROM invoices WHERE organization_id = $1 AND mode = $2 AND status = $4)',
    );
    expect(text).not.toContain('status IN');
    expect(text).not.toContain('hits');
  });

  it('counts no match when countTotal is false, whichever way the page is found', () => {
    for (const shape of [request(), { ...request(), parts: undefined }, { ...request(), parts: undefined, filtered: false }]) {
      const counted = keysetPageStatement(shape).text;
      const uncounted = keysetPageStatement({ ...shape, countTotal: false }).text;
      expect(counted).toMatch(/count\(\*\) FROM (invoices|hits)/);
      expect(uncounted).not.toMatch(/count\(\*\) FROM (invoices|hits)/);
      expect(uncounted).toContain('(NULL)::text AS total');
    }
  });

  it('puts the cursor condition in every walk', () => {
    const { text } = keysetPageStatement({ ...request(), startingAfter: 'invoice_x' });
    expect(text.match(/AND \(created_at, id\) < \(SELECT created_at, id FROM cur\) ORDER BY/g)).toHaveLength(2);
  });

  it("without parts, reads a value filter's matches once for both the total and the page", () => {
    const { text } = keysetPageStatement({ ...request(), parts: undefined });
    expect(text).toContain('hits AS MATERIALIZED');
    expect(text).toContain('SELECT count(*) FROM hits');
  });

  it('reads the cursor row and the page rows by primary key only, the scope checked on the row', () => {
    const { text } = keysetPageStatement({ ...request(), startingAfter: 'invoice_x' });
    expect(text).toContain('FROM invoices WHERE id = $5 AND (organization_id = $1 AND mode = $2) IS TRUE');
    expect(text).toContain('FROM invoices WHERE id = ids.id AND (organization_id = $1 AND mode = $2) IS TRUE');
  });
});
