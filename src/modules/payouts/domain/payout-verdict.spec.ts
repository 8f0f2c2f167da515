import { heldNames, judgePayout, pickTransfers, txGraceOver } from './payout-verdict';

describe('judgePayout', () => {
  const open = { claimedHeight: '10', seenUnmined: false };
  it.each([
    [{ state: 'mined' as const, blockNumber: '11', paidUnits: '6666666' }, '6666666', 'paid'],
    [{ state: 'mined' as const, blockNumber: '11', paidUnits: '6666667' }, '6666666', 'paid'],
    [{ state: 'mined' as const, blockNumber: '11', paidUnits: '6666665' }, '6666666', 'short'],
    [{ state: 'mined' as const, blockNumber: '11', paidUnits: '0' }, '1', 'short'],
    // 18-decimal amounts beyond a JS number's exact range are compared exactly.
    [{ state: 'mined' as const, blockNumber: '11', paidUnits: '33333333333333332' }, '33333333333333333', 'short'],
    [{ state: 'failed' as const, blockNumber: '11' }, '1', 'failed'],
    // Sent by the destination itself: its own transaction, however much it moved to itself.
    [{ state: 'mined' as const, blockNumber: '11', paidUnits: '9999999', byDestination: true }, '6666666', 'by_destination'],
    [{ state: 'mined' as const, blockNumber: '11', paidUnits: '9999999', byDestination: false }, '6666666', 'paid'],
  ])('%j against %s units is %s', (check, units, want) => {
    expect(judgePayout(check, units, open)).toBe(want);
  });

  it.each([
    // Mined after the block the destination was set at: a payout of this claim.
    ['11', { claimedHeight: '10', seenUnmined: false }, 'paid'],
    // In that block or before: an older transaction to the address.
    ['10', { claimedHeight: '10', seenUnmined: false }, 'too_early'],
    ['1', { claimedHeight: '10', seenUnmined: false }, 'too_early'],
    // Seen unmined after the claim: new, whatever block it lands in.
    ['10', { claimedHeight: '10', seenUnmined: true }, 'paid'],
    // Claimed before heights were recorded.
    ['1', { claimedHeight: null, seenUnmined: false }, 'paid'],
  ])('a payout in block %s with %j is %s', (block, window, want) => {
    expect(judgePayout({ state: 'mined', blockNumber: block, paidUnits: '5' }, '5', window)).toBe(want);
  });

  it('compares heights exactly beyond a JS number', () => {
    expect(
      judgePayout({ state: 'mined', blockNumber: '9007199254740993', paidUnits: '5' }, '5', { claimedHeight: '9007199254740992', seenUnmined: false }),
    ).toBe('paid');
  });
});

describe('heldNames', () => {
  it("leaves out a former name held beside the same payout's newer name, and keeps one held alone", () => {
    const h = (refund_id: string, output: string) => ({ refund_id, output });
    // A new instance's hold: the wallet's name and the former name beside it.
    expect(heldNames([h('r1', 'native:X'), h('r1', 'native'), h('r2', 'native:Y')])).toEqual(new Set(['native:X', 'native:Y']));
    // A former name held by another payout than the one with the newer name (the previous version's write): kept.
    expect(heldNames([h('r1', 'native'), h('r2', 'native:Y')])).toEqual(new Set(['native', 'native:Y']));
    // Only the same kind: an SPL name does not explain a `native`.
    expect(heldNames([h('r1', 'spl:X:M'), h('r1', 'native')])).toEqual(new Set(['spl:X:M', 'native']));
    // Other chains' names (log indexes, output numbers, an EVM transaction's `native`) are as they were.
    expect(heldNames([h('r1', 'native'), h('r2', '3'), h('r3', '0')])).toEqual(new Set(['native', '3', '0']));
  });
});

describe('pickTransfers', () => {
  const t = (output: string, units: string) => ({ output, units });
  it('takes transfers in order until the payout is reached, leaving out those another payout holds', () => {
    expect(pickTransfers([t('0', '3'), t('1', '3'), t('2', '3')], new Set(), '5')).toEqual([t('0', '3'), t('1', '3')]);
    expect(pickTransfers([t('0', '5'), t('1', '5')], new Set(['0']), '5')).toEqual([t('1', '5')]);
    expect(pickTransfers([t('0', '5'), t('1', '5')], new Set(['0', '1']), '5')).toBeNull();
    expect(pickTransfers([t('0', '4')], new Set(), '5')).toBeNull();
    expect(pickTransfers([], new Set(), '1')).toBeNull();
  });

  it('takes a transfer of exactly the payout first, else the smallest that covers it, so each payout of one transaction finds its own', () => {
    // 100 and 1 to one address for payouts of 100 and 1, the payout of 1 reported first.
    expect(pickTransfers([t('0', '100'), t('1', '1')], new Set(), '1')).toEqual([t('1', '1')]);
    expect(pickTransfers([t('0', '100'), t('1', '1')], new Set(['1']), '100')).toEqual([t('0', '100')]);
    // No exact one: the smallest that covers it alone, not the first.
    expect(pickTransfers([t('0', '90'), t('1', '30'), t('2', '25')], new Set(), '20')).toEqual([t('2', '25')]);
    // None covers it alone: in their order until they reach it.
    expect(pickTransfers([t('0', '4'), t('1', '9'), t('2', '2')], new Set(), '12')).toEqual([t('0', '4'), t('1', '9')]);
  });

  it('leaves out one free transfer for each held under a name none has any more (a reorg renumbered the logs)', () => {
    // One transfer of 5, held as "7" before the reorg, now "3": another payout of 5 finds nothing free.
    expect(pickTransfers([t('3', '5')], new Set(['7']), '5', ['5'])).toBeNull();
    // Two transfers to the address, one of them held under its old name: the other is free.
    expect(pickTransfers([t('8', '5'), t('9', '5')], new Set(['7']), '5', ['5'])).toEqual([t('9', '5')]);
    expect(pickTransfers([t('8', '5'), t('9', '5')], new Set(), '5', [])).toEqual([t('8', '5')]);
    // 100 then 50, the 100 held under a name that now names the 50: the 100 is the one held, the 50 is free.
    expect(pickTransfers([t('4', '100'), t('5', '50')], new Set(), '100', ['100'])).toBeNull();
    expect(pickTransfers([t('4', '100'), t('5', '50')], new Set(), '50', ['100'])).toEqual([t('5', '50')]);
  });

  it('leaves out a transfer another payout holds under the name it had before (Solana: `native` then, `native:<wallet>` now)', () => {
    const named = (output: string, formerly: string, units: string) => ({ output, formerly, units });
    expect(pickTransfers([named('native:X', 'native', '5')], new Set(['native']), '5')).toBeNull();
    expect(pickTransfers([named('native:X', 'native', '5')], new Set(['spl']), '5')).toEqual([named('native:X', 'native', '5')]);
    expect(pickTransfers([named('native:X', 'native', '5')], new Set(['native:Y']), '5')).toEqual([named('native:X', 'native', '5')]);
  });
});

describe('txGraceOver', () => {
  it('is over at, not before, the grace', () => {
    const since = new Date('2026-11-28T10:00:00Z');
    expect(txGraceOver(since, new Date('2026-11-28T10:09:59.999Z'), 600)).toBe(false);
    expect(txGraceOver(since, new Date('2026-11-28T10:10:00Z'), 600)).toBe(true);
  });
});
