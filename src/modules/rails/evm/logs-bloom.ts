import { viem } from './viem';

/**
 * A block's logs bloom (the header's `logsBloom`, 2048 bits) asked whether it may hold an item: a log's
 * contract address (20 bytes) or one of its topics (32 bytes). Each item sets three bits, taken from the
 * first three pairs of bytes of its keccak-256 (11 bits each); the bloom's byte 0 holds the highest bits.
 * "No" is certain; "yes" may be a false positive (a full block's bloom says yes to much).
 */
export type BloomKey = ReadonlyArray<readonly [byte: number, mask: number]>;

/** The three bits an item sets, worked out once and tested against many blooms. */
export function bloomKey(item: Uint8Array): BloomKey {
  const h = viem().keccak256(item, 'bytes');
  const key: Array<readonly [number, number]> = [];
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i] << 8) | h[i + 1]) & 2047;
    key.push([255 - (bit >> 3), 1 << (bit & 7)]);
  }
  return key;
}

/** A 20-byte address as a log topic holds it (an indexed address argument): 12 zero bytes, then the address. */
export function addressTopic(address: string): Uint8Array {
  const topic = new Uint8Array(32);
  topic.set(hexBytes(address), 12);
  return topic;
}

export function hexBytes(hex: string): Uint8Array {
  const digits = hex.replace(/^0x/i, '');
  if (digits.length % 2 !== 0 || !/^[0-9a-f]*$/i.test(digits)) throw new Error(`not hex: ${hex}`);
  const out = new Uint8Array(digits.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(digits.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Whether `bloom` (256 bytes) may hold the item `key` stands for. */
export function bloomMayHold(bloom: Uint8Array, key: BloomKey): boolean {
  if (bloom.length !== 256) return true; // not a bloom this code knows: nothing can be ruled out
  return key.every(([byte, mask]) => (bloom[byte] & mask) !== 0);
}
