import type { TransferRow } from '../persistence/chain-state.repository';
import type { MempoolWatch } from './mempool';
import type { PaymentRecorder } from './payment-recorder';
import type { IncomingTransfer, PayoutTransaction, PayoutTransfer } from '../domain/payment-rail';
import type { RefusedTransfer } from '../persistence/unattributed-transfers.repository';
import { countedConfirmations, unaccountedTransfers } from './transfer-facts';
import { scopeOf, type WatcherContext } from './watcher-context';
import { RpcFault, rpcCall } from './watcher-faults';

/** What a transaction run again pays the recipient beyond the transfers of it recorded and not in doubt. */
interface RerunTransfers {
  slug: string | null;
  token: string | null;
  unaccounted: PayoutTransfer[];
}

/** Unmatched transfers asked for again per step (chains that recheck transactions; the rest waits for the next step). */
const UNMATCHED_CHECKS = 100;
/** Of those, at most this many of one organization's mode (fair batch: organizations interleaved). */
const UNMATCHED_CHECKS_PER_ORGANIZATION = 20;

/**
 * Reorganizations: finds that the remembered blocks left the chain and rewinds the cursor to the common
 * ancestor (the transfers above it are put in doubt), then settles each transfer in doubt that the
 * rescan did not find again: mined elsewhere, back in the mempool, or gone (its payment cancelled).
 */
export class ReorgHandler {
  constructor(
    private readonly ctx: WatcherContext,
    private readonly recorder: PaymentRecorder,
    private readonly mempool: MempoolWatch,
  ) {}

  /** Compares the remembered blocks with the chain; on a mismatch rewinds to the highest one still on it. */
  async rewindIfReorganized(cursor: { number: bigint; hash: string }, head: bigint): Promise<boolean> {
    const { mode, network } = this.ctx.config;
    if (cursor.number < 0n) return false;
    // A head below the cursor: a node behind (waited for), or blocks taken back with none in their place yet.
    const shorter = head < cursor.number && this.ctx.follower.onChain ? !(await rpcCall('block', () => this.ctx.follower.onChain!(cursor.hash))) : false;
    const known = await this.ctx.deps.state.blocksBelow(this.ctx.deps.manager, mode, network, cursor.number < head ? cursor.number : head);
    if (!known.length) return false;
    const top = known[0];
    const onChain = await rpcCall('block', () => this.ctx.follower.block(top.number));
    let ancestor: { number: bigint; hash: string } | null = null;
    if (onChain.hash === top.hash) {
      if (!shorter) return false;
      ancestor = top;
    }
    // Blocks that do not follow the remembered ones are also what a node moved to another chain serves:
    // its chain id is asked before they are believed. On another chain nothing is rewound or recorded
    // (the check logs and counts it, and the run loop stops watching until the node is right again).
    if ((await rpcCall('chain', () => this.ctx.identity.ask())) !== this.ctx.config.chain) return true;
    for (const candidate of ancestor ? [] : known.slice(1)) {
      const block = await rpcCall('block', () => this.ctx.follower.block(candidate.number));
      if (block.hash === candidate.hash) {
        ancestor = candidate;
        break;
      }
    }
    if (!ancestor) {
      // Deeper than we remember: go back to just below the oldest remembered block.
      const below = known[known.length - 1].number - 1n;
      ancestor = below >= 0n ? await rpcCall('block', () => this.ctx.follower.block(below)) : { number: -1n, hash: '' };
    }
    const doubted = await this.ctx.deps.run((tx) => this.ctx.deps.state.rewind(tx, mode, network, ancestor, this.ctx.deps.clock.now()));
    this.ctx.logger.warn({
      msg: 'chain reorganization: rewound to the common ancestor',
      event: 'chain_reorg',
      ...this.ctx.labels,
      from_block: cursor.number.toString(),
      ancestor: ancestor.number.toString(),
      transfers_in_doubt: doubted,
    });
    return true;
  }

