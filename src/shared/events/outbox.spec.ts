import { withEventRow } from './event-row';

describe('withEventRow', () => {
  it('adds the event insert as the first CTE of a statement that has none, its values after the statement parameters', () => {
    const sql = withEventRow('UPDATE invoices SET status = $2 WHERE id = $1', 2);
    expect(sql).toBe(
      'WITH recorded_event AS (INSERT INTO events (id, organization_id, mode, type, data, created_at) VALUES ($3, $4, $5, $6, $7::jsonb, $8))\n' +
        'UPDATE invoices SET status = $2 WHERE id = $1',
    );
  });

  it("joins a statement's own WITH list", () => {
    const sql = withEventRow('  with a AS (SELECT $1::int AS x)\nSELECT x FROM a', 1);
    expect(sql).toBe(
      'WITH recorded_event AS (INSERT INTO events (id, organization_id, mode, type, data, created_at) VALUES ($2, $3, $4, $5, $6::jsonb, $7)),\n' +
        'a AS (SELECT $1::int AS x)\nSELECT x FROM a',
    );
  });

  it('refuses WITH RECURSIVE, which would have to stay first', () => {
    expect(() => withEventRow('WITH RECURSIVE t(n) AS (SELECT 1) SELECT n FROM t', 0)).toThrow(/RECURSIVE/);
  });
});
