import { Logger } from '@nestjs/common';
import type { NetworkConfig } from '../domain/chains-config';
import type { CarriedAccount, ChainFollower } from '../domain/payment-rail';
import { scannedRangeProblem } from '../domain/scanned-range';
import type { ChainCursor } from '../persistence/chain-state.repository';
import type { RefusedTransfer } from '../persistence/unattributed-transfers.repository';
import type { ChainIdentity } from './chain-identity';
import { MempoolWatch } from './mempool';
import { PaymentRecorder } from './payment-recorder';
import { ReorgHandler } from './reorg';
import { blockTimeOf, cursorTimeAfter, firstBlock, inTurns, lagOf, rangeEnd, sortTransfers, watchedAsOf } from './transfer-facts';
import { watchedSet } from './watched-set';
import type { WatcherContext, WatcherDeps } from './watcher-context';
import { ChainMoved, RpcFault, backoffMs, errorText, retryDelayMs, rpcCall } from './watcher-faults';
import { WatcherLease } from './watcher-lease';

export type { WatcherDeps } from './watcher-context';

/**
 * Watches one network of one mode. Only the instance holding the network's PostgreSQL advisory lock
 * (session lock on a connection of its own) watches; the others try again every lockRetryMs, and
 * when the holder dies its connection closes, the lock is freed and another takes over.
 *
 * Before it watches, and again every CHAIN_ID_CHECK_SECONDS, the node must answer the configured
 * chain; while it answers another the watcher records nothing and holds no lock.
 *
 * Each step: read the head; check the stored cursor's block is still on the chain (else rewind to
 * the common ancestor: a reorg); read the next range of at most max_block_range blocks (the blocks
 * first, then their transfers into watched deposit addresses), check it is one view of one chain
 * that follows the cursor (else read it again), record each transfer through RecordProviderPaymentCommand
 * (organizations in turns, each one's transfers in chain order)
 * (idempotency key `<network>:<tx_hash>:<output>`, the adapter's output reference; happened_at = block time,
 * confirmations = head - block + 1), then move the cursor. Recording before moving the cursor
 * makes a crash repeat a range, never skip one; the idempotency key makes the repeat a no-op.
 * Then the confirmations of transfers below their requirement are reported as blocks arrive (on
 * chains whose node names a final block, `ChainFollower.finalized`, a transfer it covers is reported
 * with at least its requirement: final whatever its count), and transfers a reorg put in doubt are cancelled once the rescan has not found them again, unless
 * their transaction waits in the mempool again (chains with one): then they are back at 0 confirmations.
 * On chains whose blocks have no hash to compare (`ChainFollower.rechecksTransactions`, Solana), a transfer's
 * transaction is asked for again before its payment is reported final, and one the node no longer knows is
 * put in doubt and settled the same way. Money reaching a polled wallet without a watched reference
 * (`IncomingTransfer.toWallet`) is kept as an unmatched transfer of the wallet's organization, no invoice.
 *
 * The pieces: WatcherLease (which instance follows the network), PaymentRecorder (transfers into payment
 * reports through the payments port), MempoolWatch (unconfirmed transfers) and ReorgHandler (rewinding
 * and settling transfers in doubt); this class runs the loop and the step that puts them in order.
 */
export class NetworkWatcher {
  private readonly ctx: WatcherContext;
  private readonly lease: WatcherLease;
  private readonly recorder: PaymentRecorder;
  private readonly mempool: MempoolWatch;
  private readonly reorg: ReorgHandler;
  private stopping = false;
  private loop: Promise<void> | null = null;
  private failures = 0;
  private wake: (() => void) | null = null;
  /** The accounts left behind as of the cursor `at` (as stored with it); read again from the database when the cursor is another. */
  private carried: { at: bigint; accounts: Array<CarriedAccount & { since?: Date | null }> } | null = null;
  /**
   * The most blocks a step reads now: max_block_range, or less while a read of a wider range failed. A node
   * may refuse a range whose answer is too large (java-tron answers eth_getLogs with at most 10,000 logs,
   * many hosted EVM nodes cap a range or its answer); retried whole it would fail for good and stop the
   * network for everyone. A failed read halves the range (down to one block), each step read whole doubles
   * it back.
   */
  private blockRange: number | null = null;

