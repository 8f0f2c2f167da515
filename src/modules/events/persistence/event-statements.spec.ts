import { EVENT_COUNT_CAP, eventCountBound, eventListStatements, eventListTotal } from './event-statements';

describe("the events list's bounded count", () => {
  it('counts up to the cap, or to the end of a page asked for past it, and one more', () => {
    expect(eventCountBound({ limit: 20, offset: 0 })).toBe(EVENT_COUNT_CAP + 1);
    expect(eventCountBound({ limit: 100, offset: EVENT_COUNT_CAP - 100 })).toBe(EVENT_COUNT_CAP + 1);
    expect(eventCountBound({ limit: 20, offset: EVENT_COUNT_CAP })).toBe(EVENT_COUNT_CAP + 21);
  });

  it('is exact below the bound; at it, the bound less one (at least the page end) and not exact', () => {
    expect(eventListTotal(0, 10_001)).toEqual({ total: 0, exact: true });
    expect(eventListTotal(10_000, 10_001)).toEqual({ total: 10_000, exact: true });
    expect(eventListTotal(10_001, 10_001)).toEqual({ total: 10_000, exact: false });
    expect(eventListTotal(10_021, 10_021)).toEqual({ total: 10_020, exact: false });
  });

  it('puts the bound last among the count statement’s parameters', () => {
    const { count, params } = eventListStatements('org_1', 'test', { types: ['invoice.created'], limit: 20, offset: 0 });
    expect(params).toHaveLength(3);
    expect(count).toMatch(/LIMIT \$4\) matched$/);
  });
});
