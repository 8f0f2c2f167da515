import { someOrganizationFull } from '../../../shared/db/fair-batch';
import { Logger } from '@nestjs/common';
import type { CommandBus, QueryBus } from '@nestjs/cqrs';
import Decimal from 'decimal.js';
import type { Counter, Gauge, Histogram } from 'prom-client';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import { DomainError } from '../../../shared/errors/domain-error';
import type { Clock } from '../../../shared/time/clock';
import { RecordProviderPaymentCommand, type PaymentChainReport, type RecordedPayment } from '../../payments';
import { GetProviderTermsQuery } from '../../providers';
import type { NetworkConfig } from '../domain/chains-config';
import { paymentTimeOf } from '../domain/block-time';
import type { BlockRef, ChainFollower, IncomingTransfer, WatchedAddresses } from '../domain/payment-rail';
import { scannedRangeProblem } from '../domain/scanned-range';
import type { ChainIdentity } from './chain-identity';
import type { ChainStateRepository, TransferRow } from '../persistence/chain-state.repository';
import type { DepositAddressesRepository, DepositAddressRow } from '../persistence/deposit-addresses.repository';
import type { RefusedTransfer, UnattributedTransferRow, UnattributedTransfersRepository } from '../persistence/unattributed-transfers.repository';
import { LOAD_ADDRESSES_MAX } from '../persistence/watched-addresses';

export interface WatcherDeps {
  dataSource: DataSource;
  /** Reads and single statements outside a transaction. */
  manager: EntityManager;
  run<T>(work: (m: EntityManager) => Promise<T>): Promise<T>;
  commands: CommandBus;
  queries: QueryBus;
  state: ChainStateRepository;
  addresses: DepositAddressesRepository;
  /** Transfers the payments module refused, kept for the merchant to see and retry. */
  unmatched: UnattributedTransfersRepository;
  /** Records `transfer.unmatched` for a transfer kept for the first time, in the writer's transaction. */
  announceUnmatched(m: EntityManager, row: UnattributedTransferRow): Promise<void>;
  clock: Clock;
  lockRetryMs: number;
  /** Transfers of one organization each batch of the confirmation count takes (WORKER_ORG_BATCH). */
  orgBatch: number;
  /** How long an invoice's addresses stay watched after a reorg cancelled a payment to them (the monitoring window). */
  rewatchMs: number;
  metrics: {
    head: Gauge<'network' | 'mode'>;
    lag: Gauge<'network' | 'mode'>;
    rpcErrors: Counter<'network' | 'mode'>;
    scanSeconds: Histogram<'network' | 'mode'>;
  };
}

/** A JSON-RPC call that failed (timeout, refused connection, 429/5xx, bad answer). */
class RpcFault extends Error {
  constructor(
    readonly call: string,
    readonly cause: unknown,
  ) {
    super(`${call} failed: ${(cause as Error)?.message ?? String(cause)}`);
  }
}

/** The chain changed under a scan (a block hash moved between calls): scan again. */
class ChainMoved extends Error {}

const MAX_BACKOFF_MS = 30_000;

/** One line about a failure: viem's short message (its full one spans the whole request), else the message. */
function errorText(error: unknown): string {
  const e = error as { shortMessage?: string; message?: string; code?: string } | null;
  const text = e?.shortMessage ?? e?.message ?? String(error);
  return (e?.code ? `${e.code}: ` : '') + text.split('\n')[0].slice(0, 500);
}

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
 * (idempotency key `<network>:<tx_hash>:<output>`, the adapter's output reference; happened_at = block time,
 * confirmations = head - block + 1), then move the cursor. Recording before moving the cursor
 * makes a crash repeat a range, never skip one; the idempotency key makes the repeat a no-op.
 * Then the confirmations of transfers below their requirement are reported as blocks arrive (on
 * chains whose node names a final block, `ChainFollower.finalized`, a transfer it covers is reported
 * with at least its requirement: final whatever its count), and transfers a reorg put in doubt are cancelled once the rescan has not found them again, unless
 * their transaction waits in the mempool again (chains with one): then they are back at 0 confirmations.
 */
export class NetworkWatcher {
  private readonly logger: Logger;
  private lock: QueryRunner | null = null;
  private stopping = false;
  private loop: Promise<void> | null = null;
  private failures = 0;
  private readonly labels: { network: string; mode: string };
  private readonly lockKey: string;
  private wake: (() => void) | null = null;

