import { addressTopic, bloomKey, bloomMayHold, hexBytes } from './logs-bloom';

/** A bloom with the bits of `items` set, as a block's header holds it. */
function bloomOf(items: Uint8Array[]): Uint8Array {
  const bloom = new Uint8Array(256);
  for (const item of items) for (const [byte, mask] of bloomKey(item)) bloom[byte] |= mask;
  return bloom;
}

describe('logs bloom', () => {
  const token = hexBytes('0xdac17f958d2ee523a2206206994597c13d831ec7');
  const payee = addressTopic('0x2222222222222222222222222222222222222222');
  const other = addressTopic('0x3333333333333333333333333333333333333333');

  it('sets three bits per item, each an 11-bit index counted from the last byte', () => {
    const key = bloomKey(token);
    expect(key).toHaveLength(3);
    for (const [byte, mask] of key) {
      expect(byte).toBeGreaterThanOrEqual(0);
      expect(byte).toBeLessThan(256);
      expect([1, 2, 4, 8, 16, 32, 64, 128]).toContain(mask);
    }
  });

  it('holds what was put in it and rules out what was not', () => {
    const bloom = bloomOf([token, payee]);
    expect(bloomMayHold(bloom, bloomKey(token))).toBe(true);
    expect(bloomMayHold(bloom, bloomKey(payee))).toBe(true);
    expect(bloomMayHold(bloom, bloomKey(other))).toBe(false);
    expect(bloomMayHold(new Uint8Array(256), bloomKey(token))).toBe(false);
  });

  it('rules nothing out of a bloom it does not know (not 256 bytes)', () => {
    expect(bloomMayHold(new Uint8Array(0), bloomKey(token))).toBe(true);
  });

  it('writes an address as an indexed topic holds it: 12 zero bytes, then the 20 bytes', () => {
    const topic = addressTopic('0x00000000000000000000000000000000000000ff');
    expect(topic).toHaveLength(32);
    expect([...topic.subarray(0, 31)].every((b) => b === 0)).toBe(true);
    expect(topic[31]).toBe(0xff);
    expect(() => hexBytes('0x123')).toThrow('not hex');
  });
});
