import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';

/**
 * Whether a webhook may be sent to an IP address with the guard on. The ranges come from
 * ipaddr.js (IANA special-purpose registries), not from patterns written here: an address must be
 * ordinary public unicast. Refused: private, loopback, link-local, carrier-grade NAT, unspecified,
 * broadcast, multicast, documentation, benchmarking and reserved ranges, and every IPv6 form that
 * carries or translates to IPv4 (IPv4-compatible ::/96, SIIT ::ffff:0:0:0/96, NAT64 64:ff9b::/96
 * and 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32) because what it reaches depends on a
 * translator, not on the address. An IPv4-mapped address (::ffff:a.b.c.d) is the IPv4 address
 * itself to the socket, so it is unwrapped and that address is classified.
 */
export function isPublicAddress(address: string): boolean {
  const bare = unbracket(address);
  const family = isIP(bare);
  if (family === 0) return false;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // IPv6 text goes through the WHATWG parser first: ipaddr.js reads `::a.b.c.d` as IPv4-mapped.
    parsed = ipaddr.parse(family === 6 ? unbracket(new URL(`http://[${bare}]/`).hostname) : bare);
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() === 'unicast';
  if (v6.range() !== 'unicast') return false;
  const parts = v6.parts;
  // IPv4-compatible (::a.b.c.d, deprecated by RFC 4291) is not a range of its own in the registry.
  if (parts.slice(0, 6).every((p) => p === 0)) return false;
  // Only 2000::/3 is allocated as global unicast; everything else is reserved by IANA.
  return (parts[0] & 0xe000) === 0x2000;
}

export function isIpLiteral(host: string): boolean {
  return isIP(unbracket(host)) !== 0;
}

function unbracket(address: string): string {
  return address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
}
