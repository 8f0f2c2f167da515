import { randomBytes } from 'node:crypto';
import { isSealed, parseSecretKey, SecretBox, SecretBoxError } from './secret-box';

describe('SecretBox', () => {
  const keyA = randomBytes(32);
  const keyB = randomBytes(32);

  it('seals so that the stored text carries nothing of the secret, and opens it back', () => {
    const box = new SecretBox(keyA);
    const sealed = box.seal('whsec_abc', 'webhook_1');
    expect(sealed).toMatch(new RegExp(`^sealed:v1:${box.currentKeyId}:[A-Za-z0-9_-]+$`));
    expect(sealed).not.toContain('whsec');
    expect(box.seal('whsec_abc', 'webhook_1')).not.toBe(sealed);
    expect(box.open(sealed, 'webhook_1')).toBe('whsec_abc');
  });

  it('refuses a changed value, another context, and a key it does not have', () => {
    const box = new SecretBox(keyA);
    const sealed = box.seal('secret', 'row_1');
    expect(() => box.open(sealed, 'row_2')).toThrow(SecretBoxError);
    // One character of the ciphertext changed (not the last: its low bits may be padding the decoder drops).
    const at = sealed.length - 2;
    const flipped = sealed.slice(0, at) + (sealed[at] === 'A' ? 'B' : 'A') + sealed.slice(at + 1);
    expect(flipped).not.toBe(sealed);
    expect(() => box.open(flipped, 'row_1')).toThrow(SecretBoxError);
    expect(() => new SecretBox(keyB).open(sealed, 'row_1')).toThrow(/neither SECRETS_KEY nor in SECRETS_KEYS_OLD/);
  });

  it('rotates: a new current key still opens what an older key sealed, and says it needs sealing again', () => {
    const old = new SecretBox(keyA);
    const sealed = old.seal('secret');
    const rotated = new SecretBox(keyB, [keyA]);
    expect(rotated.open(sealed)).toBe('secret');
    expect(rotated.needsSealing(sealed)).toBe(true);
    const again = rotated.seal('secret');
    expect(rotated.needsSealing(again)).toBe(false);
    expect(() => old.open(again)).toThrow(SecretBoxError);
  });

  it('passes a legacy plain value through and marks it for sealing', () => {
    const box = new SecretBox(keyA);
    expect(isSealed('whsec_plain')).toBe(false);
    expect(box.open('whsec_plain', 'ctx')).toBe('whsec_plain');
    expect(box.needsSealing('whsec_plain')).toBe(true);
  });

  it.each([
    [Buffer.alloc(32, 1).toString('base64'), Buffer.alloc(32, 1)],
    [Buffer.alloc(32, 2).toString('hex'), Buffer.alloc(32, 2)],
    [Buffer.alloc(32, 3).toString('base64url'), Buffer.alloc(32, 3)],
  ])('reads the key %p', (text, key) => {
    expect(parseSecretKey(text)).toEqual(key);
  });

  it.each(['', 'short', Buffer.alloc(16).toString('base64'), Buffer.alloc(33).toString('hex')])('refuses the key %p', (text) => {
    expect(() => parseSecretKey(text)).toThrow(SecretBoxError);
  });
});
