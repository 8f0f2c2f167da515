import { Money } from '../../../shared/money/money';
import { disagreements } from './source-agreement';
import type { SourceAnswer } from './source-answer';

const takenAt = new Date('2026-11-29T12:00:00Z');
const answer = (rates: Record<string, string | { problem: string }>): SourceAnswer =>
  Object.fromEntries(Object.entries(rates).map(([c, r]) => [c, typeof r === 'string' ? { usd: new Money(r), takenAt } : r]));
const spread = new Money('0.05');

describe('whether the rate sources agree', () => {
  it('finds nothing when every currency is within the spread, or quoted once', () => {
    const found = disagreements(
      [
        { source: 'a', answer: answer({ BITCOIN: '90000', ETHEREUM: '3000' }) },
        { source: 'b', answer: answer({ BITCOIN: '94500', LITECOIN: '80' }) },
      ],
      spread,
    );
    expect(found).toEqual([]);
  });

  it('names the currency, the lowest and highest answers and how far apart they are', () => {
    const found = disagreements(
      [
        { source: 'a', answer: answer({ BITCOIN: '90000', ETHEREUM: '3000' }) },
        { source: 'b', answer: answer({ BITCOIN: '90000.01', ETHEREUM: '3300' }) },
        { source: 'c', answer: answer({ BITCOIN: '100000', ETHEREUM: '3001' }) },
      ],
      spread,
    );
    expect(found).toEqual([
      { currency: 'BITCOIN', low: { source: 'a', rate: '90000' }, high: { source: 'c', rate: '100000' }, spread: '0.1111' },
      { currency: 'ETHEREUM', low: { source: 'a', rate: '3000' }, high: { source: 'b', rate: '3300' }, spread: '0.1' },
    ]);
  });

  it('measures from the lower answer, exactly at the spread is agreement', () => {
    expect(
      disagreements(
        [
          { source: 'a', answer: answer({ BITCOIN: '100' }) },
          { source: 'b', answer: answer({ BITCOIN: '105' }) },
        ],
        spread,
      ),
    ).toEqual([]);
    expect(
      disagreements(
        [
          { source: 'a', answer: answer({ BITCOIN: '100' }) },
          { source: 'b', answer: answer({ BITCOIN: '105.01' }) },
        ],
        spread,
      ),
    ).toHaveLength(1);
  });

  it('leaves unusable quotes out', () => {
    const found = disagreements(
      [
        { source: 'a', answer: answer({ BITCOIN: '100' }) },
        { source: 'b', answer: answer({ BITCOIN: { problem: 'not a decimal' } }) },
      ],
      spread,
    );
    expect(found).toEqual([]);
  });
});
