import {
  BLOCK_TIME_MARGIN_MS,
  blockTimeOf,
  confirmationsAt,
  countedConfirmations,
  unaccountedTransfers,
  firstBlock,
  inTurns,
  lagOf,
  priceOf,
  rangeEnd,
  sortTransfers,
  transferKey,
  watchedAsOf,
  cursorTimeAfter,
} from './transfer-facts';

describe('transferKey', () => {
  it('names the network, the transaction and the output', () => {
    expect(transferKey('ethereum', { txHash: '0xabc', output: '3' })).toBe('ethereum:0xabc:3');
    expect(transferKey('litecoin', { txHash: 'ff00', output: 'native' })).toBe('litecoin:ff00:native');
  });
});

describe('priceOf', () => {
  it.each([
    [1n, 18, '0.000000000000000001'],
    [1500000n, 6, '1.5'],
    [123456789n, 8, '1.23456789'],
    [10n ** 30n, 18, '1000000000000'],
    [0n, 8, '0'],
    // Every digit kept: an 18-decimal coin worth more than 100 has more than 20 significant digits.
    [1234567890123456789012n, 18, '1234.567890123456789012'],
    [10n ** 40n + 1n, 18, '10000000000000000000000.000000000000000001'],
  ])('%s units at %i decimals is %s', (units, decimals, price) => {
    expect(priceOf(units, decimals)).toBe(price);
  });
});

describe('confirmations', () => {
  it('counts the block itself', () => {
    expect(confirmationsAt(100n, 100n)).toBe(1);
    expect(confirmationsAt(105n, 100n)).toBe(6);
  });

  it('reports a transfer the final block covers with at least its requirement', () => {
    expect(countedConfirmations(105n, 100n, 100n, 12)).toBe(12);
    expect(countedConfirmations(105n, 100n, 102n, 3)).toBe(6);
  });

  it('counts plainly without a final block, and never reaches the requirement above one', () => {
    expect(countedConfirmations(105n, 101n, 100n, 12)).toBe(5);
    expect(countedConfirmations(105n, 100n, null, 12)).toBe(6);
    // Above the final block: however many blocks bury it, one short of the requirement.
    expect(countedConfirmations(130n, 101n, 100n, 12)).toBe(11);
    expect(countedConfirmations(130n, 101n, 100n, 1)).toBe(0);
  });
});

describe('ranges', () => {
  it('reads at most the maximum range, never past the head', () => {
    expect(rangeEnd(10n, 1000n, 100)).toBe(109n);
    expect(rangeEnd(10n, 50n, 100)).toBe(50n);
    expect(rangeEnd(10n, 10n, 1)).toBe(10n);
  });

  it('starts at start_block when set, else after the head', () => {
    expect(firstBlock(5n, 100n)).toBe(5n);
    expect(firstBlock(0n, 100n)).toBe(0n);
    expect(firstBlock(null, 100n)).toBe(101n);
  });

  it('measures the lag, never below zero', () => {
    expect(lagOf(110n, 100n)).toBe(10);
    expect(lagOf(90n, 100n)).toBe(0);
  });
});

describe('sortTransfers', () => {
  const t = (asset: string | null, txHash: string, blockNumber: bigint) => ({ asset, txHash, blockNumber });

  it('keeps the coin and configured assets in block order, stable within a block', () => {
    const read = [t('0xusdt', 'c', 7n), t(null, 'a', 5n), t('0xusdt', 'b', 5n), t(null, 'd', 7n)];
    const { counted, foreign } = sortTransfers(read, new Set(['0xusdt']));
    expect(counted.map((x) => x.txHash)).toEqual(['a', 'b', 'c', 'd']);
    expect(foreign).toEqual([]);
  });

  it('sets aside transfers of assets that are not configured', () => {
    const { counted, foreign } = sortTransfers([t('0xother', 'x', 3n), t(null, 'y', 2n)], new Set(['0xusdt']));
    expect(counted.map((x) => x.txHash)).toEqual(['y']);
    expect(foreign).toEqual([{ asset: '0xother', txHash: 'x' }]);
  });
});

describe('inTurns', () => {
  const owner = (t: string) => t[0];
  it("takes every owner's next transfer in turn, owners in the order they first come, each owner's own in order", () => {
    expect(inTurns(['a1', 'a2', 'a3', 'a4', 'b1', 'a5', 'c1', 'b2'], owner)).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4', 'a5']);
  });
  it("keeps one owner's transfers as they are, and an empty range empty", () => {
    expect(inTurns(['a1', 'a2', 'a3'], owner)).toEqual(['a1', 'a2', 'a3']);
    expect(inTurns([], owner)).toEqual([]);
  });
});

describe('watchedAsOf', () => {
  const now = new Date('2026-11-30T12:00:00Z');
  const less = (d: Date) => new Date(d.getTime() - BLOCK_TIME_MARGIN_MS);
  it("looks for the windows open when the cursor's block was made, less the margin, when that is earlier than now", () => {
    const cursor = new Date('2026-11-30T10:30:00Z');
    expect(watchedAsOf(now, cursor, [])).toEqual(less(cursor));
  });
  it('goes back to the oldest account read late, and never later than now', () => {
    const cursor = new Date('2026-11-30T11:59:00Z');
    const since = new Date('2026-11-29T08:00:00Z');
    expect(watchedAsOf(now, cursor, [null, since])).toEqual(less(since));
    expect(watchedAsOf(now, new Date('2026-11-30T13:00:00Z'), [])).toEqual(less(now));
  });
  it('takes now less the margin without a known cursor time', () => {
    expect(watchedAsOf(now, null, [])).toEqual(less(now));
  });
});

describe('cursorTimeAfter', () => {
  const began = new Date('2026-11-30T12:00:00Z');
  const kept = new Date('2026-11-30T07:00:00Z');
  it("keeps the time stamped on the cursor's block whenever the chain stamps one", () => {
    const stamped = new Date('2026-11-30T11:59:48Z');
    expect(cursorTimeAfter(stamped, false, began, kept)).toEqual(stamped);
    expect(cursorTimeAfter(stamped, true, began, null)).toEqual(stamped);
  });
  it('takes the time the step began for an unstamped block at the head, and keeps the earlier time while behind', () => {
    expect(cursorTimeAfter(null, true, began, kept)).toEqual(began);
    // Five hours behind: the blocks still to read were made after the watcher was last at the head, not after now.
    expect(cursorTimeAfter(null, false, began, kept)).toEqual(kept);
    expect(cursorTimeAfter(null, false, began, null)).toBeNull();
  });
});

describe('blockTimeOf', () => {
  it("reads a block's stamp in seconds, and none where the adapter does not read it (0)", () => {
    expect(blockTimeOf({ timestamp: 1_764_504_000n })).toEqual(new Date('2025-11-30T12:00:00Z'));
    expect(blockTimeOf({ timestamp: 0n })).toBeNull();
  });
});

describe('unaccountedTransfers', () => {
  const t = (output: string, units: bigint) => ({ output, units });
  it('matches recorded amounts one for one: two equal transfers recorded once leave one', () => {
    expect(unaccountedTransfers([t('1', 10n), t('2', 10n)], [10n])).toEqual([t('2', 10n)]);
    expect(unaccountedTransfers([t('1', 10n), t('2', 15n)], [10n, 15n])).toEqual([]);
    expect(unaccountedTransfers([t('1', 10n), t('2', 15n)], [10n, 10n])).toEqual([t('2', 15n)]);
    expect(unaccountedTransfers([], [10n])).toEqual([]);
  });
});
