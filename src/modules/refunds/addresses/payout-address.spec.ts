import { createHash } from 'node:crypto';
import { base58check, bech32, bech32m } from '@scure/base';
import { checkPayoutAddress } from './payout-address';
import { payoutUri } from '../domain/payout-uri';

const b58 = base58check((d) => new Uint8Array(createHash('sha256').update(d).digest()));
const legacy = (version: number) => b58.encode(Uint8Array.from([version, ...new Array<number>(20).fill(7)]));
const segwit = (hrp: string, version: number, bytes: number) =>
  (version === 0 ? bech32 : bech32m).encode(hrp, [version, ...(version === 0 ? bech32 : bech32m).toWords(new Uint8Array(bytes).fill(9))]);

describe('checkPayoutAddress: EVM', () => {
  it('accepts an EIP-55 address and keeps its checksummed form', () => {
    expect(checkPayoutAddress('ETHEREUM', 'live', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toEqual({
      ok: true,
      address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    });
  });

  it('accepts an all-lower-case address and checksums it', () => {
    expect(checkPayoutAddress('POLYGON', 'test', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toEqual({
      ok: true,
      address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    });
  });

  it.each([
    ['a wrong checksum', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', 'EIP-55'],
    ['too short', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeA', '40 hexadecimal'],
    ['no 0x', '5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed00', '40 hexadecimal'],
    ['the zero address', '0x0000000000000000000000000000000000000000', 'zero address'],
    ['a bitcoin address', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', '40 hexadecimal'],
  ])('refuses %s', (_, address, problem) => {
    const check = checkPayoutAddress('ETHEREUM', 'live', address);
    expect(check.ok).toBe(false);
    expect(!check.ok && check.problem).toContain(problem);
  });
});

describe('checkPayoutAddress: UTXO', () => {
  it.each([
    ['BITCOIN', 'live', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
    ['BITCOIN', 'live', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy'],
    ['BITCOIN', 'live', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'],
    ['BITCOIN', 'live', 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4'],
    ['BITCOIN', 'live', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0'],
    ['BITCOIN', 'test', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx'],
    ['BITCOIN', 'test', segwit('bcrt', 0, 20)],
    ['BITCOIN', 'test', legacy(0x6f)],
    ['LITECOIN', 'live', segwit('ltc', 0, 20)],
    ['LITECOIN', 'live', legacy(0x30)],
    ['LITECOIN', 'test', segwit('rltc', 0, 32)],
    ['DOGECOIN', 'live', legacy(0x1e)],
    ['DOGECOIN', 'test', legacy(0x71)],
    ['BITCOIN_CASH', 'live', 'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a'],
    ['BITCOIN_CASH', 'live', 'qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a'],
    ['BITCOIN_CASH', 'live', '1BpEi6DfDAUFd7GtittLSdBeYJvcoaVggu'],
  ] as const)('%s (%s) accepts %s', (network, mode, address) => {
    const check = checkPayoutAddress(network, mode, address);
    expect(check).toEqual({ ok: true, address: expect.any(String) });
  });

  it('gives a cashaddr its prefix', () => {
    expect(checkPayoutAddress('BITCOIN_CASH', 'live', 'qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a')).toEqual({
      ok: true,
      address: 'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a',
    });
  });

  it.each([
    ['a bech32 checksum typo', 'BITCOIN', 'live', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5'],
    ['mixed case', 'BITCOIN', 'live', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kV8f3t4'],
    ['a base58 checksum typo', 'BITCOIN', 'live', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb'],
    ['a testnet address in live mode', 'BITCOIN', 'live', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx'],
    ['a mainnet address in test mode', 'BITCOIN', 'test', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
    ['a litecoin address for bitcoin', 'BITCOIN', 'live', legacy(0x30)],
    ['a version-0 program of the wrong length', 'BITCOIN', 'live', segwit('bc', 0, 25)],
    ['a taproot address encoded as bech32', 'BITCOIN', 'live', bech32.encode('bc', [1, ...bech32.toWords(new Uint8Array(32).fill(1))])],
    ['a cashaddr checksum typo', 'BITCOIN_CASH', 'live', 'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6b'],
    ['an EVM address', 'DOGECOIN', 'live', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
  ] as const)('refuses %s', (_, network, mode, address) => {
    expect(checkPayoutAddress(network, mode, address).ok).toBe(false);
  });

  it('refuses networks refunds are not paid out on', () => {
    expect(checkPayoutAddress('CARD', 'test', '4242424242424242')).toEqual({ ok: false, problem: 'refunds are not paid out on CARD' });
  });
});

describe('checkPayoutAddress: TRON, XRP Ledger, Solana (offered in test mode without a rail)', () => {
  it.each([
    ['TRON', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'],
    ['RIPPLE', 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh'],
    ['SOLANA', 'So11111111111111111111111111111111111111112'],
  ])('accepts a %s address', (network, address) => {
    expect(checkPayoutAddress(network, 'test', ` ${address} `)).toEqual({ ok: true, address });
  });

  it.each([
    ['a TRON checksum typo', 'TRON', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u', 'checksum'],
    ['an EVM address on TRON', 'TRON', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'TRON address'],
    ['an XRP checksum typo', 'RIPPLE', 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTi', 'XRP Ledger'],
    ['a Bitcoin address on the XRP Ledger', 'RIPPLE', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'XRP Ledger'],
    ['a short Solana key', 'SOLANA', 'So1111111111111111111111111111111', 'Solana'],
    ['a 0 in a Solana address', 'SOLANA', 'So0111111111111111111111111111111111111111112', 'Solana'],
  ])('refuses %s', (_, network, address, problem) => {
    const check = checkPayoutAddress(network, 'test', address);
    expect(check.ok).toBe(false);
    expect(!check.ok && check.problem).toContain(problem);
  });
});

describe('payoutUri', () => {
  const to = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
  it('is EIP-681 for a native coin and for a token', () => {
    expect(payoutUri({ family: 'evm', address: to, chainId: 1, units: '1000', token: null })).toBe(`ethereum:${to}@1?value=1000`);
    expect(payoutUri({ family: 'evm', address: to, chainId: 31337, units: '6666666', token: '0xdAC17F958D2ee523a2206206994597C13D831ec7' })).toBe(
      `ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@31337/transfer?address=${to}&uint256=6666666`,
    );
  });

  it('is BIP21 for UTXO coins, cashaddr keeping its own scheme', () => {
    expect(payoutUri({ family: 'utxo', network: 'BITCOIN', address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', amount: '0.00105200' })).toBe(
      'bitcoin:bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4?amount=0.001052',
    );
    expect(payoutUri({ family: 'utxo', network: 'BITCOIN_CASH', address: 'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a', amount: '1' })).toBe(
      'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a?amount=1',
    );
  });
});
