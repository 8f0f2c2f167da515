import { txHashProblem } from './payout-tx';

const hex = 'ab'.repeat(32);

describe('txHashProblem', () => {
  it.each([
    ['evm', `0x${hex}`],
    ['evm', `0x${hex.toUpperCase()}`],
    ['utxo', hex],
    [null, hex],
    [null, `0x${hex}`],
  ] as const)('takes a %s transaction id %s', (family, hash) => {
    expect(txHashProblem(family, hash)).toBeNull();
  });

  it.each([
    ['evm', hex, 'must be 0x followed by 64 hexadecimal digits'],
    ['evm', `0x${hex}0`, 'must be 0x followed by 64 hexadecimal digits'],
    ['utxo', `0x${hex}`, 'must be the transaction id: 64 hexadecimal digits'],
    ['utxo', hex.slice(2), 'must be the transaction id: 64 hexadecimal digits'],
    ['utxo', `${hex.slice(1)}g`, 'must be the transaction id: 64 hexadecimal digits'],
    [null, 'not-a-hash', 'must be a transaction hash (64 hexadecimal digits, with 0x on EVM chains)'],
  ] as const)('refuses on %s %s', (family, hash, problem) => {
    expect(txHashProblem(family, hash)).toBe(problem);
  });
});
