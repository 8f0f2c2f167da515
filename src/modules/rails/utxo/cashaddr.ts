/**
 * CashAddr, the address format of Bitcoin Cash (the 2017 specification, "cashaddr.md" of the
 * Bitcoin Cash specification repository): `<prefix>:<base32 of version byte + hash><40-bit BCH checksum>`.
 * Only what the rail needs: encoding a 20-byte hash as a P2PKH or P2SH address, and reading one back. It
 * is an encoding of a hash the key library computed, no key arithmetic; tested with the specification's vectors.
 */
const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATORS = [0x98f2bc8e61n, 0x79b76d99e2n, 0xf33e5fb3c4n, 0xae2eabe2a8n, 0x1e4f43e470n];

function polymod(values: readonly number[]): bigint {
  let c = 1n;
  for (const d of values) {
    const c0 = c >> 35n;
    c = ((c & 0x07ffffffffn) << 5n) ^ BigInt(d);
    GENERATORS.forEach((g, i) => {
      if ((c0 >> BigInt(i)) & 1n) c ^= g;
    });
  }
  return c ^ 1n;
}

/** 8-bit bytes to 5-bit groups, the last one padded with zero bits. */
function toFiveBits(bytes: Uint8Array): number[] {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const byte of bytes) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out.push((acc >> bits) & 31);
    }
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) out.push((acc << (5 - bits)) & 31);
  return out;
}

/** The CashAddr of a 20-byte hash: P2PKH (type 0) or P2SH (type 1), with the prefix. */
export function cashaddrEncode(prefix: string, type: 'p2pkh' | 'p2sh', hash: Uint8Array): string {
  if (hash.length !== 20) throw new RangeError('cashaddr: only 20-byte hashes are written');
  const versionByte = (type === 'p2pkh' ? 0 : 1) << 3; // size bits 000 = 160-bit hash
  const payload = toFiveBits(Uint8Array.from([versionByte, ...hash]));
  const prefixBits = [...prefix].map((ch) => ch.charCodeAt(0) & 31);
  const checksum = polymod([...prefixBits, 0, ...payload, 0, 0, 0, 0, 0, 0, 0, 0]);
  const checkGroups = Array.from({ length: 8 }, (_, i) => Number((checksum >> BigInt(5 * (7 - i))) & 31n));
  return `${prefix}:${[...payload, ...checkGroups].map((d) => CHARSET[d]).join('')}`;
}

/**
 * Reads a CashAddr a payer typed (`prefix:payload`, the prefix may be left out), lower case: null when
 * the text is not shaped like one of these prefixes' CashAddrs; false when it is but its checksum is
 * wrong; else the address with its prefix.
 */
export function cashaddrCheck(address: string, prefixes: readonly string[]): string | false | null {
  const colon = address.indexOf(':');
  if (colon >= 0 && !prefixes.includes(address.slice(0, colon))) return null;
  const candidates = colon >= 0 ? [address.slice(0, colon)] : prefixes;
  const payload = colon >= 0 ? address.slice(colon + 1) : address;
  if (!/^[qp][qpzry9x8gf2tvdw0s3jn54khce6mua7l]{41}$/.test(payload)) return null;
  const data = [...payload].map((ch) => CHARSET.indexOf(ch));
  for (const prefix of candidates) {
    const prefixBits = [...prefix].map((ch) => ch.charCodeAt(0) & 31);
    if (polymod([...prefixBits, 0, ...data]) === 0n) return `${prefix}:${payload}`;
  }
  return false;
}

/**
 * The script type and 20-byte hash a CashAddr stands for (its prefix optional, any one case), or null when
 * the text is not shaped like one. Its checksum is not checked: this reads addresses already checked, or
 * printed by the node, to compare them with others of the same script written another way.
 */
export function cashaddrPayload(address: string): { type: 'p2pkh' | 'p2sh'; hash: Uint8Array } | null {
  const lower = address.trim().toLowerCase();
  const payload = lower.includes(':') ? lower.slice(lower.indexOf(':') + 1) : lower;
  if (!/^[qp][qpzry9x8gf2tvdw0s3jn54khce6mua7l]{41}$/.test(payload)) return null;
  // 34 groups of 5 bits before the 8 of the checksum: the version byte, the hash, 2 bits of padding.
  const bytes: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const ch of payload.slice(0, 34)) {
    acc = (acc << 5) | CHARSET.indexOf(ch);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((acc >> bits) & 0xff);
    }
    acc &= (1 << bits) - 1;
  }
  const version = bytes[0];
  if ((version & 0x07) !== 0 || version >> 3 > 1) return null;
  return { type: version >> 3 === 0 ? 'p2pkh' : 'p2sh', hash: Uint8Array.from(bytes.slice(1, 21)) };
}
