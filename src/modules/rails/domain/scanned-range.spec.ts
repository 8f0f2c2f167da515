import type { BlockRef, IncomingTransfer } from './payment-rail';
import { scannedRangeProblem } from './scanned-range';

const hash = (branch: string, n: number) => `0x${branch}${String(n).padStart(63, '0')}`;
/** Blocks from..to of a branch ('a' or 'b'), the first the child of `parent`. */
function chain(branch: string, from: number, to: number, parent = hash('a', from - 1)): BlockRef[] {
  const blocks: BlockRef[] = [];
  for (let n = from; n <= to; n++) {
    blocks.push({ number: BigInt(n), hash: hash(branch, n), parentHash: n === from ? parent : hash(branch, n - 1), timestamp: BigInt(1_700_000_000 + n) });
  }
  return blocks;
}
const transfer = (n: number, blockHash: string): IncomingTransfer => ({
  to: '0x' + '1'.repeat(40),
  asset: '0x' + '2'.repeat(40),
  units: 5n,
  txHash: '0x' + 'f'.repeat(64),
  output: '0',
  position: 0,
  blockNumber: BigInt(n),
  blockHash,
});
const cursor = { number: 9n, hash: hash('a', 9) };
const range = { from: 10n, to: 12n };

describe('scannedRangeProblem', () => {
  it('takes blocks that follow the cursor and each other, with transfers in those very blocks', () => {
    expect(scannedRangeProblem(cursor, range, chain('a', 10, 12), [transfer(10, hash('a', 10)), transfer(12, hash('a', 12))])).toBeNull();
    // A watcher starting at block 0 has no block to follow.
    expect(scannedRangeProblem({ number: -1n, hash: '' }, { from: 0n, to: 1n }, chain('a', 0, 1, hash('z', 0)), [])).toBeNull();
  });

  it('refuses a log whose block hash is not the one of the block read (a log of another branch)', () => {
    expect(scannedRangeProblem(cursor, range, chain('a', 10, 12), [transfer(11, hash('b', 11))])).toContain(
      `is in block 11 ${hash('b', 11)}, but that block was read as ${hash('a', 11)}`,
    );
    expect(scannedRangeProblem(cursor, range, chain('a', 10, 12), [transfer(11, '')])).toContain('(no hash)');
    expect(scannedRangeProblem(cursor, range, chain('a', 10, 12), [transfer(13, hash('a', 13))])).toContain('outside the range 10-12');
  });

  it('refuses blocks of two branches (a reorg while the range was read)', () => {
    const mixed = [...chain('a', 10, 11), ...chain('b', 12, 12, hash('b', 11))];
    expect(scannedRangeProblem(cursor, range, mixed, [])).toContain(`block 12 (${hash('b', 12)}) is not the child of block 11 (${hash('a', 11)})`);
  });

  it('does not check a link a node answers with a parent hash of zeros (blocks a development node mined in bulk)', () => {
    const bulk = chain('a', 10, 12).map((b) => (b.number === 11n ? { ...b, parentHash: '0x' + '0'.repeat(64) } : b));
    expect(scannedRangeProblem(cursor, range, bulk, [transfer(11, hash('a', 11))])).toBeNull();
    expect(scannedRangeProblem(cursor, range, bulk, [transfer(11, hash('b', 11))])).toContain('but that block was read as');
  });

  it('refuses a range that does not follow the stored cursor (the cursor block left the chain)', () => {
    expect(scannedRangeProblem(cursor, range, chain('b', 10, 12, hash('b', 9)), [])).toContain('is not the child of block 9');
  });

  it('refuses a range answered with missing or misnumbered blocks', () => {
    expect(scannedRangeProblem(cursor, range, chain('a', 10, 11), [])).toContain('read 2 blocks of the range 10-12');
    const shifted = chain('a', 10, 12).map((b) => ({ ...b, number: b.number + 1n }));
    expect(scannedRangeProblem(cursor, range, shifted, [])).toContain('block 10 was answered as block 11');
  });
});
