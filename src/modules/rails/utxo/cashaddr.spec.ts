import { cashaddrEncode, cashaddrPayload } from './cashaddr';

const hex = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));

describe('cashaddrEncode', () => {
  // The specification's vectors for a 160-bit hash.
  it.each([
    ['bitcoincash', 'p2pkh', 'F5BF48B397DAE70BE82B3CCA4793F8EB2B6CDAC9', 'bitcoincash:qr6m7j9njldwwzlg9v7v53unlr4jkmx6eylep8ekg2'],
    ['bchtest', 'p2sh', 'F5BF48B397DAE70BE82B3CCA4793F8EB2B6CDAC9', 'bchtest:pr6m7j9njldwwzlg9v7v53unlr4jkmx6eyvwc0uz5t'],
    ['pref', 'p2sh', 'F5BF48B397DAE70BE82B3CCA4793F8EB2B6CDAC9', 'pref:pr6m7j9njldwwzlg9v7v53unlr4jkmx6ey65nvtks5'],
    // The legacy addresses 1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu and 3CWFddi6m4ndiGyKqzYvsFYagqDLPVMTzC in CashAddr.
    ['bitcoincash', 'p2pkh', '76a04053bda0a88bda5177b86a15c3b29f559873', 'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a'],
    ['bitcoincash', 'p2sh', '76a04053bda0a88bda5177b86a15c3b29f559873', 'bitcoincash:ppm2qsznhks23z7629mms6s4cwef74vcwvn0h829pq'],
  ] as const)('%s %s %s', (prefix, type, hash, address) => {
    expect(cashaddrEncode(prefix, type, hex(hash))).toBe(address);
  });
});

describe('cashaddrPayload', () => {
  it('reads back the type and hash an address was written from, with or without its prefix, in either case', () => {
    const hash = Uint8Array.from({ length: 20 }, (_, i) => i * 13);
    for (const type of ['p2pkh', 'p2sh'] as const) {
      const address = cashaddrEncode('bchtest', type, hash);
      for (const text of [address, address.slice('bchtest:'.length), address.toUpperCase()]) {
        const read = cashaddrPayload(text)!;
        expect(read.type).toBe(type);
        expect(Buffer.from(read.hash).toString('hex')).toBe(Buffer.from(hash).toString('hex'));
      }
    }
    expect(cashaddrPayload('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4')).toBeNull();
  });
});
