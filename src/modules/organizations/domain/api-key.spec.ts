import {
  checkGraceSeconds,
  checkKeyName,
  displayPrefix,
  generateApiKey,
  hashApiKey,
  keyAccepted,
  keyFromAuthorization,
  MAX_ROLL_GRACE_SECONDS,
  modeOfKey,
  UsageNotes,
  USAGE_WRITE_INTERVAL_MS,
} from './api-key';

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

describe('key names, roll grace periods and usage notes', () => {
  it('trims names, refuses long ones and control characters', () => {
    expect(checkKeyName('  Shop backend ')).toBe('Shop backend');
    expect(checkKeyName(undefined)).toBe('');
    expect(() => checkKeyName('x'.repeat(101))).toThrow(/name/);
    expect(() => checkKeyName('a\nb')).toThrow(/name/);
    expect(() => checkKeyName(5)).toThrow(/name/);
  });

  it.each([
    [0, 0],
    ['3600', 3600],
    [MAX_ROLL_GRACE_SECONDS, MAX_ROLL_GRACE_SECONDS],
  ])('takes a grace period of %j seconds', (input, expected) => {
    expect(checkGraceSeconds(input)).toBe(expected);
  });

  it.each([[-1], [MAX_ROLL_GRACE_SECONDS + 1], [1.5], ['1h'], [null]])('refuses a grace period of %j', (input) => {
    expect(() => checkGraceSeconds(input)).toThrow(/grace_seconds/);
  });

  it('accepts a rolled key until the end of its grace period, not at it', () => {
    const end = new Date('2026-11-29T10:00:00Z');
    expect(keyAccepted(null, end)).toBe(true);
    expect(keyAccepted(end, new Date(end.getTime() - 1))).toBe(true);
    expect(keyAccepted(end, end)).toBe(false);
  });

  it('notes a key at most once a minute, and gives notes back after a failed write', () => {
    const notes = new UsageNotes();
    const t0 = new Date('2026-11-29T10:00:00Z');
    notes.note('key_a', t0);
    notes.note('key_a', new Date(t0.getTime() + 1000));
    notes.note('key_b', t0);
    expect(notes.take()).toEqual([
      { keyId: 'key_a', at: new Date(t0.getTime() + 1000) },
      { keyId: 'key_b', at: t0 },
    ]);
    // Within the minute after it was taken for writing: not noted again.
    notes.note('key_a', new Date(t0.getTime() + 30_000));
    expect(notes.take()).toEqual([]);
    const later = new Date(t0.getTime() + 1000 + USAGE_WRITE_INTERVAL_MS);
    notes.note('key_a', later);
    const taken = notes.take();
    expect(taken).toEqual([{ keyId: 'key_a', at: later }]);
    notes.restore(taken);
    expect(notes.take()).toEqual([{ keyId: 'key_a', at: later }]);
  });

  it('keeps at most its limit of pending keys', () => {
    const notes = new UsageNotes(2);
    for (const k of ['a', 'b', 'c']) notes.note(k, new Date());
    expect(notes.take().map((n) => n.keyId)).toEqual(['a', 'b']);
  });
});
