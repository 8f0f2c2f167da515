import { PAYOUT_ADDRESS_RULES } from './payout-address-rules';

const check = (network: string, address: string) =>
  PAYOUT_ADDRESS_RULES.find((r) => r.networks.includes(network))!.checkPayoutAddress(network, 'test', address);

describe('payout address rules of the networks no adapter serves (XRP Ledger; test-mode claims)', () => {
  it.each([['ripple', 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh']])('accepts a %s address', (network, address) => {
    expect(check(network, ` ${address} `)).toEqual({ ok: true, address });
  });

  it.each([
    ['an XRP checksum typo', 'ripple', 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTi', 'XRP Ledger'],
    ['a Bitcoin address on the XRP Ledger', 'ripple', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'XRP Ledger'],
    ['nothing', 'ripple', ' ', 'must not be empty'],
  ])('refuses %s', (_, network, address, problem) => {
    const result = check(network, address);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problem).toContain(problem);
  });
});
