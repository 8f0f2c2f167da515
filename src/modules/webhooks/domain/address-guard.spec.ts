import { isIpLiteral, isPublicAddress } from './address-guard';
import { endpointUrlProblem } from './endpoint-url';

describe('address guard', () => {
  it.each([
    // IPv4: this network, private, loopback, link-local (cloud metadata), carrier-grade NAT,
    // IETF protocol assignments, documentation, 6to4 relay, benchmarking, multicast, reserved, broadcast
    '0.0.0.0',
    '0.1.2.3',
    '10.0.0.5',
    '10.255.255.255',
    '127.0.0.1',
    '127.1.2.3',
    '169.254.169.254',
    '169.254.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '100.127.255.254',
    '192.0.0.8',
    '192.0.2.1',
    '192.88.99.1',
    '198.18.0.1',
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
    // IPv6: unspecified, loopback, link-local, unique local, site-local, multicast, discard, documentation
    '::',
    '::1',
    'fe80::1',
    'fd00::1',
    'fc00::1',
    'fec0::1',
    'ff02::1',
    '100::1',
    '2001:db8::1',
    // IPv6 forms that carry IPv4: mapped (unwrapped to a private address), compatible, SIIT, NAT64, 6to4, Teredo
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a00:1',
    '::ffff:169.254.169.254',
    '::127.0.0.1',
    '::7f00:1',
    '::8.8.8.8',
    '::ffff:0:7f00:1',
    '::ffff:0:808:808',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b::8.8.8.8',
    '64:ff9b:1::7f00:1',
    '2002:7f00:1::1',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '2001::1',
    // outside 2000::/3, brackets, and things that are no address at all
    '1::1',
    '4000::1',
    '[::1]',
    '[::127.0.0.1]',
    '[::ffff:0:7f00:1]',
    '[2002:7f00:1::1]',
    '[64:ff9b:1::7f00:1]',
    'not-an-ip',
    '',
    '127.1',
    '0x7f.0.0.1',
  ])('refuses %p', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8', '[2a00:1450:4001::200e]'])('allows %p', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  // The WHATWG URL parser rewrites these hosts (`[::127.0.0.1]` becomes `[::7f00:1]`) before the guard sees them.
  it.each([
    'https://[::127.0.0.1]/hook',
    'https://[::ffff:0:7f00:1]/hook',
    'https://[2002:7f00:1::1]/hook',
    'https://[64:ff9b:1::7f00:1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[2001::1]/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://0x7f000001/hook',
    'https://127.1/hook',
  ])('refuses the URL %p with the guard on', (url) => {
    expect(endpointUrlProblem(url, false)).toBe('must not point at a private, loopback or link-local address');
  });

  it('tells IP literals from host names', () => {
    expect(isIpLiteral('127.0.0.1')).toBe(true);
    expect(isIpLiteral('[::1]')).toBe(true);
    expect(isIpLiteral('example.com')).toBe(false);
  });
});