  /**
   * Transfers a reorg put in doubt and the rescan did not find again. One whose transaction is in a
   * block again and succeeded there (one the rescan passed, e.g. its address is no longer watched), and
   * where transactions run again (EVM, Tron) still pays the recipient what was recorded, keeps its payment, its
   * count restarting there (on a chain that names its `final` block, not final until that block covers
   * its new one, as every transfer's count: `countedConfirmations`). One whose transaction waits in the mempool again (`mempool`: the ids read
   * this step, on chains that have one; a node puts the transactions of a block it takes back there)
   * keeps its payment with 0 confirmations, and is followed as any unmined transfer from then on. One
   * whose transaction is in neither, or failed in its new block, has its payment CANCELLED (a chain report: also a COMPLETED one,
   * which is a reversal, logged as an error for operators).
   */
  async settleOrphans(head: bigint, mempool: ReadonlySet<string> | null, final: bigint | null): Promise<void> {
    const { mode, network } = this.ctx.config;
    for (const row of await this.ctx.deps.state.orphans(this.ctx.deps.manager, mode, network)) {
      try {
        await this.settleOrphan(row, head, mempool, final);
      } catch (error) {
        // A node that cannot answer about this one transaction now (its receipt or block gone from the node,
        // a call timing out) does not hold up every other organization's: it stays in doubt, asked again next step.
        if (!(error instanceof RpcFault)) throw error;
        this.ctx.logger.warn({
          msg: 'a transfer a reorg put in doubt could not be asked about; it is settled on a later step',
          event: 'chain_orphan_check_failed',
          ...this.ctx.labels,
          idempotency_key: row.idempotency_key,
          payment_id: row.payment_id,
          organization_id: row.organization_id,
          error: error.message,
        });
      }
    }
  }

  /** One transfer a reorg put in doubt, as settleOrphans describes. */
  private async settleOrphan(row: TransferRow, head: bigint, mempool: ReadonlySet<string> | null, final: bigint | null): Promise<void> {
    const { mode, network } = this.ctx.config;
    const seenIn = BigInt(row.block_number);
    // Only where it succeeded: mined again on the new fork, it may fail there (the payer's funds moved first).
    let minedIn = await rpcCall('transaction', () => this.ctx.follower.transactionBlock(row.tx_hash, seenIn >= 0n ? seenIn : undefined, { succeeded: true }));
    if (minedIn !== null && minedIn > head) return; // mined after the head read: the next scan finds it
    /** The transfers of a transaction run again that no recorded transfer accounts for: recorded once its own is cancelled. */
    let arrived: (RerunTransfers & { blockNumber: bigint }) | null = null;
    if (minedIn !== null) {
      const rerun = await this.paysAsRecorded(row);
      if (rerun === null) return; // the node showed the block but not what it moved: asked again next step
      if (rerun !== true) {
        this.ctx.logger.warn({
          msg: 'a transaction mined again after a reorg no longer pays what its payment recorded; the payment is cancelled',
          event: 'chain_transfer_changed',
          ...this.ctx.labels,
          idempotency_key: row.idempotency_key,
          payment_id: row.payment_id,
          tx_hash: row.tx_hash,
          block: minedIn.toString(),
          recorded_units: row.units,
          paid_units: rerun.unaccounted.map((t) => t.units.toString()),
        });
        arrived = { ...rerun, blockNumber: minedIn };
        minedIn = null;
      }
    }
    if (minedIn === null && mempool?.has(row.tx_hash)) {
      await this.backToMempool(row);
      return;
    }
    if (minedIn !== null) {
      const block = await rpcCall('block', () => this.ctx.follower.block(minedIn));
      // Counted as every transfer is: where the chain names a final block, its new block must be under it to be final.
      const confirmations = countedConfirmations(head, minedIn, final, row.required_confirmations);
      const recorded = await this.recorder.report(row, { kind: 'chain', paymentId: row.payment_id, confirmations });
      await this.ctx.deps.run((tx) =>
        this.ctx.deps.state.saveTransfer(
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
          this.ctx.deps.clock.now(),
        ),
      );
      return;
    }
    const recorded = await this.recorder.report(row, { kind: 'chain', paymentId: row.payment_id, confirmations: null });
    // Its transaction may be mined again, after the invoice's window has closed too: the invoice's
    // addresses stay watched for another monitoring window, so the scan still sees it come back.
    const now = this.ctx.deps.clock.now();
    await this.ctx.deps.run(async (tx) => {
      await this.ctx.deps.state.markCancelled(tx, mode, network, row.idempotency_key, now);
      await this.ctx.deps.addresses.watchAgain(
        tx,
        scopeOf(this.ctx, row.organization_id),
        network,
        row.invoice_id,
        new Date(now.getTime() + this.ctx.deps.rewatchMs),
      );
    });
    const entry = {
      ...this.ctx.labels,
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
      this.ctx.logger.error({ msg: 'completed payment reversed: its transaction left the canonical chain', event: 'chain_payment_reversed', ...entry });
    } else {
      this.ctx.logger.warn({ msg: 'payment cancelled: its transaction left the canonical chain', event: 'chain_payment_cancelled', ...entry });
    }
    if (arrived?.unaccounted.length) await this.recordArrived(row, arrived, head, final);
  }