  constructor(config: NetworkConfig, follower: ChainFollower, identity: ChainIdentity, deps: WatcherDeps) {
    const logger = new Logger(`ChainWatcher ${config.mode}/${config.network}`);
    const labels = { network: config.network, mode: config.mode };
    this.ctx = { config, follower, identity, deps, logger, labels };
    this.lease = new WatcherLease(deps.dataSource, config.mode, config.network, logger, labels);
    this.recorder = new PaymentRecorder(this.ctx);
    this.mempool = new MempoolWatch(this.ctx, this.recorder);
    this.reorg = new ReorgHandler(this.ctx, this.recorder, this.mempool);
  }

  start(): void {
    if (this.loop) return;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
  }

  private async pause(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = null;
  }

  private async run(): Promise<void> {
    const { config, identity, deps, logger, labels } = this.ctx;
    while (!this.stopping) {
      try {
        if (!(await rpcCall('chain', () => identity.matches()))) {
          // The node serves another chain than configured (logged and counted by the check): record
          // nothing, and hold no lock, so an instance whose node is right can watch. Asked again later.
          await this.lease.release();
          await this.pause(identity.intervalMs);
          continue;
        }
        if (!this.lease.held && !(await this.lease.take())) {
          await this.pause(deps.lockRetryMs);
          continue;
        }
        await this.lease.ping();
        const caughtUp = await this.step();
        if (this.failures > 0) logger.log({ msg: 'chain watcher recovered', event: 'chain_watcher_recovered', ...labels, after_failures: this.failures });
        this.failures = 0;
        if (caughtUp) await this.pause(config.pollIntervalMs);
      } catch (error) {
        this.failures++;
        const backoff = backoffMs(this.failures, Math.random());
        if (error instanceof RpcFault) {
          deps.metrics.rpcErrors.inc(labels);
          logger.warn({
            msg: 'chain RPC call failed; retrying',
            event: 'chain_rpc_error',
            ...labels,
            call: error.call,
            error: errorText(error.cause),
            attempt: this.failures,
            retry_in_ms: Math.round(backoff),
          });
        } else if (error instanceof ChainMoved) {
          logger.warn({ msg: 'the chain moved during a scan; scanning again', event: 'chain_moved', ...labels, detail: error.message });
        } else {
          logger.error({
            msg: 'chain watcher step failed; retrying',
            event: 'chain_watcher_error',
            ...labels,
            error: errorText(error),
            attempt: this.failures,
            retry_in_ms: Math.round(backoff),
          });
          await this.lease.check();
        }
        // A chain that moved is read again at once; one that keeps moving (or a node that keeps answering
        // two views of it) backs off like any fault.
        if (!this.stopping) await this.pause(retryDelayMs(error, this.failures, backoff));
      }
    }
    await this.lease.release();
  }

