import { parseChainsConfig } from './domain/chains-config';
import { PayoutFacts } from './payout-facts';
import { railAdapters } from './rail-adapters';

const CATALOG = [
  { network: 'ETHEREUM', gateway: 'USDT', kind: 'token', contractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7' },
  { network: 'TRON', gateway: 'USDT', kind: 'token', contractAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' },
];
const ADAPTERS = railAdapters(CATALOG);
// A test rail on ethereum (chain 31337) and bitcoin (regtest); no live rails, nothing on the other networks.
const chains = parseChainsConfig(
  { test: { ethereum: { rpc_url: 'http://127.0.0.1:1', chain_id: 31337 }, bitcoin: { rpc_url: 'http://127.0.0.1:2', chain: 'regtest' } } },
  ADAPTERS,
);
const facts = new PayoutFacts(ADAPTERS, chains);
const hex = 'ab'.repeat(32);
const to = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

describe('the payout facts refunds ask the rails (PayoutFacts, behind the payout queries)', () => {
  it('lists every adapter network and the address-only rules, cards not among them', () => {
    const networks = facts.networks();
    expect(networks).toEqual(
      expect.arrayContaining(['ethereum', 'polygon', 'bsc', 'bitcoin', 'litecoin', 'dogecoin', 'bitcoin_cash', 'tron', 'ripple', 'solana']),
    );
    expect(networks).not.toContain('card');
  });

  it("checks an address with its network's adapter or rule, the catalog's network name in any case", () => {
    expect(facts.checkAddress('live', 'ETHEREUM', to.toLowerCase())).toEqual({ ok: true, address: to });
    expect(facts.checkAddress('test', 'TRON', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toEqual({ ok: true, address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' });
    expect(facts.checkAddress('test', 'BITCOIN_CASH', 'qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a').ok).toBe(false);
    expect(facts.checkAddress('live', 'BITCOIN_CASH', 'qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a')).toEqual({
      ok: true,
      address: 'bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a',
    });
    expect(facts.checkAddress('test', 'RIPPLE', 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh')).toEqual({ ok: true, address: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh' });
    expect(facts.checkAddress('test', 'RIPPLE', 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTi').ok).toBe(false);
    expect(facts.checkAddress('test', 'BITCOIN', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa').ok).toBe(false);
  });

  it('refuses networks refunds are not paid out on', () => {
    expect(facts.checkAddress('test', 'CARD', '4242424242424242')).toEqual({ ok: false, problem: 'refunds are not paid out on CARD' });
  });

  it("writes the URI with the rail's chain, a plain one without a rail", () => {
    expect(facts.uri('test', 'ethereum', to, 1000n, '0.000000000000001', { token: null })).toBe(`ethereum:${to}@31337?value=1000`);
    expect(facts.uri('test', 'ETHEREUM', to, 1000n, '0.000000000000001000', null)).toBe(`ethereum:${to}?amount=0.000000000000001`);
    expect(facts.uri('test', 'BITCOIN', 'bcrt1qxyz', 105200n, '0.00105200', { token: null })).toBe('bitcoin:bcrt1qxyz?amount=0.001052');
    expect(facts.uri('test', 'TRON', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', 1000000n, '1.000000', null)).toBe(
      'tron:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t?amount=1',
    );
    expect(facts.uri('test', 'RIPPLE', 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', 1000000n, '1.000000', null)).toBe(
      'ripple:rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh?amount=1',
    );
  });

  it.each([
    ['test', 'ethereum', `0x${hex}`, null],
    ['test', 'ethereum', `0x${hex.toUpperCase()}`, null],
    ['test', 'ethereum', hex, 'must be 0x followed by 64 hexadecimal digits'],
    ['test', 'ethereum', `0x${hex}0`, 'must be 0x followed by 64 hexadecimal digits'],
    ['test', 'bitcoin', hex, null],
    ['test', 'bitcoin', `0x${hex}`, 'must be the transaction id: 64 hexadecimal digits'],
    ['test', 'bitcoin', hex.slice(2), 'must be the transaction id: 64 hexadecimal digits'],
    ['test', 'bitcoin', `${hex.slice(1)}g`, 'must be the transaction id: 64 hexadecimal digits'],
    // No rail on the network in the mode: either form, the chain says later whether it knows it.
    ['live', 'ethereum', hex, null],
    ['live', 'bitcoin', `0x${hex}`, null],
    ['test', 'solana', 'not-a-hash', 'must be a transaction hash (64 hexadecimal digits, with 0x on EVM chains)'],
  ] as const)('checks a transaction id in %s mode on %s: %s', (mode, network, hash, problem) => {
    expect(facts.checkTransactionId(mode, network, hash)).toEqual(problem === null ? { ok: true, id: hash.toLowerCase() } : { ok: false, problem });
  });
});