  /**
   * What a transaction run again does pay the recipient where the rescan did not see it (its address no
   * longer watched): recorded as the scan records a transfer (a new payment of the invoice, or a transfer
   * kept unmatched), after the transfer it replaces was cancelled, so the payer is counted for what arrived.
   */
  private async recordArrived(row: TransferRow, arrived: RerunTransfers & { blockNumber: bigint }, head: bigint, final: bigint | null): Promise<void> {
    const { mode, network } = this.ctx.config;
    const recipient = row.recipient!;
    // The address whatever its window (watched as of the epoch: every address handed out on the network).
    const [owner] = await this.ctx.deps.addresses.watchedAmong(this.ctx.deps.manager, mode, network, [recipient], new Date(0));
    if (!owner) return;
    const block = await rpcCall('block', () => this.ctx.follower.block(arrived.blockNumber));
    const refused: RefusedTransfer[] = [];
    for (const t of arrived.unaccounted) {
      const transfer: IncomingTransfer = {
        to: recipient,
        asset: arrived.token,
        units: t.units,
        txHash: row.tx_hash,
        output: t.output,
        position: /^\d+$/.test(t.output) ? Number(t.output) : null,
        blockNumber: arrived.blockNumber,
        blockHash: block.hash,
      };
      const refusal = await this.recorder.record(transfer, owner, arrived.slug, block, head, final);
      if (refusal) refused.push(refusal);
    }
    if (refused.length) await this.ctx.deps.run((tx) => this.recorder.keepRefused(tx, refused));
  }

