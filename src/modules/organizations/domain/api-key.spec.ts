import { displayPrefix, generateApiKey, hashApiKey, keyFromAuthorization, modeOfKey } from './api-key';

describe('api keys', () => {
  it.each(['test', 'live'] as const)('generates %s keys of the documented shape', (mode) => {
    const key = generateApiKey(mode);
    expect(key).toMatch(new RegExp(`^sk_${mode}_[0-9A-Za-z]{40}$`));
    expect(modeOfKey(key)).toBe(mode);
  });

  it('never generates the same key twice in a thousand', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey('test')));
    expect(keys.size).toBe(1000);
  });

  it('hashes with SHA-256 hex and shows a short prefix', () => {
    expect(hashApiKey('sk_test_abc')).toMatch(/^[0-9a-f]{64}$/);
    expect(displayPrefix('sk_live_ABCDEFGHIJKLMNOP')).toBe('sk_live_ABCDEF');
  });

  it.each([
    [undefined, null],
    ['sk_test_x', 'sk_test_x'],
    ['Bearer sk_test_x', 'sk_test_x'],
    ['bearer   sk_live_y ', 'sk_live_y'],
    [`Basic ${Buffer.from('sk_test_x:').toString('base64')}`, 'sk_test_x'],
    [`basic ${Buffer.from(':sk_live_y').toString('base64')}`, 'sk_live_y'],
    [`Basic ${Buffer.from('sk_test_z').toString('base64')}`, 'sk_test_z'],
  ])('reads the key from Authorization %p', (header, expected) => {
    expect(keyFromAuthorization(header)).toBe(expected);
  });

  it.each(['sk_prod_' + 'a'.repeat(40), 'sk_test_short', 'pk_test_' + 'a'.repeat(40), 'sk_test_' + 'a'.repeat(39) + '!'])('rejects malformed key %s', (key) =>
    expect(modeOfKey(key)).toBeNull(),
  );
});