  constructor(
    private readonly config: NetworkConfig,
    private readonly follower: ChainFollower,
    private readonly identity: ChainIdentity,
    private readonly deps: WatcherDeps,
  ) {
    this.logger = new Logger(`ChainWatcher ${config.mode}/${config.network}`);
    this.labels = { network: config.network, mode: config.mode };
    this.lockKey = `chain_watcher:${config.mode}:${config.network}`;
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
    while (!this.stopping) {
      try {
        if (!(await this.rpc('chain', () => this.identity.matches()))) {
          // The node serves another chain than configured (logged and counted by the check): record
          // nothing, and hold no lock, so an instance whose node is right can watch. Asked again later.
          await this.releaseLock();
          await this.pause(this.identity.intervalMs);
          continue;
        }
        if (!this.lock && !(await this.takeLock())) {
          await this.pause(this.deps.lockRetryMs);
          continue;
        }
        await this.lock!.query('SELECT 1');
        const caughtUp = await this.step();
        if (this.failures > 0)
          this.logger.log({ msg: 'chain watcher recovered', event: 'chain_watcher_recovered', ...this.labels, after_failures: this.failures });
        this.failures = 0;
        if (caughtUp) await this.pause(this.config.pollIntervalMs);
      } catch (error) {
        this.failures++;
        const backoff = Math.min(MAX_BACKOFF_MS, 250 * 2 ** Math.min(this.failures - 1, 10)) * (0.8 + Math.random() * 0.4);
        if (error instanceof RpcFault) {
          this.deps.metrics.rpcErrors.inc(this.labels);
          this.logger.warn({
            msg: 'chain RPC call failed; retrying',
            event: 'chain_rpc_error',
            ...this.labels,
            call: error.call,
            error: errorText(error.cause),
            attempt: this.failures,
            retry_in_ms: Math.round(backoff),
          });
        } else if (error instanceof ChainMoved) {
          this.logger.warn({ msg: 'the chain moved during a scan; scanning again', event: 'chain_moved', ...this.labels, detail: error.message });
        } else {
          this.logger.error({
            msg: 'chain watcher step failed; retrying',
            event: 'chain_watcher_error',
            ...this.labels,
            error: errorText(error),
            attempt: this.failures,
            retry_in_ms: Math.round(backoff),
          });
          await this.checkLock();
        }
        // A chain that moved is read again at once; one that keeps moving (or a node that keeps answering
        // two views of it) backs off like any fault.
        if (!this.stopping) await this.pause(error instanceof ChainMoved && this.failures === 1 ? 50 : backoff);
      }
    }
    await this.releaseLock();
  }

  private async takeLock(): Promise<boolean> {
    const runner = this.deps.dataSource.createQueryRunner();
    try {
      await runner.connect();
      const [{ locked }] = await runner.query('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [this.lockKey]);
      if (!locked) {
        await runner.release();
        return false;
      }
    } catch (error) {
      await runner.release().catch(() => undefined);
      throw error;
    }
    this.lock = runner;
    this.logger.log({ msg: 'watching the chain (this instance holds the watcher lock)', event: 'chain_watcher_started', ...this.labels });
    return true;
  }

  /** A failed step may mean the lock's connection is gone: then the lock is too, and it must be taken again. */
  private async checkLock(): Promise<void> {
    if (!this.lock) return;
    try {
      await this.lock.query('SELECT 1');
    } catch {
      const lost = this.lock;
      this.lock = null;
      await lost.release().catch(() => undefined);
      this.logger.warn({ msg: 'watcher lock connection lost; taking the lock again', event: 'chain_watcher_lock_lost', ...this.labels });
    }
  }

  private async releaseLock(): Promise<void> {
    const runner = this.lock;
    this.lock = null;
    if (!runner) return;
    await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [this.lockKey]).catch(() => undefined);
    await runner.release().catch(() => undefined);
  }

