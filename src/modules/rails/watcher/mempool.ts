import { MempoolAbsences } from './mempool-absences';
import type { PaymentRecorder } from './payment-recorder';
import { inTurns, transferKey } from './transfer-facts';
import { watchedSet } from './watched-set';
import type { WatcherContext } from './watcher-context';
import { rpcCall } from './watcher-faults';

/**
 * Unconfirmed transfers, on chains with a mempool (`ChainFollower.pending`): each transfer into a watched
 * address of a transaction not yet in a block is recorded as a PENDING payment with 0 confirmations, and
 * one that leaves the mempool unmined is put in doubt once a block has passed since it was missed.
 */
export class MempoolWatch {
  /** Transfers of unmined transactions missed from the mempool (put in doubt only after a block passed). */
  private readonly absences = new MempoolAbsences();

  constructor(
    private readonly ctx: WatcherContext,
    private readonly recorder: PaymentRecorder,
  ) {}

  /** Whether the chain has a mempool to read. */
  get available(): boolean {
    return !!this.ctx.follower.pending;
  }

  /** A transfer back in the mempool after a reorg starts its wait afresh. */
  forget(idempotencyKey: string): void {
    this.absences.forget(idempotencyKey);
  }

  /**
   * Chains with a mempool: each transfer into a watched address of a transaction not yet in a block is
   * recorded as a PENDING payment with 0 confirmations (the scan of the block that mines it counts it up).
   * One recorded so that has left the mempool without being mined (replaced, evicted) is put in doubt
   * once a block has passed since it was missed (a mined one would have been found by that block's
   * scan), and then cancelled as any transfer whose transaction is in no block. Answers the ids of
   * every transaction the mempool held when read.
   */
  async scan(head: bigint): Promise<ReadonlySet<string>> {
    const { mode, network } = this.ctx.config;
    const { watched, owners } = await watchedSet(this.ctx);
    const read = await rpcCall('mempool', () => this.ctx.follower.pending!(watched));
    // In turns across organizations, as a block's transfers: another's payment waits for one of each, not all of one's.
    for (const transfer of inTurns(read.transfers, (t) => owners.get(t.to)?.organization_id ?? '')) {
      const key = transferKey(network, transfer);
      if (await this.ctx.deps.state.findTransfer(this.ctx.deps.manager, mode, network, key)) continue;
      await this.recorder.recordUnmined(transfer, owners.get(transfer.to)!, key);
    }
    const unmined = await this.ctx.deps.state.unmined(this.ctx.deps.manager, mode, network);
    for (const row of unmined) {
      if (this.absences.observe(row.idempotency_key, read.txids.has(row.tx_hash), head))
        await this.ctx.deps.run((tx) => this.ctx.deps.state.markOrphaned(tx, mode, network, row.idempotency_key, this.ctx.deps.clock.now()));
    }
    return read.txids;
  }
}
