import { createHash } from 'node:crypto';
import { base58check } from '@scure/base';
import { cashaddrEncode } from './cashaddr';
import { soleAddressOf, unitsOf, unitsPaidTo } from './utxo-follower';

const b58 = base58check((d) => new Uint8Array(createHash('sha256').update(d).digest()));
/** A base58check address of `version` for a 20-byte hash. */
const base58Address = (version: number, hash: Uint8Array) => b58.encode(Uint8Array.from([version, ...hash]));

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
    scriptPubKey: address === undefined ? {} : legacy ? { type: 'witness_v0_keyhash', addresses: [address] } : { address },
  });

  it('sums every output to the address, in satoshis', () => {
    const vout = [out('0.12345678', payer), out('3.5', 'rltc1qother'), out('0.00000002', payer)];
    expect(unitsPaidTo(vout, payer)).toBe(12_345_680n);
  });

  it('reads the older nodes’ `addresses` list and skips outputs without an address (OP_RETURN)', () => {
    expect(unitsPaidTo([out('0'), out('0.5', payer, true)], payer)).toBe(50_000_000n);
  });

  it('counts nothing of a bare multisig or bare pubkey output that lists the address (as Litecoin Core 0.21 prints them)', () => {
    const legacy = 'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn';
    const other = 'mg1iZRXpHgA6AMKzKHUhkijPd7RLW1Rgiw';
    const vout = [
      { value: '0.5', scriptPubKey: { type: 'multisig', addresses: [legacy, other] } },
      { value: '0.25', scriptPubKey: { type: 'multisig', addresses: [other, legacy] } },
      { value: '0.125', scriptPubKey: { type: 'pubkey', addresses: [legacy] } },
      { value: '0.0625', scriptPubKey: { type: 'pubkeyhash', addresses: [legacy] } },
    ];
    expect(unitsPaidTo(vout, legacy)).toBe(6_250_000n);
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

  it("matches a payer's address written in a form the node does not print: Litecoin's old 3... and Bitcoin Cash's legacy 1...", () => {
    const hash = createHash('sha256').update('a script').digest().subarray(0, 20);
    // Litecoin Core prints a script hash as M... (0x32); payers' wallets may still give it as 3... (0x05).
    expect(unitsPaidTo([out('0.4', base58Address(0x32, hash))], base58Address(0x05, hash))).toBe(40_000_000n);
    expect(unitsPaidTo([out('0.4', base58Address(0x3a, hash))], base58Address(0xc4, hash))).toBe(40_000_000n);
    // Bitcoin Cash Node prints cashaddr; a legacy key-hash or script-hash address is the same script.
    expect(unitsPaidTo([out('0.5', cashaddrEncode('bitcoincash', 'p2pkh', hash))], base58Address(0x00, hash))).toBe(50_000_000n);
    expect(unitsPaidTo([out('0.5', cashaddrEncode('bchreg', 'p2sh', hash))], base58Address(0xc4, hash))).toBe(50_000_000n);
    // The same hash as another kind of script is another address.
    expect(unitsPaidTo([out('0.5', cashaddrEncode('bitcoincash', 'p2sh', hash))], base58Address(0x00, hash))).toBe(0n);
    expect(unitsPaidTo([out('0.4', base58Address(0x30, hash))], base58Address(0x05, hash))).toBe(0n);
  });

  it('keeps the case of a base58 address: another case is another address', () => {
    const legacy = 'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn';
    expect(unitsPaidTo([out('0.3', legacy)], legacy)).toBe(30_000_000n);
    expect(unitsPaidTo([out('0.3', legacy)], legacy.toLowerCase())).toBe(0n);
  });
});

describe('soleAddressOf', () => {
  const a = 'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn';
  const b = 'mg1iZRXpHgA6AMKzKHUhkijPd7RLW1Rgiw';
  it.each([
    ['a newer node’s address', { type: 'witness_v0_keyhash', address: a }, a],
    ['an address without a type', { address: a }, a],
    ['one listed address of a pubkeyhash script', { type: 'pubkeyhash', addresses: [a] }, a],
    ['one listed address of a scripthash script', { type: 'scripthash', addresses: [a] }, a],
    ['one listed address of a taproot script', { type: 'witness_v1_taproot', addresses: [a] }, a],
    ['a bare 1-of-2 multisig', { type: 'multisig', addresses: [a, b] }, null],
    ['a bare 1-of-1 multisig', { type: 'multisig', addresses: [a] }, null],
    ['a bare pubkey', { type: 'pubkey', addresses: [a] }, null],
    ['a multisig with an address anyway', { type: 'multisig', address: a }, null],
    ['a nonstandard script', { type: 'nonstandard' }, null],
    ['OP_RETURN', { type: 'nulldata' }, null],
    ['two addresses of a single-address type', { type: 'pubkeyhash', addresses: [a, b] }, null],
    ['a list without a type', { addresses: [a] }, null],
    ['an empty list', { type: 'pubkeyhash', addresses: [] }, null],
    ['nothing', {}, null],
  ])('%s -> %p', (_, script, expected) => {
    expect(soleAddressOf(script)).toBe(expected);
  });
});