  private async rpc<T>(call: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw new RpcFault(call, error);
    }
  }

  /** One step; true when the watcher has reached the head (then it waits for the next block). */
  async step(): Promise<boolean> {
    const { mode, network } = this.config;
    const m = this.deps.manager;
    const head = await this.rpc('head', () => this.follower.head());
    this.deps.metrics.head.set(this.labels, Number(head));

    let cursor = await this.deps.state.cursor(m, mode, network);
    if (!cursor) {
      // First start: from start_block when configured, else from the next block on.
      const first = this.config.startBlock ?? head + 1n;
      const before = first > 0n ? await this.rpc('block', () => this.follower.block(first - 1n)) : null;
      cursor = before ? { number: before.number, hash: before.hash } : { number: -1n, hash: '' };
      await this.deps.run((tx) =>
        this.deps.state.advance(tx, mode, network, cursor!, cursor!.number - BigInt(this.config.finalityDepth), this.deps.clock.now()),
      );
      this.logger.log({ msg: 'chain cursor created', event: 'chain_cursor_created', ...this.labels, block: cursor.number.toString() });
    }
    this.deps.metrics.lag.set(this.labels, Number(head > cursor.number ? head - cursor.number : 0n));

    if (await this.rewindIfReorganized(cursor, head)) return false;
    if (head < cursor.number) return true; // a node behind the one we read before: wait for it

    const from = cursor.number + 1n;
    // Chains whose node names a final block: read once a step, after the head (it is never above it).
    const final = this.follower.finalized ? await this.rpc('finalized', () => this.follower.finalized!()) : null;
    if (from <= head) {
      const to = head < from + BigInt(this.config.maxBlockRange) - 1n ? head : from + BigInt(this.config.maxBlockRange) - 1n;
      const timer = this.deps.metrics.scanSeconds.startTimer(this.labels);
      await this.scan(cursor, from, to, head);
      timer();
      this.deps.metrics.lag.set(this.labels, Number(head - to));
      await this.countConfirmations(head, final);
      return to >= head;
    }
    await this.countConfirmations(head, final);
    // The mempool first: a transfer in doubt whose transaction waits there again is not cancelled.
    const mempool = this.follower.pending ? await this.scanMempool(head) : null;
    await this.settleOrphans(head, mempool);
    return true;
  }

  /** Transfers of unmined transactions first missed from the mempool at this head (cancelled only after a block passed). */
  private readonly missingSince = new Map<string, bigint>();

  /**
   * Chains with a mempool: each transfer into a watched address of a transaction not yet in a block is
   * recorded as a PENDING payment with 0 confirmations (the scan of the block that mines it counts it up).
   * One recorded so that has left the mempool without being mined (replaced, evicted) is put in doubt
   * once a block has passed since it was missed (a mined one would have been found by that block's
   * scan), and then cancelled as any transfer whose transaction is in no block. Answers the ids of
   * every transaction the mempool held when read.
   */
  private async scanMempool(head: bigint): Promise<ReadonlySet<string>> {
    const { mode, network } = this.config;
    const { watched, owners } = await this.watchedSet();
    const read = await this.rpc('mempool', () => this.follower.pending!(watched));
    for (const transfer of read.transfers) {
      const key = `${network}:${transfer.txHash}:${transfer.output}`;
      if (await this.deps.state.findTransfer(this.deps.manager, mode, network, key)) continue;
      await this.recordUnmined(transfer, owners.get(transfer.to)!, key);
    }
    const unmined = await this.deps.state.unmined(this.deps.manager, mode, network);
    for (const row of unmined) {
      if (read.txids.has(row.tx_hash)) {
        this.missingSince.delete(row.idempotency_key);
        continue;
      }
      const since = this.missingSince.get(row.idempotency_key);
      if (since === undefined) this.missingSince.set(row.idempotency_key, head);
      else if (head > since) {
        this.missingSince.delete(row.idempotency_key);
        await this.deps.run((tx) => this.deps.state.markOrphaned(tx, mode, network, row.idempotency_key, this.deps.clock.now()));
      }
    }
    return read.txids;
  }

  /** Records a transfer of a transaction still in the mempool: a PENDING payment with 0 confirmations, at the organization's now. */
  private async recordUnmined(transfer: IncomingTransfer, owner: DepositAddressRow, key: string): Promise<void> {
    const { mode, network } = this.config;
    const providerId = this.config.providerOf(null);
    const scope = this.scopeOf(owner.organization_id);
    const provider = await this.deps.queries.execute(new GetProviderTermsQuery(scope, providerId));
    if (!provider) throw new Error(`provider ${providerId} is not in the catalog`);
    const price = new Decimal(transfer.units.toString()).div(new Decimal(10).pow(provider.catalog.decimals)).toFixed();
    const context = { ...this.labels, idempotency_key: key, invoice_id: owner.invoice_id, organization_id: owner.organization_id, provider_id: providerId };
    try {
      const recorded = await this.deps.commands.execute(
        new RecordProviderPaymentCommand(scope, {
          kind: 'payment',
          invoiceId: owner.invoice_id,
          providerId,
          price,
          idempotencyKey: key,
          happenedAt: await this.deps.clock.nowFor(scope),
          confirmations: 0,
        }),
      );
      await this.deps.run((tx) =>
        this.deps.state.saveTransfer(
          tx,
          mode,
          network,
          {
            tx_hash: transfer.txHash,
            block_number: '-1',
            block_hash: '',
            recipient: transfer.to,
            units: transfer.units.toString(),
            idempotency_key: key,
            organization_id: owner.organization_id,
            invoice_id: owner.invoice_id,
            provider_id: providerId,
            payment_id: recorded.paymentId,
            confirmations: 0,
            required_confirmations: recorded.requiredConfirmations,
            orphaned: false,
            cancelled: recorded.status === 'CANCELLED',
          },
          this.deps.clock.now(),
        ),
      );
      await this.deps.addresses.markUsed(this.deps.manager, mode, network, transfer.to);
      if (recorded.created) {
        this.logger.log({
          msg: 'payment seen in the mempool',
          event: 'chain_payment_recorded',
          ...context,
          payment_id: recorded.paymentId,
          price,
          confirmations: 0,
          status: recorded.status,
        });
      }
    } catch (error) {
      // Refused (provider disabled, ...): the scan of the block that mines it keeps it as an unmatched transfer.
      if (!(error instanceof DomainError)) throw error;
      this.logger.debug({ msg: 'mempool transfer not recorded; it is kept when mined', event: 'chain_mempool_refused', ...context, code: error.code });
    }
  }

  /** The watched deposit addresses: the whole set when small, else resolved by an indexed lookup of the recipients seen. */
  private async watchedSet(): Promise<{ watched: WatchedAddresses; owners: Map<string, DepositAddressRow> }> {
    const { mode, network } = this.config;
    const now = this.deps.clock.now();
    const owners = new Map<string, DepositAddressRow>();
    const first = await this.deps.addresses.watchedUpTo(this.deps.manager, mode, network, now, LOAD_ADDRESSES_MAX + 1);
    const few = first.length <= LOAD_ADDRESSES_MAX;
    if (few) for (const row of first) owners.set(row.address, row);
    const watched: WatchedAddresses = {
      addresses: few ? new Set(owners.keys()) : null,
      resolve: async (candidates) => {
        for (const row of await this.deps.addresses.watchedAmong(this.deps.manager, mode, network, candidates, now)) owners.set(row.address, row);
        return new Set(owners.keys());
      },
    };
    return { watched, owners };
  }

  /** Compares the remembered blocks with the chain; on a mismatch rewinds to the highest one still on it. */
  private async rewindIfReorganized(cursor: { number: bigint; hash: string }, head: bigint): Promise<boolean> {
    const { mode, network } = this.config;
    if (cursor.number < 0n) return false;
    // A head below the cursor: a node behind (waited for), or blocks taken back with none in their place yet.
    const shorter = head < cursor.number && this.follower.onChain ? !(await this.rpc('block', () => this.follower.onChain!(cursor.hash))) : false;
    const known = await this.deps.state.blocksBelow(this.deps.manager, mode, network, cursor.number < head ? cursor.number : head);
    if (!known.length) return false;
    const top = known[0];
    const onChain = await this.rpc('block', () => this.follower.block(top.number));
    let ancestor: { number: bigint; hash: string } | null = null;
    if (onChain.hash === top.hash) {
      if (!shorter) return false;
      ancestor = top;
    }
    // Blocks that do not follow the remembered ones are also what a node moved to another chain serves:
    // its chain id is asked before they are believed. On another chain nothing is rewound or recorded
    // (the check logs and counts it, and the run loop stops watching until the node is right again).
    if ((await this.rpc('chain', () => this.identity.ask())) !== this.config.chain) return true;
    for (const candidate of ancestor ? [] : known.slice(1)) {
      const block = await this.rpc('block', () => this.follower.block(candidate.number));
      if (block.hash === candidate.hash) {
        ancestor = candidate;
        break;
      }
    }
    if (!ancestor) {
      // Deeper than we remember: go back to just below the oldest remembered block.
      const below = known[known.length - 1].number - 1n;
      ancestor = below >= 0n ? await this.rpc('block', () => this.follower.block(below)) : { number: -1n, hash: '' };
    }
    const doubted = await this.deps.run((tx) => this.deps.state.rewind(tx, mode, network, ancestor, this.deps.clock.now()));
    this.logger.warn({
      msg: 'chain reorganization: rewound to the common ancestor',
      event: 'chain_reorg',
      ...this.labels,
      from_block: cursor.number.toString(),
      ancestor: ancestor.number.toString(),
      transfers_in_doubt: doubted,
    });
    return true;
  }

  private async scan(cursor: { number: bigint; hash: string }, from: bigint, to: bigint, head: bigint): Promise<void> {
    const { mode, network } = this.config;
    // One indexed read: the whole watched set when it is small, else only the news that it is not.
    const { watched, owners } = await this.watchedSet();
    const assets = Object.entries(this.config.assets);
    const slugOf = new Map(assets.map(([slug, ref]) => [ref, slug]));
    // The blocks first, then what they hold; all of it must be one view of one chain that follows the
    // cursor, or nothing of it is recorded (a reorg while reading: the next step's check finds it).
    const read = await this.rpc('scan', () =>
      this.follower.scan(
        { from, to },
        watched,
        assets.map(([, ref]) => ref),
      ),
    );
    const problem = scannedRangeProblem(cursor, { from, to }, read.blocks, read.transfers);
    if (problem) throw new ChainMoved(problem);
    const blocks = new Map(read.blocks.map((b) => [b.number, b]));
    const last = read.blocks[read.blocks.length - 1];
    // Only the configured assets count: a transfer of any other is never counted (and never as the coin).
    const foreign = [
      ...read.foreign,
      ...read.transfers.filter((t) => t.asset !== null && !slugOf.has(t.asset)).map((t) => ({ asset: t.asset!, txHash: t.txHash })),
    ];
    if (foreign.length) {
      this.logger.warn({
        msg: 'transfers of assets that are not configured were ignored (does the node ignore the contract filter of its log query?)',
        event: 'chain_foreign_transfers_ignored',
        ...this.labels,
        from_block: from.toString(),
        to_block: to.toString(),
        count: foreign.length,
        contracts: [...new Set(foreign.map((f) => f.asset))].slice(0, 5),
        tx_hashes: foreign.slice(0, 5).map((f) => f.txHash),
      });
    }
    // In chain order: by block, and within a block as the adapter gave them (a stable sort).
    const transfers = read.transfers.filter((t) => t.asset === null || slugOf.has(t.asset));
    transfers.sort((a, b) => (a.blockNumber === b.blockNumber ? 0 : a.blockNumber < b.blockNumber ? -1 : 1));
    const refused: RefusedTransfer[] = [];
    for (const transfer of transfers) {
      const assetSlug = transfer.asset === null ? null : slugOf.get(transfer.asset)!;
      const refusal = await this.record(transfer, owners.get(transfer.to)!, assetSlug, blocks.get(transfer.blockNumber)!, head);
      if (refusal) refused.push(refusal);
    }
    // Refused transfers are kept in the transaction that moves the cursor past them: none is passed unseen.
    await this.deps.run(async (tx) => {
      for (const transfer of refused) {
        const kept = await this.deps.unmatched.keep(tx, mode, transfer, this.deps.clock.now());
        if (kept?.created) await this.deps.announceUnmatched(tx, kept.row);
      }
      await this.deps.state.advance(tx, mode, network, last, head - BigInt(this.config.finalityDepth), this.deps.clock.now());
    });
  }

  /** Records one transfer as a payment; answers what the payments module refused (to be kept), else null. */
  private async record(
    transfer: IncomingTransfer,
    owner: DepositAddressRow,
    assetSlug: string | null,
    block: BlockRef,
    head: bigint,
  ): Promise<RefusedTransfer | null> {
    const { mode, network } = this.config;
    if (transfer.units === 0n) return null;
    const providerId = this.config.providerOf(assetSlug);
    const scope = this.scopeOf(owner.organization_id);
    const key = `${network}:${transfer.txHash}:${transfer.output}`;
    const confirmations = Number(head - transfer.blockNumber + 1n);
    const context = { ...this.labels, idempotency_key: key, invoice_id: owner.invoice_id, organization_id: owner.organization_id, provider_id: providerId };
    const found = {
      tx_hash: transfer.txHash,
      block_number: transfer.blockNumber.toString(),
      block_hash: block.hash,
      recipient: transfer.to,
      units: transfer.units.toString(),
    };

    // Known already: a repeated range (a crash), or a transfer a reorg put in doubt or cancelled, found
    // again, possibly in another block at another log index. It keeps its payment; its payments module
    // report says where it stands now (a cancelled one is reinstated; the count restarts from this block).
    const known =
      (await this.deps.state.findTransfer(this.deps.manager, mode, network, key)) ??
      (await this.deps.state.findMinedAgain(this.deps.manager, mode, network, key, {
        txHash: transfer.txHash,
        invoiceId: owner.invoice_id,
        providerId,
        recipient: transfer.to,
        units: transfer.units.toString(),
      }));
    if (known) {
      const recorded = await this.report(known, { kind: 'chain', paymentId: known.payment_id, confirmations });
      await this.deps.run(async (tx) => {
        if (known.idempotency_key !== key) await this.deps.state.dropTransfer(tx, mode, network, known.idempotency_key);
        await this.deps.state.saveTransfer(
          tx,
          mode,
          network,
          {
            ...known,
            ...found,
            idempotency_key: key,
            confirmations: recorded?.confirmations ?? known.confirmations,
            cancelled: recorded ? recorded.status === 'CANCELLED' : known.cancelled,
            orphaned: false,
          },
          this.deps.clock.now(),
        );
      });
      if (known.orphaned || known.cancelled || known.idempotency_key !== key) {
        this.logger.warn({
          msg:
            recorded?.previousStatus === 'CANCELLED' && recorded.status !== 'CANCELLED'
              ? 'payment reinstated: its transaction was mined again'
              : 'transfer found again after a reorg; it keeps its payment',
          event: recorded?.previousStatus === 'CANCELLED' && recorded.status !== 'CANCELLED' ? 'chain_payment_reinstated' : 'chain_transfer_mined_again',
          ...context,
          payment_id: known.payment_id,
          previous_key: known.idempotency_key,
          block: found.block_number,
          confirmations: recorded?.confirmations ?? null,
          status: recorded?.status ?? null,
        });
      }
      return null;
    }

    const provider = await this.deps.queries.execute(new GetProviderTermsQuery(scope, providerId));
    if (!provider) throw new Error(`provider ${providerId} is not in the catalog`);
    const price = new Decimal(transfer.units.toString()).div(new Decimal(10).pow(provider.catalog.decimals)).toFixed();
    // A block stamped further ahead of the organization's clock than drift explains counts as now: the
    // payments module refuses times in the future, and the money has arrived.
    const blockTime = new Date(Number(block.timestamp) * 1000);
    const now = await this.deps.clock.nowFor(scope);
    const happenedAt = paymentTimeOf(blockTime, now);
    try {
      const recorded = await this.deps.commands.execute(
        new RecordProviderPaymentCommand(scope, {
          kind: 'payment',
          invoiceId: owner.invoice_id,
          providerId,
          price,
          idempotencyKey: key,
          happenedAt,
          confirmations,
        }),
      );
      await this.deps.run((tx) =>
        this.deps.state.saveTransfer(
          tx,
          mode,
          network,
          {
            ...found,
            idempotency_key: key,
            organization_id: owner.organization_id,
            invoice_id: owner.invoice_id,
            provider_id: providerId,
            payment_id: recorded.paymentId,
            confirmations: recorded.confirmations,
            required_confirmations: recorded.requiredConfirmations,
            orphaned: false,
            cancelled: recorded.status === 'CANCELLED',
          },
          this.deps.clock.now(),
        ),
      );
      // The address received money: its key's gap ends here.
      await this.deps.addresses.markUsed(this.deps.manager, mode, network, transfer.to);
      if (recorded.created) {
        this.logger.log({
          msg: 'payment seen on chain',
          event: 'chain_payment_recorded',
          ...context,
          payment_id: recorded.paymentId,
          price,
          block: transfer.blockNumber.toString(),
          confirmations,
          status: recorded.status,
          ...(happenedAt !== blockTime ? { block_time_ahead_ms: blockTime.getTime() - now.getTime() } : {}),
        });
      }
      return null;
    } catch (error) {
      // The payments module refused this transfer (its provider disabled since the address was handed out, ...):
      // it is kept for the merchant (GET /rails/unmatched) to see and retry, in the transaction that moves the cursor.
      if (!(error instanceof DomainError)) throw error;
      const reasonCode = provider.enabled ? error.code : 'provider_disabled';
      this.logger.warn({
        msg: 'transfer not recorded as a payment; kept as unmatched',
        event: 'chain_payment_refused',
        ...context,
        code: reasonCode,
        error: error.message,
      });
      return {
        organization_id: owner.organization_id,
        network,
        idempotency_key: key,
        address: transfer.to,
        invoice_id: owner.invoice_id,
        provider_id: providerId,
        currency: provider.catalog.currency,
        tx_hash: transfer.txHash,
        log_index: transfer.position,
        block_number: transfer.blockNumber.toString(),
        block_hash: block.hash,
        happened_at: blockTime,
        units: transfer.units.toString(),
        amount: price,
        reason_code: reasonCode,
        reason: error.message,
      };
    }
  }

  /**
   * Reports the confirmations of transfers still below their requirement, in fair batches: at most
   * `orgBatch` transfers of one organization per batch, organizations interleaved, each organization's
   * least recently counted first. A counted transfer (its report taken or refused) is no longer due
   * until the next block, so the batches go on until no organization filled its share.
   */
  private async countConfirmations(head: bigint, final: bigint | null): Promise<void> {
    const { mode, network } = this.config;
    for (;;) {
      const rows = await this.deps.state.counting(this.deps.manager, mode, network, head, this.deps.orgBatch, final);
      let counted = 0;
      for (const row of rows) {
        const count = Number(head - BigInt(row.block_number) + 1n);
        // Covered by the node's final block: final whatever its count (reported as its requirement at least).
        const confirmations = final !== null && BigInt(row.block_number) <= final ? Math.max(count, row.required_confirmations) : count;
        if (confirmations <= row.confirmations) continue;
        await this.report(row, { kind: 'confirmations', paymentId: row.payment_id, confirmations });
        await this.deps.run((tx) => this.deps.state.setConfirmations(tx, mode, network, row.idempotency_key, confirmations, this.deps.clock.now()));
        counted++;
      }
      if (!counted || !someOrganizationFull(rows, this.deps.orgBatch)) return;
    }
  }

  /**
   * Transfers a reorg put in doubt and the rescan did not find again. One whose transaction is in a
   * block again (one the rescan passed, e.g. its address is no longer watched) keeps its payment, its
   * count restarting there. One whose transaction waits in the mempool again (`mempool`: the ids read
   * this step, on chains that have one; a node puts the transactions of a block it takes back there)
   * keeps its payment with 0 confirmations, and is followed as any unmined transfer from then on. One
   * whose transaction is in neither has its payment CANCELLED (a chain report: also a COMPLETED one,
   * which is a reversal, logged as an error for operators).
   */
  private async settleOrphans(head: bigint, mempool: ReadonlySet<string> | null): Promise<void> {
    const { mode, network } = this.config;
    for (const row of await this.deps.state.orphans(this.deps.manager, mode, network)) {
      const minedIn = await this.rpc('transaction', () => this.follower.transactionBlock(row.tx_hash));
      if (minedIn !== null && minedIn > head) continue; // mined after the head read: the next scan finds it
      if (minedIn === null && mempool?.has(row.tx_hash)) {
        await this.backToMempool(row);
        continue;
      }
      if (minedIn !== null) {
        const block = await this.rpc('block', () => this.follower.block(minedIn));
        const recorded = await this.report(row, { kind: 'chain', paymentId: row.payment_id, confirmations: Number(head - minedIn + 1n) });
        await this.deps.run((tx) =>
          this.deps.state.saveTransfer(
            tx,
            mode,
            network,
            {
              ...row,
              block_number: minedIn.toString(),
              block_hash: block.hash,
              confirmations: recorded?.confirmations ?? row.confirmations,
              cancelled: recorded ? recorded.status === 'CANCELLED' : row.cancelled,
            },
            this.deps.clock.now(),
          ),
        );
        continue;
      }
      const recorded = await this.report(row, { kind: 'chain', paymentId: row.payment_id, confirmations: null });
      // Its transaction may be mined again, after the invoice's window has closed too: the invoice's
      // addresses stay watched for another monitoring window, so the scan still sees it come back.
      const now = this.deps.clock.now();
      await this.deps.run(async (tx) => {
        await this.deps.state.markCancelled(tx, mode, network, row.idempotency_key, now);
        await this.deps.addresses.watchAgain(tx, this.scopeOf(row.organization_id), network, row.invoice_id, new Date(now.getTime() + this.deps.rewatchMs));
      });
      const entry = {
        ...this.labels,
        idempotency_key: row.idempotency_key,
        payment_id: row.payment_id,
        invoice_id: row.invoice_id,
        organization_id: row.organization_id,
        previous_status: recorded?.previousStatus ?? null,
        invoice_status: recorded?.invoice.status ?? null,
        invoice_substatus: recorded?.invoice.substatus ?? null,
      };
      if (recorded?.previousStatus === 'COMPLETED') {
        // Deeper than the payment's required confirmations: money counted as received is gone.
        this.logger.error({ msg: 'completed payment reversed: its transaction left the canonical chain', event: 'chain_payment_reversed', ...entry });
      } else {
        this.logger.warn({ msg: 'payment cancelled: its transaction left the canonical chain', event: 'chain_payment_cancelled', ...entry });
      }
    }
  }

  /**
   * A transfer in doubt whose transaction is in the mempool again: its payment is reported at 0
   * confirmations (a PENDING one stays PENDING, its count back to 0, its invoice still waiting for
   * confirmations; a COMPLETED one stays COMPLETED) and its row becomes an unmined one (block -1), which
   * the block that mines it counts up, or which is cancelled if it leaves the mempool unmined. The
   * invoice's addresses stay watched for another monitoring window, so that block's scan sees it.
   */
  private async backToMempool(row: TransferRow): Promise<void> {
    const { mode, network } = this.config;
    const recorded = await this.report(row, { kind: 'chain', paymentId: row.payment_id, confirmations: 0 });
    this.missingSince.delete(row.idempotency_key);
    const now = this.deps.clock.now();
    await this.deps.run(async (tx) => {
      await this.deps.state.saveTransfer(
        tx,
        mode,
        network,
        {
          ...row,
          block_number: '-1',
          block_hash: '',
          confirmations: recorded?.confirmations ?? row.confirmations,
          cancelled: recorded ? recorded.status === 'CANCELLED' : row.cancelled,
        },
        now,
      );
      await this.deps.addresses.watchAgain(tx, this.scopeOf(row.organization_id), network, row.invoice_id, new Date(now.getTime() + this.deps.rewatchMs));
    });
    this.logger.warn({
      msg: 'block of a payment taken back; its transaction waits in the mempool again',
      event: 'chain_payment_unconfirmed',
      ...this.labels,
      idempotency_key: row.idempotency_key,
      payment_id: row.payment_id,
      invoice_id: row.invoice_id,
      organization_id: row.organization_id,
      status: recorded?.status ?? null,
      confirmations: recorded?.confirmations ?? null,
      invoice_status: recorded?.invoice.status ?? null,
    });
  }

  /** The organization's scope in this watcher's mode (a deposit address or transfer row names the organization). */
  private scopeOf(organizationId: string): Scope {
    return { organizationId: organizationId as Scope['organizationId'], mode: this.config.mode };
  }

  /** A report about a payment recorded before; null (logged at error level) when the payments module refuses it. */
  private async report(
    row: TransferRow,
    report: { kind: 'confirmations'; paymentId: string; confirmations: number } | PaymentChainReport,
  ): Promise<RecordedPayment | null> {
    const scope = this.scopeOf(row.organization_id);
    try {
      return await this.deps.commands.execute(new RecordProviderPaymentCommand(scope, report));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      this.logger.error({
        msg: 'payment report refused',
        event: 'chain_report_refused',
        ...this.labels,
        idempotency_key: row.idempotency_key,
        payment_id: row.payment_id,
        report: report.kind,
        code: error.code,
        error: error.message,
      });
      return null;
    }
  }
}
