import { checkEvmPayoutAddress, checkEvmTransactionId, evmPayoutUri } from './evm-payout';

describe('checkEvmPayoutAddress', () => {
  it('accepts an EIP-55 address and keeps its checksummed form', () => {
    expect(checkEvmPayoutAddress('ethereum', 'live', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toEqual({
      ok: true,
      address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    });
  });

  it('accepts an all-lower-case address and checksums it', () => {
    expect(checkEvmPayoutAddress('polygon', 'test', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toEqual({
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
    ['nothing', '  ', 'must not be empty'],
  ])('refuses %s', (_, address, problem) => {
    const check = checkEvmPayoutAddress('ethereum', 'live', address);
    expect(check.ok).toBe(false);
    expect(!check.ok && check.problem).toContain(problem);
  });
});

describe('evmPayoutUri', () => {
  const to = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
  it('is EIP-681 for a native coin and for a token', () => {
    expect(evmPayoutUri({ network: 'ethereum', chain: '1', address: to, units: 1000n, amount: '0.000000000000001', asset: null })).toBe(
      `ethereum:${to}@1?value=1000`,
    );
    expect(
      evmPayoutUri({
        network: 'ethereum',
        chain: '31337',
        address: to,
        units: 6666666n,
        amount: '6.666666',
        asset: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
      }),
    ).toBe(`ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@31337/transfer?address=${to}&uint256=6666666`);
  });

  it('is a plain <network>:<address>?amount=<coin> without a rail (test mode, nobody sends it)', () => {
    expect(evmPayoutUri({ network: 'polygon', chain: null, address: to, units: 1500000n, amount: '1.500000', asset: '0xabc' })).toBe(
      `polygon:${to}?amount=1.5`,
    );
  });
});

describe('checkEvmTransactionId', () => {
  const hex = 'ab'.repeat(32);
  it.each([`0x${hex}`, `0x${hex.toUpperCase()}`])('takes %s', (hash) => {
    expect(checkEvmTransactionId(hash)).toEqual({ ok: true, id: hash.toLowerCase() });
  });

  it.each([hex, `0x${hex}0`])('refuses %s', (hash) => {
    expect(checkEvmTransactionId(hash)).toEqual({ ok: false, problem: 'must be 0x followed by 64 hexadecimal digits' });
  });
});
