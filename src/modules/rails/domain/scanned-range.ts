import type { BlockRef, IncomingTransfer } from './payment-rail';

const NO_HASH = /^0x0*$/;

/**
 * Whether what was read of a range of blocks is one view of one chain, and follows the stored cursor:
 * the blocks are the range's, in order, each the child of the one before (the first the child of the
 * cursor's block), and every transfer is in one of those very blocks (same number and hash). A reorg
 * while the range was read breaks one of these; then nothing of it may be recorded (the watcher reads
 * it again, and its reorg check finds where the chains part). Returns what does not hold, or null.
 */
export function scannedRangeProblem(
  cursor: { number: bigint; hash: string },
  range: { from: bigint; to: bigint },
  blocks: readonly BlockRef[],
  transfers: readonly IncomingTransfer[],
): string | null {
  if (BigInt(blocks.length) !== range.to - range.from + 1n) return `read ${blocks.length} blocks of the range ${range.from}-${range.to}`;
  let parent = cursor;
  for (const [i, block] of blocks.entries()) {
    const number = range.from + BigInt(i);
    if (block.number !== number) return `block ${number} was answered as block ${block.number}`;
    // A cursor without a hash (a watcher starting from block 0) has no block to follow; a parent hash of
    // zeros is no answer (a development node's blocks mined in bulk, e.g. Hardhat's hardhat_mine, report
    // it): that link is not checked, the hashes of the transfers' blocks still are.
    if (parent.hash !== '' && !NO_HASH.test(block.parentHash) && block.parentHash !== parent.hash) {
      return `block ${number} (${block.hash}) is not the child of block ${parent.number} (${parent.hash}): its parent is ${block.parentHash}`;
    }
    parent = block;
  }
  const byNumber = new Map(blocks.map((b) => [b.number, b]));
  for (const transfer of transfers) {
    const block = byNumber.get(transfer.blockNumber);
    if (!block) return `transfer ${transfer.txHash} is in block ${transfer.blockNumber}, outside the range ${range.from}-${range.to}`;
    if (transfer.blockHash !== block.hash) {
      return `transfer ${transfer.txHash} is in block ${transfer.blockNumber} ${transfer.blockHash || '(no hash)'}, but that block was read as ${block.hash}`;
    }
  }
  return null;
}
