import { isIPv4, isIPv6 } from 'node:net';

/**
 * The budget a client address draws from. An IPv4 address is one client. An IPv6 address is
 * counted by its /64: one subscriber (a home, a VM, a phone) is normally given a whole /64 and can
 * pick any of its 2^64 addresses, so counting single addresses would let it rotate past every
 * limit. An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, what a dual-stack socket reports for an
 * IPv4 peer) is its IPv4 address. Anything else (no address at all) shares one bucket.
 */
export function clientBucket(address: string | undefined): string {
  if (!address) return 'unknown';
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const zoneless = bare.split('%')[0];
  if (isIPv4(zoneless)) return zoneless;
  if (!isIPv6(zoneless)) return 'unknown';
  const groups = expandIPv6(zoneless.toLowerCase());
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (mapped) return `${groups[6] >> 8}.${groups[6] & 0xff}.${groups[7] >> 8}.${groups[7] & 0xff}`;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (with `::` and a trailing dotted IPv4 part). */
function expandIPv6(address: string): number[] {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const missing = 8 - left.length - right.length;
  const all = tail === undefined ? left : [...left, ...Array<string>(missing).fill('0'), ...right];
  return all.map((g) => parseInt(g, 16));
}
