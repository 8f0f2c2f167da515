import { Money } from '../../../shared/money/money';
import { baseLineText, planText, readableDecimal, usageLineText } from './line-text';

const november = { start: new Date('2026-11-01T00:00:00Z'), end: new Date('2026-12-01T00:00:00Z') };

describe('period invoice line texts', () => {
  it('reads decimals exactly: grouped whole part, every fraction digit, no trailing zeros', () => {
    expect(readableDecimal(new Money('12500'))).toBe('12,500');
    expect(readableDecimal(new Money('1234567.250000000000000000000001'))).toBe('1,234,567.250000000000000000000001');
    expect(readableDecimal(new Money('0.5'))).toBe('0.5');
    expect(readableDecimal(new Money('999'))).toBe('999');
    expect(readableDecimal(new Money('0'))).toBe('0');
  });

  it('names the plan by product and schema, once when they are the same', () => {
    expect(planText('Acme API', 'Pro monthly')).toBe('Acme API, Pro monthly');
    expect(planText('Acme API', 'Acme API')).toBe('Acme API');
    expect(planText('Acme API', null)).toBe('Acme API');
    expect(planText('x'.repeat(500), 'Pro').length).toBeLessThan(220);
  });

  it('writes the base line with quantity and period, and marks a prorated one', () => {
    expect(baseLineText('Acme API, Pro monthly', 3, november, false)).toBe('Acme API, Pro monthly × 3, 2026-11-01 00:00:00 to 2026-12-01 00:00:00 UTC');
    expect(baseLineText('Pro', 1, { start: new Date('2026-11-16T10:15:00Z'), end: november.end }, true)).toBe(
      'Pro × 1, 2026-11-16 10:15:00 to 2026-12-01 00:00:00 UTC, prorated',
    );
  });

  it('writes the usage line with metric, exact quantity and period', () => {
    expect(usageLineText('Acme API, Pro monthly', 'API calls', new Money('12500'), november)).toBe(
      'Acme API, Pro monthly: API calls, 12,500 units, 2026-11-01 00:00:00 to 2026-12-01 00:00:00 UTC',
    );
    expect(usageLineText('Pro', 'Seats', new Money(1), november)).toBe('Pro: Seats, 1 unit, 2026-11-01 00:00:00 to 2026-12-01 00:00:00 UTC');
  });
});
