import { parseLsn } from './read-replicas';

describe('parseLsn', () => {
  it('reads pg_lsn text as the byte position, high word first', () => {
    expect(parseLsn('0/16B3748')).toBe(0x16b3748n);
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
  });

  it('orders positions as PostgreSQL does, across the word boundary', () => {
    expect(parseLsn('1/0') > parseLsn('0/FFFFFFFF')).toBe(true);
    expect(parseLsn('A/1') > parseLsn('9/FFFFFFFF')).toBe(true);
  });

  it('reads no position as 0', () => {
    expect(parseLsn(null)).toBe(0n);
    expect(parseLsn('')).toBe(0n);
  });
});
