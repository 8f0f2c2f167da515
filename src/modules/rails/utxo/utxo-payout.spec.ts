import { createHash } from 'node:crypto';
import { base58check, bech32, bech32m } from '@scure/base';
import { checkUtxoPayoutAddress, checkUtxoTransactionId, utxoPayoutUri } from './utxo-payout';

const b58 = base58check((d) => new Uint8Array(createHash('sha256').update(d).digest()));
const legacy = (version: number) => b58.encode(Uint8Array.from([version, ...new Array<number>(20).fill(7)]));
const segwit = (hrp: string, version: number, bytes: number) =>
  (version === 0 ? bech32 : bech32m).encode(hrp, [version, ...(version === 0 ? bech32 : bech32m).toWords(new Uint8Array(bytes).fill(9))]);

describe('checkUtxoPayoutAddress', () => {
  it.each([
    ['bitcoin', 'live', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
    ['bitcoin', 'live', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy'],
    ['bitcoin', 'live', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'],
    ['bitcoin', 'live', 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4'],
    ['bitcoin', 'live', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0'],
    ['bitcoin', 'test', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx'],
    ['bitcoin', 'test', segwit('bcrt', 0, 20)],
    ['bitcoin', 'test', legacy(0x6f)],
    ['litecoin', 'live', segwit('ltc', 0, 20)],
    ['litecoin', 'live', legacy(0x30)],
    ['litecoin', 'live', legacy(0x05)],
    ['litecoin', 'test', segwit('rltc', 0, 32)],
    ['dogecoin', 'live', legacy(0x1e)],
    ['dogecoin', 'test', legacy(0x71)],
    ['bitcoin_cash', 'live', 'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a'],
    ['bitcoin_cash', 'live', 'qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a'],
    ['bitcoin_cash', 'live', '1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu'],
  ] as const)('%s (%s) accepts %s', (network, mode, address) => {
    const check = checkUtxoPayoutAddress(network, mode, address);
    expect(check).toEqual({ ok: true, address: expect.any(String) });
  });

  it('gives a cashaddr its prefix', () => {
    expect(checkUtxoPayoutAddress('bitcoin_cash', 'live', 'qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a')).toEqual({
      ok: true,
      address: 'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a',
    });
  });

  it.each([
    ['a bech32 checksum typo', 'bitcoin', 'live', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5'],
    ['mixed case', 'bitcoin', 'live', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kV8f3t4'],
    ['a base58 checksum typo', 'bitcoin', 'live', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb'],
    ['a testnet address in live mode', 'bitcoin', 'live', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx'],
    ['a mainnet address in test mode', 'bitcoin', 'test', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
    ['a litecoin address for bitcoin', 'bitcoin', 'live', legacy(0x30)],
    ['a version-0 program of the wrong length', 'bitcoin', 'live', segwit('bc', 0, 25)],
    ['a taproot address encoded as bech32', 'bitcoin', 'live', bech32.encode('bc', [1, ...bech32.toWords(new Uint8Array(32).fill(1))])],
    ['a cashaddr checksum typo', 'bitcoin_cash', 'live', 'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6b'],
    ['an EVM address', 'dogecoin', 'live', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
  ] as const)('refuses %s', (_, network, mode, address) => {
    expect(checkUtxoPayoutAddress(network, mode, address).ok).toBe(false);
  });

  it('names the network and mode in a problem', () => {
    expect(checkUtxoPayoutAddress('bitcoin_cash', 'live', 'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6q')).toEqual({
      ok: false,
      problem: 'has a wrong checksum for a mainnet bitcoin cash address',
    });
  });
});

describe('utxoPayoutUri', () => {
  it('is BIP21 for UTXO coins, cashaddr keeping its own scheme', () => {
    const request = { chain: 'main', units: 0n, asset: null };
    expect(utxoPayoutUri({ ...request, network: 'bitcoin', address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', amount: '0.00105200' })).toBe(
      'bitcoin:bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4?amount=0.001052',
    );
    expect(utxoPayoutUri({ ...request, network: 'bitcoin_cash', address: 'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a', amount: '1' })).toBe(
      'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a?amount=1',
    );
    expect(utxoPayoutUri({ ...request, chain: null, network: 'bitcoin_cash', address: '1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu', amount: '2.50' })).toBe(
      'bitcoincash:1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu?amount=2.5',
    );
  });
});

describe('checkUtxoTransactionId', () => {
  const hex = 'ab'.repeat(32);
  it('takes a txid, in lower case as the node writes it', () => expect(checkUtxoTransactionId(hex.toUpperCase())).toEqual({ ok: true, id: hex.toLowerCase() }));

  it.each([`0x${hex}`, hex.slice(2), `${hex.slice(1)}g`])('refuses %s', (hash) => {
    expect(checkUtxoTransactionId(hash)).toEqual({ ok: false, problem: 'must be the transaction id: 64 hexadecimal digits' });
  });
});