  /**
   * Whether a transfer's transaction, mined again, still pays its recipient the amount recorded in the
   * recorded asset (`ChainFollower.rerunsTransactions`): true where the chain does not run it again, or the
   * row predates recipients and amounts, or names a provider the section no longer carries. The
   * transaction's transfers to the recipient are matched one for one against the other transfers of it
   * recorded and not in doubt (two equal transfers of one transaction are two payments, never one
   * counted twice); when none left is of the recorded amount, what is left is answered (money that
   * arrived and that no recorded transfer accounts for). Null when the node does not show it now (one of
   * a load-balanced set without its receipt, a fault): nothing is decided this step.
   */
  private async paysAsRecorded(row: TransferRow): Promise<true | RerunTransfers | null> {
    const { mode, network, assets, providerOf, providers } = this.ctx.config;
    if (!this.ctx.follower.rerunsTransactions || row.recipient === null || row.units === null || !providers.includes(row.provider_id)) return true;
    const slug = Object.keys(assets).find((s) => providerOf(s) === row.provider_id) ?? null;
    if (slug === null && providerOf(null) !== row.provider_id) return true;
    const token = slug === null ? null : assets[slug];
    const recipient = row.recipient;
    let tx: PayoutTransaction | null;
    try {
      tx = await rpcCall('transaction', () => this.ctx.follower.transactionTransfers(row.tx_hash, recipient, token));
    } catch {
      return null;
    }
    if (tx === null || tx.blockNumber === null) return null;
    if (!tx.success) return { slug, token, unaccounted: [] };
    const live = (await this.ctx.deps.state.transfersOf(this.ctx.deps.manager, mode, network, row.tx_hash)).filter(
      (r) =>
        r.idempotency_key !== row.idempotency_key &&
        !r.orphaned &&
        !r.cancelled &&
        r.recipient === recipient &&
        r.provider_id === row.provider_id &&
        r.units !== null,
    );
    const unaccounted = unaccountedTransfers(
      tx.transfers,
      live.map((r) => BigInt(r.units!)),
    );
    const units = BigInt(row.units);
    return unaccounted.some((t) => t.units === units) ? true : { slug, token, unaccounted };
  }

  /**
   * Chains whose blocks have no hash to compare (`ChainFollower.rechecksTransactions`, Solana): the open
   * unmatched transfers whose slot the node's final block now covers are asked for once more (at most
   * UNMATCHED_CHECKS a step, at most UNMATCHED_CHECKS_PER_ORGANIZATION of one organization's mode, oldest first
   * in each, organizations interleaved). One whose transaction the node no longer knows (its fork died)
   * is put in doubt (`in_doubt`), as a reorg puts one on other chains; it is kept again, and asked again, if
   * its transaction lands later. The others are checked for good.
   */
  async checkUnmatched(final: bigint): Promise<void> {
    const { mode, network } = this.ctx.config;
    const rows = await this.ctx.deps.unmatched.unchecked(this.ctx.deps.manager, mode, network, final, UNMATCHED_CHECKS, UNMATCHED_CHECKS_PER_ORGANIZATION);
    for (const row of rows) {
      const minedIn = await rpcCall('transaction', () => this.ctx.follower.transactionBlock(row.tx_hash, BigInt(row.block_number)));
      const gone = minedIn === null;
      await this.ctx.deps.run((tx) => this.ctx.deps.unmatched.checked(tx, mode, network, row.id, gone, this.ctx.deps.clock.now()));
      if (gone) {
        this.ctx.logger.warn({
          msg: 'the node no longer knows the transaction of an unmatched transfer (its fork was dropped); it is in doubt',
          event: 'chain_unmatched_dropped',
          ...this.ctx.labels,
          id: row.id,
          organization_id: row.organization_id,
          tx_hash: row.tx_hash,
          block: row.block_number,
        });
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
    const { mode, network } = this.ctx.config;
    const recorded = await this.recorder.report(row, { kind: 'chain', paymentId: row.payment_id, confirmations: 0 });
    this.mempool.forget(row.idempotency_key);
    const now = this.ctx.deps.clock.now();
    await this.ctx.deps.run(async (tx) => {
      await this.ctx.deps.state.saveTransfer(
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
      await this.ctx.deps.addresses.watchAgain(
        tx,
        scopeOf(this.ctx, row.organization_id),
        network,
        row.invoice_id,
        new Date(now.getTime() + this.ctx.deps.rewatchMs),
      );
    });
    this.ctx.logger.warn({
      msg: 'block of a payment taken back; its transaction waits in the mempool again',
      event: 'chain_payment_unconfirmed',
      ...this.ctx.labels,
      idempotency_key: row.idempotency_key,
      payment_id: row.payment_id,
      invoice_id: row.invoice_id,
      organization_id: row.organization_id,
      status: recorded?.status ?? null,
      confirmations: recorded?.confirmations ?? null,
      invoice_status: recorded?.invoice.status ?? null,
    });
  }
}
