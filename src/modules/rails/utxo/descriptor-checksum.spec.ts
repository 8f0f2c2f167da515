import { checkDescriptorChecksum, descriptorChecksum } from './descriptor-checksum';

describe('descriptor checksums (BIP-380)', () => {
  it.each([
    // BIP-380's checksum vectors.
    ['raw(deadbeef)#89f8spxm', 'valid'],
    ['raw(deadbeef)', 'absent'],
    ['raw(deadbeef)#', 'malformed'],
    ['raw(deadbeef)#89f8spxmx', 'malformed'],
    ['raw(deadbeef)#89f8spx', 'malformed'],
    ['raw(deedbeef)#89f8spxm', 'wrong'],
    ['raw(deedbeef)##9f8spxm', 'malformed'],
    ['raw(Ü)#00000000', 'malformed'],
    // Bitcoin Core's descriptor documentation (doc/descriptors.md).
    ['pk(0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798)#gn28ywm7', 'valid'],
    ['pkh(02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5)#8fhd9pwu', 'valid'],
    ['wpkh(02f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9)#8zl0zxma', 'valid'],
  ])('%s: %s', (descriptor, expected) => {
    expect(checkDescriptorChecksum(descriptor).checksum).toBe(expected);
  });

  it('computes the checksum a wallet appends, and none for a character outside the set', () => {
    expect(descriptorChecksum('raw(deadbeef)')).toBe('89f8spxm');
    expect(descriptorChecksum('raw(Ü)')).toBeNull();
  });

  it('catches a changed script type, a changed path, a changed case and every one-character change of the checksum', () => {
    const script = 'wpkh([d34db33f/84h/0h/0h]02f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9/0/*)';
    const checksum = descriptorChecksum(script) as string;
    expect(checkDescriptorChecksum(`${script}#${checksum}`)).toEqual({ script, checksum: 'valid' });
    expect(checkDescriptorChecksum(`${script.slice(1)}#${checksum}`).checksum).toBe('wrong');
    expect(checkDescriptorChecksum(`${script.replace('84h', '49h')}#${checksum}`).checksum).toBe('wrong');
    expect(checkDescriptorChecksum(`${script.replace('/0/*', '/1/*')}#${checksum}`).checksum).toBe('wrong');
    expect(checkDescriptorChecksum(`${script.replace('d34db33f', 'D34DB33F')}#${checksum}`).checksum).toBe('wrong');
    for (let i = 0; i < checksum.length; i++) {
      const changed = checksum.slice(0, i) + (checksum[i] === 'q' ? 'p' : 'q') + checksum.slice(i + 1);
      expect(checkDescriptorChecksum(`${script}#${changed}`).checksum).toBe('wrong');
    }
  });
});
