/**
 * When an unmined transfer that left the mempool is put in doubt: not when first missed (a block may
 * have mined it, and that block's scan finds it), but once a block has passed since. Pure.
 */
export class MempoolAbsences {
  /** Transfers of unmined transactions first missed from the mempool, and the head they were missed at. */
  private readonly since = new Map<string, bigint>();

  /** Notes whether the transfer's transaction is in the mempool at this head; true when it is to be put in doubt now. */
  observe(idempotencyKey: string, inMempool: boolean, head: bigint): boolean {
    if (inMempool) {
      this.since.delete(idempotencyKey);
      return false;
    }
    const since = this.since.get(idempotencyKey);
    if (since === undefined) {
      this.since.set(idempotencyKey, head);
      return false;
    }
    if (head > since) {
      this.since.delete(idempotencyKey);
      return true;
    }
    return false;
  }

  /** Forgets a transfer (back in the mempool after a reorg: its wait starts afresh). */
  forget(idempotencyKey: string): void {
    this.since.delete(idempotencyKey);
  }
}
