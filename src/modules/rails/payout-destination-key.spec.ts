import { createHash } from 'node:crypto';
import { base58check } from '@scure/base';
import { payoutDestinationKey } from './payout-destination-key';

const b58 = base58check((d) => new Uint8Array(createHash('sha256').update(d).digest()));

describe('payoutDestinationKey', () => {
  const hash = new Uint8Array(20).fill(7);
  // One Litecoin test-chain script hash in its printed form (0x3a: Q...) and its old form (0xc4: 2...).
  const printed = b58.encode(Uint8Array.from([0x3a, ...hash]));
  const old = b58.encode(Uint8Array.from([0xc4, ...hash]));

  it('names one script the same way in both spellings, and applying it twice changes nothing', () => {
    expect(printed).toMatch(/^Q/);
    expect(old).toMatch(/^2/);
    const key = payoutDestinationKey('LITECOIN', printed);
    expect(payoutDestinationKey('litecoin', old)).toBe(key);
    expect(payoutDestinationKey('LITECOIN', key)).toBe(key);
    // Another script is another destination.
    expect(payoutDestinationKey('LITECOIN', b58.encode(Uint8Array.from([0x3a, ...new Uint8Array(20).fill(8)])))).not.toBe(key);
  });

  it('keeps an address as checked on networks with one spelling', () => {
    const evm = '0x52908400098527886E0F7030069857D2E4169EE7';
    expect(payoutDestinationKey('ETHEREUM', evm)).toBe(evm);
    expect(payoutDestinationKey('SOLANA', '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin')).toBe('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin');
  });
});