  /** One step; true when the watcher has reached the head (then it waits for the next block). */
  async step(): Promise<boolean> {
    const { config, follower, deps, logger, labels } = this.ctx;
    const { mode, network } = config;
    const m = deps.manager;
    const began = deps.clock.now();
    const head = await rpcCall('head', () => follower.head());
    deps.metrics.head.set(labels, Number(head));

    let cursor = await deps.state.cursor(m, mode, network);
    if (!cursor) {
      // First start: from start_block when configured, else from the next block on.
      const first = firstBlock(config.startBlock, head);
      const before = first > 0n ? await rpcCall('block', () => follower.block(first - 1n)) : null;
      // A chain without stamped times starting at the head: its later blocks are made after this step began.
      const time = before ? cursorTimeAfter(blockTimeOf(before), config.startBlock == null, began, null) : null;
      cursor = before ? { number: before.number, hash: before.hash, time } : { number: -1n, hash: '', time: null };
      await deps.run((tx) => deps.state.advance(tx, mode, network, cursor!, cursor!.number - BigInt(config.finalityDepth), deps.clock.now()));
      logger.log({ msg: 'chain cursor created', event: 'chain_cursor_created', ...labels, block: cursor.number.toString() });
    }
    deps.metrics.lag.set(labels, lagOf(head, cursor.number));

    if (await this.reorg.rewindIfReorganized(cursor, head)) return false;
    if (head < cursor.number) return true; // a node behind the one we read before: wait for it

    const from = cursor.number + 1n;
    // Chains whose node names a final block: read once a step, after the head (it is never above it).
    const final = follower.finalized ? await rpcCall('finalized', () => follower.finalized!(head)) : null;
    // Accounts left behind are read on even when no new block came (an empty range: the cursor stays).
    const behindBefore = this.carried?.at === cursor.number && this.carried.accounts.length > 0;
    if (from <= head || behindBefore) {
      const to = from <= head ? rangeEnd(from, head, this.blockRange ?? config.maxBlockRange) : cursor.number;
      const timer = deps.metrics.scanSeconds.startTimer(labels);
      const behind = await this.scan(cursor, from, to, head, final, began);
      timer();
      deps.metrics.lag.set(labels, Number(head - to));
      const counted = await this.recorder.countConfirmations(head, final);
      // A chain whose head moves every step (Solana's slots; an EVM chain whose blocks come faster than the
      // watcher polls) may never have a step without a new block: transfers a reorg or a recheck put in doubt
      // are settled once a scan has reached the head. (Chains with a mempool settle them in a step without
      // new blocks, after reading it: a transaction back in the mempool keeps its payment.)
      if (to >= head && !this.mempool.available) await this.reorg.settleOrphans(head, null, final);
      if (follower.rechecksTransactions && final !== null) await this.reorg.checkUnmatched(final);
      // An account still behind (its backlog over a step's budget), or counts left over the step's budget: on at once, not after the pause.
      return to >= head && !behind && counted;
    }
    const counted = await this.recorder.countConfirmations(head, final);
    if (follower.rechecksTransactions && final !== null) await this.reorg.checkUnmatched(final);
    // The mempool first: a transfer in doubt whose transaction waits there again is not cancelled.
    const mempool = this.mempool.available ? await this.mempool.scan(head) : null;
    await this.reorg.settleOrphans(head, mempool, final);
    return counted;
  }

  /** After a failed read of [from, to]: the next step reads at most half of it (at least one block). */
  private narrowRange(from: bigint, to: bigint): void {
    const blocks = Number(to - from + 1n);
    if (blocks <= 1) return;
    this.blockRange = Math.max(1, Math.floor(blocks / 2));
    this.ctx.logger.warn({
      msg: 'chain range read failed; reading fewer blocks a step',
      event: 'chain_range_narrowed',
      ...this.ctx.labels,
      blocks: this.blockRange,
    });
  }

  /** After a read that succeeded: back towards max_block_range. */
  private widenRange(): void {
    if (this.blockRange === null) return;
    const wider = this.blockRange * 2;
    this.blockRange = wider >= this.ctx.config.maxBlockRange ? null : wider;
  }

