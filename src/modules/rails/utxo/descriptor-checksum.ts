/**
 * The checksum of an output descriptor (BIP-380, as Bitcoin Core writes and checks it after `#`): a
 * BCH code over the descriptor's characters, 8 characters of the bech32 alphabet. A wallet computes it
 * when it exports the descriptor, so a descriptor changed afterwards (another script type, another
 * derivation path, one character mistyped) no longer matches its checksum.
 */

/**
 * The characters a descriptor may contain, in three groups of 32. A character is read as its place in
 * its group (5 bits) plus its group number; three group numbers make one more symbol.
 */
const CHARACTERS = "0123456789()[],'/*abcdefgh@:$%{}" + 'IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~' + 'ijklmnopqrstuvwxyzABCDEFGH`#"\\ ';
/** The checksum's alphabet (bech32's): a 5-bit symbol per character. */
const CHECKSUM_ALPHABET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const CHECKSUM_LENGTH = 8;
/** The code's generator: what each of the 5 bits shifted out of the 40-bit state adds back. */
const GENERATOR = [0xf5dee51989n, 0xa9fdca3312n, 0x1bab10e32dn, 0x3706b1677an, 0x644d626ffdn];
const LOW_35_BITS = (1n << 35n) - 1n;

/** The state after one more 5-bit symbol (a step of the polynomial division over GF(32)). */
function step(state: bigint, symbol: number): bigint {
  const top = state >> 35n;
  let next = ((state & LOW_35_BITS) << 5n) ^ BigInt(symbol);
  for (let bit = 0; bit < 5; bit++) if ((top >> BigInt(bit)) & 1n) next ^= GENERATOR[bit];
  return next;
}

/**
 * The 8-character checksum of a descriptor written without its `#` part, or null when the text holds a
 * character outside the descriptor character set (no checksum exists for it).
 */
export function descriptorChecksum(script: string): string | null {
  let state = 1n;
  let groups = 0;
  let grouped = 0;
  for (const char of script) {
    const place = CHARACTERS.indexOf(char);
    if (place < 0) return null;
    state = step(state, place % 32);
    groups = groups * 3 + Math.floor(place / 32);
    if (++grouped === 3) {
      state = step(state, groups);
      groups = 0;
      grouped = 0;
    }
  }
  if (grouped > 0) state = step(state, groups);
  for (let i = 0; i < CHECKSUM_LENGTH; i++) state = step(state, 0);
  state ^= 1n;
  let checksum = '';
  for (let i = CHECKSUM_LENGTH - 1; i >= 0; i--) checksum += CHECKSUM_ALPHABET[Number((state >> BigInt(5 * i)) & 31n)];
  return checksum;
}

/**
 * A descriptor split at its `#`: `absent` (no `#`: nothing to check), `valid`, `wrong` (8 characters
 * of the alphabet that are not the descriptor's checksum) or `malformed` (a `#` followed by anything
 * else, or a character outside the character set). `script` is the part before the `#`.
 */
export function checkDescriptorChecksum(descriptor: string): { script: string; checksum: 'absent' | 'valid' | 'wrong' | 'malformed' } {
  const hash = descriptor.indexOf('#');
  if (hash < 0) return { script: descriptor, checksum: 'absent' };
  const script = descriptor.slice(0, hash);
  const given = descriptor.slice(hash + 1);
  if (given.length !== CHECKSUM_LENGTH || [...given].some((c) => !CHECKSUM_ALPHABET.includes(c))) return { script, checksum: 'malformed' };
  const expected = descriptorChecksum(script);
  if (expected === null) return { script, checksum: 'malformed' };
  return { script, checksum: expected === given ? 'valid' : 'wrong' };
}
