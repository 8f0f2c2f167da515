import { unitsOf, unitsPaidTo } from './utxo-follower';

describe('unitsOf', () => {
  it.each([
    ['0.10000000', 10_000_000n],
    ['1', 100_000_000n],
    ['20999999.99999999', 2_099_999_999_999_999n],
    ['0.00000001', 1n],
  ])('reads %s as %s satoshis', (value, units) => {
    expect(unitsOf(value)).toBe(units);
  });

  it.each(['-1', '0.000000001', '1e-8', ''])('refuses %p', (value) => {
    expect(() => unitsOf(value)).toThrow();
  });
});

describe('unitsPaidTo', () => {
  const payer = 'rltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9';
  const out = (value: string, address?: string, legacy = false) => ({
    value,
    scriptPubKey: address === undefined ? {} : legacy ? { addresses: [address] } : { address },
  });

  it('sums every output to the address, in satoshis', () => {
    const vout = [out('0.12345678', payer), out('3.5', 'rltc1qother'), out('0.00000002', payer)];
    expect(unitsPaidTo(vout, payer)).toBe(12_345_680n);
  });

  it('reads the older nodes’ `addresses` list and skips outputs without an address (OP_RETURN)', () => {
    expect(unitsPaidTo([out('0'), out('0.5', payer, true)], payer)).toBe(50_000_000n);
  });

  it('is 0 when nothing goes to the address', () => {
    expect(unitsPaidTo([out('1', 'rltc1qother')], payer)).toBe(0n);
    expect(unitsPaidTo([], payer)).toBe(0n);
  });

  it('matches a segwit address written in upper case, and a cashaddr with or without its prefix', () => {
    expect(unitsPaidTo([out('0.1', payer)], payer.toUpperCase())).toBe(10_000_000n);
    const cash = 'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a';
    expect(unitsPaidTo([out('0.2', cash)], cash.slice('bitcoincash:'.length))).toBe(20_000_000n);
  });

  it('keeps the case of a base58 address: another case is another address', () => {
    const legacy = 'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn';
    expect(unitsPaidTo([out('0.3', legacy)], legacy)).toBe(30_000_000n);
    expect(unitsPaidTo([out('0.3', legacy)], legacy.toLowerCase())).toBe(0n);
  });
});
