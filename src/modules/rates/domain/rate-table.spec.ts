import { CURRENCIES } from '../../../shared/money/currency';
import { Money } from '../../../shared/money/money';
import { BUNDLED_SNAPSHOT } from './default-snapshot';
import { completeSnapshot, parseSnapshotFile, RateTable, SnapshotFileError } from './rate-table';

function table(): RateTable {
  const usd = Object.fromEntries(Object.entries(BUNDLED_SNAPSHOT.rates).map(([c, r]) => [c, new Money(r)])) as RateTable['usd'];
  const origins = Object.fromEntries(
    Object.keys(usd).map((c) => [c, { source: 'bundled', takenAt: new Date('2026-11-20T00:00:00Z') }]),
  ) as RateTable['origins'];
  return { snapshotId: 'rates_1', takenAt: new Date('2026-11-20T00:00:00Z'), usd, origins };
}

describe('rates snapshot files', () => {
  it('ships a positive rate for every one of the 49 currencies, USD being 1', () => {
    expect(CURRENCIES).toHaveLength(49);
    for (const c of CURRENCIES) expect(new Money(BUNDLED_SNAPSHOT.rates[c]).gt(0)).toBe(true);
    expect(BUNDLED_SNAPSHOT.rates.USD).toBe('1');
  });

  it('reads a file and keeps rates exact', () => {
    const input = parseSnapshotFile({ taken_at: '2026-11-21 12:00:00', rates: { BITCOIN: '95000.123456789012345678901234567891', EUR: 1 } });
    expect(input.takenAt.toISOString()).toBe('2026-11-21T12:00:00.000Z');
    expect(input.rates.BITCOIN?.toString()).toBe('95000.123456789012345678901234567891');
    expect(input.source).toBe('import');
  });

  it.each([
    [{ rates: { EUR: '1.1' } }, 'taken_at'],
    [{ taken_at: 'yesterday', rates: { EUR: '1.1' } }, 'taken_at'],
    [{ taken_at: '2026-11-21', rates: [] }, 'rates'],
    [{ taken_at: '2026-11-21', rates: { XYZ: '1' } }, 'rates.XYZ'],
    [{ taken_at: '2026-11-21', rates: { EUR: '-1' } }, 'rates.EUR'],
    [{ taken_at: '2026-11-21', rates: { EUR: '0' } }, 'rates.EUR'],
    [{ taken_at: '2026-11-21', rates: { EUR: 1.5 } }, 'rates.EUR'],
    [{ taken_at: '2026-11-21', rates: { EUR: '1e3' } }, 'rates.EUR'],
  ])('refuses %j at %s', (doc, field) => {
    try {
      parseSnapshotFile(doc);
      throw new Error('expected a failure');
    } catch (e) {
      expect(e).toBeInstanceOf(SnapshotFileError);
      expect(Object.keys((e as SnapshotFileError).fields)).toContain(field);
    }
  });

  it('carries currencies left out over from the previous snapshot', () => {
    const full = completeSnapshot(parseSnapshotFile({ taken_at: '2026-11-21', rates: { EUR: '1.2' } }), table());
    expect(full.usd.EUR.toString()).toBe('1.2');
    expect(full.usd.BITCOIN.toString()).toBe('91250.42');
    // The new rate is the file's; the carried one keeps its old time and source.
    expect(full.origins.EUR).toEqual({ source: 'import', takenAt: new Date('2026-11-21T00:00:00Z') });
    expect(full.origins.BITCOIN).toEqual({ source: 'bundled', takenAt: new Date('2026-11-20T00:00:00Z') });
  });

  it('needs every currency when there is no previous snapshot, and USD at 1', () => {
    expect(() => completeSnapshot(parseSnapshotFile({ taken_at: '2026-11-21', rates: { EUR: '1.2' } }), null)).toThrow(SnapshotFileError);
    expect(() => completeSnapshot(parseSnapshotFile({ taken_at: '2026-11-21', rates: { USD: '2' } }), table())).toThrow(/USD/);
  });
});
