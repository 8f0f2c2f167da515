import { clientBucket } from './client-address';

describe('clientBucket', () => {
  it.each([
    ['192.0.2.10', '192.0.2.10'],
    ['::ffff:192.0.2.10', '192.0.2.10'],
    ['::ffff:c000:20a', '192.0.2.10'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:0000:0000:0000:0009', '2001:db8:1:2::/64'],
    ['[2001:db8:1:2::5]', '2001:db8:1:2::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['2001:db8::', '2001:db8:0:0::/64'],
    ['2001:db8:1:3::1', '2001:db8:1:3::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
    [undefined, 'unknown'],
    ['', 'unknown'],
    ['not an address', 'unknown'],
  ])('%s counts as %s', (address, bucket) => {
    expect(clientBucket(address)).toBe(bucket);
  });

  it('puts two addresses of one /64 in one bucket and the next /64 in another', () => {
    expect(clientBucket('2001:db8:aa:bb::1')).toBe(clientBucket('2001:db8:aa:bb:1234:5678:9abc:def0'));
    expect(clientBucket('2001:db8:aa:bb::1')).not.toBe(clientBucket('2001:db8:aa:bc::1'));
  });
});