  /** Reads and records one range; true when an account is still behind (carried to the next step). */
  private async scan(cursor: ChainCursor, from: bigint, to: bigint, head: bigint, final: bigint | null, began: Date): Promise<boolean> {
    const { mode, network } = this.ctx.config;
    const { deps } = this.ctx;
    // Where the accounts left behind stand: kept in memory from the step that stored them, else read once
    // (after a start, or when the previous step failed after storing).
    if (this.carried?.at !== cursor.number) this.carried = { at: cursor.number, accounts: await deps.state.carried(deps.manager, mode, network) };
    const carriedBefore = this.carried.accounts;
    // One indexed read: the whole watched set when it is small, else only the news that it is not. The
    // addresses whose window was open when these blocks were made, not only those open now (a watcher
    // behind its chain still finds a payment made inside a window that has closed since).
    const since = new Map(carriedBefore.map((a) => [a.account, a.since ?? null]));
    const asOf = watchedAsOf(deps.clock.now(), cursor.time, [...since.values()]);
    const { watched, owners, walletOwners } = await watchedSet(this.ctx, asOf);
    const assets = Object.entries(this.ctx.config.assets);
    const slugOf = new Map(assets.map(([slug, ref]) => [ref, slug]));
    // The blocks first, then what they hold; all of it must be one view of one chain that follows the
    // cursor, or nothing of it is recorded (a reorg while reading: the next step's check finds it).
    const read = await rpcCall('scan', () =>
      this.ctx.follower.scan(
        { from, to },
        watched,
        assets.map(([, ref]) => ref),
        carriedBefore,
      ),
    ).catch((error: unknown) => {
      this.narrowRange(from, to);
      throw error;
    });
    this.widenRange();
    const problem = scannedRangeProblem(cursor, { from, to }, read.blocks, read.transfers);
    if (problem) throw new ChainMoved(problem);
    const earlier = read.earlier ?? { blocks: [], transfers: [] };
    // A carried account's older transfers: each in a block below the range, the one it was reported with.
    const earlierBlocks = new Map(earlier.blocks.filter((b) => b.number < from).map((b) => [b.number, b]));
    const astray = earlier.transfers.find((t) => earlierBlocks.get(t.blockNumber)?.hash !== t.blockHash);
    if (astray) throw new ChainMoved(`transfer ${astray.txHash} of an account read late is in block ${astray.blockNumber}, not a block it was reported with`);
    const blocks = new Map([...earlierBlocks, ...read.blocks.map((b) => [b.number, b] as const)]);
    const lastBlock = read.blocks[read.blocks.length - 1];
    const last: ChainCursor = lastBlock
      ? { number: lastBlock.number, hash: lastBlock.hash, time: cursorTimeAfter(blockTimeOf(lastBlock), lastBlock.number >= head, began, cursor.time) }
      : cursor;
    // Only the configured assets count: a transfer of any other is never counted (and never as the coin).
    // The rest in chain order: by block, and within a block as the adapter gave them (each organization's
    // transfers are recorded in that order, the organizations in turns).
    const sorted = sortTransfers([...earlier.transfers, ...read.transfers], new Set(slugOf.keys()));
    const foreign = [...read.foreign, ...sorted.foreign];
    if (foreign.length) {
      this.ctx.logger.warn({
        msg: 'transfers of assets that are not configured were ignored (does the node ignore the contract filter of its log query?)',
        event: 'chain_foreign_transfers_ignored',
        ...this.ctx.labels,
        from_block: from.toString(),
        to_block: to.toString(),
        count: foreign.length,
        contracts: [...new Set(foreign.map((f) => f.asset))].slice(0, 5),
        tx_hashes: foreign.slice(0, 5).map((f) => f.txHash),
      });
    }
    if (read.lost?.length) {
      this.ctx.logger.error({
        msg: "the node can no longer list part of an account's history (it lost the signature the part stopped at); that part was given up: check the node's ledger history and look for payments in it by hand",
        event: 'chain_account_history_lost',
        ...this.ctx.labels,
        accounts: read.lost.slice(0, 5),
      });
    }
    // An account newly left behind holds nothing older than the cursor's block; one still behind keeps its time.
    const carriedAfter = (read.carried ?? []).map((a) => ({ ...a, since: since.has(a.account) ? since.get(a.account)! : cursor.time }));
    const refused: RefusedTransfer[] = [];
    // In turns across organizations: another's payment in this range waits for one transfer of each, not for all of one's.
    const ownerOf = (t: (typeof sorted.counted)[number]) => (t.toWallet ? walletOwners.get(t.to) : owners.get(t.to)?.organization_id) ?? '';
    for (const transfer of inTurns(sorted.counted, ownerOf)) {
      const assetSlug = transfer.asset === null ? null : slugOf.get(transfer.asset)!;
      const block = blocks.get(transfer.blockNumber)!;
      if (transfer.toWallet) {
        // Money to a polled wallet without a watched reference: no invoice, kept for the wallet's organization.
        const organizationId = walletOwners.get(transfer.to);
        const kept = organizationId ? await this.recorder.unreferenced(transfer, organizationId, assetSlug, block) : null;
        if (kept) refused.push(kept);
        continue;
      }
      const refusal = await this.recorder.record(transfer, owners.get(transfer.to)!, assetSlug, block, head, final);
      if (refusal) refused.push(refusal);
    }
    // Refused transfers are kept in the transaction that moves the cursor past them: none is passed unseen.
    await this.ctx.deps.run(async (tx) => {
      await this.recorder.keepRefused(tx, refused);
      // The accounts still behind move with the cursor, in its transaction: a restart reads them on from there.
      if (carriedBefore.length || carriedAfter.length) await deps.state.keepCarried(tx, mode, network, carriedAfter, deps.clock.now(), cursor.time);
      await this.ctx.deps.state.advance(tx, mode, network, last, head - BigInt(this.ctx.config.finalityDepth), this.ctx.deps.clock.now(), read.blocks);
    });
    this.carried = { at: last.number, accounts: carriedAfter };
    return carriedAfter.length > 0;
  }
}
