import { boundedCountSql, boundedListFields, boundedTotal, COUNT_CAP, countBound, runBoundedCount } from './bounded-count';

describe('bounded counts of long lists', () => {
  it('count up to the cap, or to the end of a page asked for past it, and one more', () => {
    expect(countBound({ limit: 20, offset: 0 })).toBe(COUNT_CAP + 1);
    expect(countBound({ limit: 100, offset: COUNT_CAP - 100 })).toBe(COUNT_CAP + 1);
    expect(countBound({ limit: 20, offset: COUNT_CAP })).toBe(COUNT_CAP + 21);
  });

  it('are exact below the bound; at it, the bound less one (at least the page end) and not exact', () => {
    expect(boundedTotal(0, 10_001)).toEqual({ total: 0, exact: true });
    expect(boundedTotal(10_000, 10_001)).toEqual({ total: 10_000, exact: true });
    expect(boundedTotal(10_001, 10_001)).toEqual({ total: 10_000, exact: false });
    expect(boundedTotal(10_021, 10_021)).toEqual({ total: 10_020, exact: false });
  });

  it('say there is more after a page whenever the count stopped at its cap, and exactly otherwise', () => {
    expect(boundedListFields({ limit: 20, offset: 0, shown: 20 }, { total: 10_000, exact: false })).toEqual({
      total: 10_000,
      total_exact: false,
      limit: 20,
      offset: 0,
      has_more: true,
    });
    expect(boundedListFields({ limit: 20, offset: 20, shown: 20 }, { total: 40, exact: true }).has_more).toBe(false);
    expect(boundedListFields({ limit: 20, offset: 0, shown: 20 }, { total: 21, exact: true }).has_more).toBe(true);
  });

  it('stop the count with a LIMIT on the given parameter', () => {
    expect(boundedCountSql('events', 'organization_id = $1', 2)).toBe(
      'SELECT count(*)::int AS total FROM (SELECT 1 FROM events WHERE organization_id = $1 LIMIT $2) matched',
    );
  });

  it("run the count with the page's bound as the last parameter", async () => {
    const sent: unknown[][] = [];
    const query = (_sql: string, params: unknown[]) => {
      sent.push(params);
      return Promise.resolve([{ total: 10_001 }]);
    };
    expect(await runBoundedCount(query, 'SELECT ...', ['org_1', 'test'], { limit: 20, offset: 0 })).toEqual({ total: 10_000, exact: false });
    expect(sent).toEqual([['org_1', 'test', 10_001]]);
  });
});
