import { checkTronPayoutAddress } from './tron-address';
import { tronRail } from './tron-rail';

const rail = tronRail([{ network: 'TRON', gateway: 'USDT', kind: 'token', contractAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' }]);

describe('the Tron rail: payout address, URI and transaction id', () => {
  it('accepts a base58check T address, trimmed and kept as typed', () => {
    expect(checkTronPayoutAddress('tron', 'test', ' TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t ')).toEqual({ ok: true, address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' });
    expect(rail.checkPayoutAddress('tron', 'live', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toEqual({ ok: true, address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' });
  });

  it.each([
    ['a TRON checksum typo', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u', 'checksum'],
    ['an EVM address on TRON', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'TRON address'],
    ['a Bitcoin address (base58check, another version byte)', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'T followed by 33 characters'],
    ['nothing', '', 'must not be empty'],
  ])('refuses %s', (_, address, problem) => {
    const check = rail.checkPayoutAddress('tron', 'test', address);
    expect(check.ok).toBe(false);
    expect(!check.ok && check.problem).toContain(problem);
  });

  it('has no payout URI with a rail (Tron has no payment-URI standard); a plain one without (test mode)', () => {
    const request = { network: 'tron', address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', units: 2500000n, amount: '2.500000', asset: null };
    expect(rail.payoutUri({ ...request, chain: '3448148188' })).toBeNull();
    expect(rail.payoutUri({ ...request, chain: null })).toBe('tron:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t?amount=2.5');
  });

  it('takes a transaction id with or without 0x, kept in the JSON-RPC form', () => {
    const hex = 'ab'.repeat(32);
    expect(rail.checkTransactionId(hex)).toEqual({ ok: true, id: `0x${hex}` });
    expect(rail.checkTransactionId(`0x${hex}`)).toEqual({ ok: true, id: `0x${hex}` });
    expect(rail.checkTransactionId(`0x${hex}00`)).toEqual({ ok: false, problem: 'must be the transaction id: 64 hexadecimal digits (0x optional)' });
  });
});
