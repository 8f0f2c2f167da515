import { fairBatch, someOrganizationFull } from './fair-batch';

describe('fairBatch', () => {
  const sql = fairBatch(
    { table: 'refunds', alias: 'r', due: `r.status = 'SENT'`, order: 'r.checked_at NULLS FIRST, r.sent_at, r.id', columns: 'r.id, r.organization_id, r.mode' },
    '$1',
    '$2',
  );

  it("numbers each organization's mode's due rows in the worker's order", () => {
    expect(sql).toContain('row_number() OVER (PARTITION BY r.organization_id, r.mode ORDER BY r.checked_at NULLS FIRST, r.sent_at, r.id) AS fair_turn');
    expect(sql).toContain(`FROM refunds r WHERE r.status = 'SENT'`);
  });

  it('keeps at most the cap of each and takes them in turns, then in the order', () => {
    expect(sql).toMatch(/WHERE r\.fair_turn <= \$1\s+ORDER BY r\.fair_turn, r\.checked_at NULLS FIRST, r\.sent_at, r\.id\s+LIMIT \$2/);
  });

  it('carries every column unless told which', () => {
    expect(fairBatch({ table: 't', alias: 't', due: 'true', order: 't.id' }, '2', 'ALL')).toContain('SELECT t.*, row_number()');
  });
});

describe('fairBatch over a pool', () => {
  const sql = fairBatch(
    {
      table: 'deliveries',
      alias: 'd',
      due: `d.status = 'pending' AND d.due_at <= now()`,
      order: 'd.due_at, d.id',
      pool: `d.status = 'pending'`,
      scope: `s.organization_id <> 'org_busy'`,
    },
    '$3',
    '$1',
  );

  it("walks the pool's organizations and modes one index descent at a time", () => {
    expect(sql).toContain(`FROM deliveries d WHERE d.status = 'pending' ORDER BY d.organization_id, d.mode LIMIT 1`);
    expect(sql).toContain(`WHERE d.status = 'pending' AND (d.organization_id, d.mode) > (s.organization_id, s.mode)`);
  });

  it("reads at most the cap of each served organization's due rows, in order, then takes them in turns", () => {
    expect(sql).toMatch(
      /WHERE \(s\.organization_id <> 'org_busy'\) AND d\.organization_id = s\.organization_id AND d\.mode = s\.mode AND d\.status = 'pending' AND d\.due_at <= now\(\)\s+ORDER BY d\.due_at, d\.id LIMIT \$3/,
    );
    expect(sql).toMatch(/ORDER BY d\.fair_turn, d\.due_at, d\.id\s+LIMIT \$1$/);
  });
});

describe('someOrganizationFull', () => {
  it.each([
    [[], 2, false],
    [[{ organization_id: 'a', mode: 'test' }], 1, true],
    [
      [
        { organization_id: 'a', mode: 'test' },
        { organization_id: 'a', mode: 'live' },
      ],
      2,
      false,
    ],
    [
      [
        { organization_id: 'a', mode: 'test' },
        { organization_id: 'b', mode: 'test' },
        { organization_id: 'a', mode: 'test' },
      ],
      2,
      true,
    ],
    [
      [
        { organizationId: 'a', mode: 'live' },
        { organizationId: 'a', mode: 'live' },
      ],
      2,
      true,
    ],
    [[{ organization_id: 'a' }, { organization_id: 'a' }, { organization_id: 'b' }], 3, false],
  ])('%j with a cap of %i: %s', (rows, cap, full) => {
    expect(someOrganizationFull(rows, cap)).toBe(full);
  });
});
