import { EVM_MAX_BLOCK_AGE_SECONDS, evmSyncCheck } from './evm-preflight';

const network = { mode: 'live' as const, network: 'ethereum' };
const now = new Date('2026-11-29T12:00:00Z');
const at = (secondsAgo: number) => BigInt(Math.floor(now.getTime() / 1000) - secondsAgo);

describe('whether an EVM node follows its chain', () => {
  it('passes a node that is not syncing with a recent latest block', () => {
    expect(evmSyncCheck(network, { syncing: false, latest: { number: 100n, timestamp: at(12) } }, now)).toMatchObject({
      name: 'chain.live.ethereum.sync',
      status: 'ok',
      latest_block: '100',
      latest_block_age_seconds: 12,
    });
  });

  it('fails a node that says it is syncing, with how far it is', () => {
    const check = evmSyncCheck(network, { syncing: { currentBlock: '0x10', highestBlock: '0x100' }, latest: { number: 16n, timestamp: at(5) } }, now);
    expect(check.status).toBe('fail');
    expect(check.detail).toContain('block 16 of 256');
  });

  it.each([
    [EVM_MAX_BLOCK_AGE_SECONDS, 'ok'],
    [EVM_MAX_BLOCK_AGE_SECONDS + 1, 'fail'],
    [86_400, 'fail'],
  ])('a latest block %i s old: %s', (age, status) => {
    const check = evmSyncCheck(network, { syncing: false, latest: { number: 7n, timestamp: at(age) } }, now);
    expect(check.status).toBe(status);
    if (status === 'fail') expect(check.detail).toContain(`${age} s old`);
  });
});
