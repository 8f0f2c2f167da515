import { parseExact } from './node-json';
import { lamportsDelta } from './solana/solana-follower';

describe('parseExact (a chain node answer)', () => {
  it('keeps whole numbers past 2^53 exact as bigints, and the rest as numbers', () => {
    expect(parseExact('{"a":18446744073709551615,"b":5000,"c":1.5,"d":"9007199254740993"}')).toEqual({
      a: 18446744073709551615n,
      b: 5000,
      c: 1.5,
      d: '9007199254740993',
    });
    expect(parseExact('{"slot":312000000,"err":null}')).toEqual({ slot: 312000000, err: null });
  });

  it('gives the lamports a transaction moved exactly on a balance of more than 2^53 lamports', () => {
    // 2^53 + 1 lamports before, 2^53 + 3 after: two lamports gained (a double would make it 4 or 0).
    const tx = parseExact(
      '{"slot":1,"blockTime":null,"meta":{"err":null,"preBalances":[5000,9007199254740993],"postBalances":[3000,9007199254740995]},' +
        '"transaction":{"signatures":["s"],"message":{"accountKeys":["payer","wallet"]}}}',
    ) as Parameters<typeof lamportsDelta>[0];
    expect(lamportsDelta(tx, 'wallet')).toBe(2n);
    expect(lamportsDelta(tx, 'payer')).toBe(-2000n);
  });
});
