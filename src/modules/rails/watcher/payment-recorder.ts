import type { EntityManager } from 'typeorm';
import { someOrganizationFull } from '../../../shared/db/fair-batch';
import { DomainError } from '../../../shared/errors/domain-error';
import { RecordProviderPaymentCommand, type PaymentChainReport, type RecordedPayment } from '../../payments';
import { GetProviderTermsQuery } from '../../providers';
import { paymentTimeOf } from '../domain/block-time';
import type { BlockRef, IncomingTransfer } from '../domain/payment-rail';
import type { TransferRow } from '../persistence/chain-state.repository';
import type { DepositAddressRow } from '../persistence/deposit-addresses.repository';
import type { RefusedTransfer } from '../persistence/unattributed-transfers.repository';
import { confirmationsAt, countedConfirmations, priceOf, transferKey } from './transfer-facts';
import { scopeOf, type WatcherContext } from './watcher-context';
import { RpcFault, rpcCall } from './watcher-faults';
import { NO_KNOWN_REFERENCE, SEVERAL_REFERENCES } from '../domain/unmatched-transfer';

/**
 * Turns transfers into payment reports through the payments module's port (RecordProviderPaymentCommand),
 * and keeps the watcher's row of each recorded transfer in step with what the payments module answered:
 * a new payment (mined or still in the mempool), a known one found again, its confirmations as blocks
 * arrive, and any later report about it (a reorg's).
 */
export class PaymentRecorder {
  constructor(private readonly ctx: WatcherContext) {}

  /** Records one transfer as a payment; answers what the payments module refused (to be kept), else null. */
  async record(
    transfer: IncomingTransfer,
    owner: DepositAddressRow,
    assetSlug: string | null,
    block: BlockRef,
    head: bigint,
    final: bigint | null = null,
  ): Promise<RefusedTransfer | null> {
    const { mode, network } = this.ctx.config;
    if (transfer.units === 0n) return null;
    const providerId = this.ctx.config.providerOf(assetSlug);
    const scope = scopeOf(this.ctx, owner.organization_id);
    const key = transferKey(network, transfer);
    const confirmations = confirmationsAt(head, transfer.blockNumber);
    const context = { ...this.ctx.labels, idempotency_key: key, invoice_id: owner.invoice_id, organization_id: owner.organization_id, provider_id: providerId };
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
    const atKey = await this.ctx.deps.state.findTransfer(this.ctx.deps.manager, mode, network, key);
    const content = { txHash: transfer.txHash, invoiceId: owner.invoice_id, providerId, recipient: transfer.to, units: transfer.units.toString() };
    // A reorg moved the transaction's logs: the row in doubt under this key is another transfer of it (its
    // payment, another invoice's perhaps). It is moved aside, still in doubt, for its own transfer to find.
    const another = atKey && (atKey.orphaned || atKey.cancelled) && !sameTransfer(atKey, content) ? atKey : null;
    if (another) {
      const aside = await this.ctx.deps.run((tx) => this.ctx.deps.state.moveTransferAside(tx, mode, network, key));
      this.ctx.logger.warn({
        msg: 'a reorg put another transfer of the transaction at this key; the row there waits for its own transfer',
        event: 'chain_transfer_key_moved',
        ...context,
        moved_to: aside,
        moved_payment_id: another.payment_id,
      });
    }
    const known = (another ? null : atKey) ?? (await this.ctx.deps.state.findMinedAgain(this.ctx.deps.manager, mode, network, key, content));
    if (known) {
      // Counted as every transfer is: where the chain names a final block, one above it is not final whatever its
      // count (a range read again after a crash, a transaction found in another block).
      const count = countedConfirmations(head, transfer.blockNumber, final, known.required_confirmations);
      const recorded = await this.report(known, { kind: 'chain', paymentId: known.payment_id, confirmations: count });
      await this.ctx.deps.run(async (tx) => {
        if (known.idempotency_key !== key) await this.ctx.deps.state.dropTransfer(tx, mode, network, known.idempotency_key);
        await this.ctx.deps.state.saveTransfer(
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
          this.ctx.deps.clock.now(),
        );
      });
      if (known.orphaned || known.cancelled || known.idempotency_key !== key) {
        this.ctx.logger.warn({
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

    const { provider, price } = await this.termsAndPrice(scope, providerId, transfer.units);
    // A block stamped further ahead of the organization's clock than drift explains counts as now: the
    // payments module refuses times in the future, and the money has arrived.
    const blockTime = new Date(Number(block.timestamp) * 1000);
    const now = await this.ctx.deps.clock.nowFor(scope);
    const happenedAt = paymentTimeOf(blockTime, now);
    // On a chain that names its final block, a new payment above it is not final whatever its count (a watcher
    // catching up sees old blocks with many): recorded unconfirmed, its count follows (countConfirmations).
    const counted = final !== null && transfer.blockNumber > final ? 0 : confirmations;
    try {
      await this.recordNew(transfer, owner, { key, providerId, price, happenedAt, confirmations: counted, context }, found, {
        msg: 'payment seen on chain',
        block: transfer.blockNumber.toString(),
        ...(happenedAt !== blockTime ? { block_time_ahead_ms: blockTime.getTime() - now.getTime() } : {}),
      });
      return null;
    } catch (error) {
      // The payments module refused this transfer (its provider disabled since the address was handed out, ...):
      // it is kept for the merchant (GET /rails/unmatched) to see and retry, in the transaction that moves the cursor.
      if (!(error instanceof DomainError)) throw error;
      const reasonCode = provider.enabled ? error.code : 'provider_disabled';
      this.ctx.logger.warn({
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
   * Money that reached a polled wallet itself without a watched reference (`IncomingTransfer.toWallet`,
   * Solana): no invoice is known, so no payment is asked for; it is kept as an unmatched transfer of the
   * organization that registered the wallet (invoice null, reason `no_known_reference`, or `several_references`
   * when the transaction names more than one of the wallet's payment addresses), in the transaction
   * that moves the cursor, once per idempotency key however often the range is read.
   */
  /** Keeps transfers the payments module refused as unmatched (announced when new), in the caller's transaction `m`. */
  async keepRefused(m: EntityManager, refused: readonly RefusedTransfer[]): Promise<void> {
    for (const transfer of refused) {
      const kept = await this.ctx.deps.unmatched.keep(m, this.ctx.config.mode, transfer, this.ctx.deps.clock.now());
      if (kept?.created) await this.ctx.deps.announceUnmatched(m, kept.row);
    }
  }

  async unreferenced(transfer: IncomingTransfer, organizationId: string, assetSlug: string | null, block: BlockRef): Promise<RefusedTransfer | null> {
    const { network } = this.ctx.config;
    if (transfer.units === 0n) return null;
    const providerId = this.ctx.config.providerOf(assetSlug);
    const { provider, price } = await this.termsAndPrice(scopeOf(this.ctx, organizationId), providerId, transfer.units);
    const key = transferKey(network, transfer);
    this.ctx.logger.warn({
      msg: transfer.severalReferences
        ? 'transfer to a wallet naming several of its payment addresses; kept as unmatched'
        : 'transfer to a wallet without a known reference; kept as unmatched',
      event: 'chain_transfer_unreferenced',
      ...this.ctx.labels,
      idempotency_key: key,
      organization_id: organizationId,
      provider_id: providerId,
      tx_hash: transfer.txHash,
      block: transfer.blockNumber.toString(),
    });
    return {
      organization_id: organizationId,
      network,
      idempotency_key: key,
      address: transfer.to,
      invoice_id: null,
      provider_id: providerId,
      currency: provider.catalog.currency,
      tx_hash: transfer.txHash,
      log_index: transfer.position,
      block_number: transfer.blockNumber.toString(),
      block_hash: block.hash,
      happened_at: new Date(Number(block.timestamp) * 1000),
      units: transfer.units.toString(),
      amount: price,
      ...(transfer.severalReferences
        ? {
            reason_code: SEVERAL_REFERENCES,
            reason:
              'The transaction carries the references of more than one payment address this service handed out for the wallet, so which ' +
              'invoice it pays cannot be told: no invoice is credited; it is kept here and not recorded as a payment.',
          }
        : {
            reason_code: NO_KNOWN_REFERENCE,
            reason:
              'The transaction carries no reference of a payment address this service handed out for the wallet (sent by hand, from an exchange, ' +
              'or with another reference), so no invoice is known: it is kept here and not recorded as a payment.',
          }),
    };
  }

  /** Records a transfer of a transaction still in the mempool: a PENDING payment with 0 confirmations, at the organization's now. */
  async recordUnmined(transfer: IncomingTransfer, owner: DepositAddressRow, key: string): Promise<void> {
    const providerId = this.ctx.config.providerOf(null);
    const scope = scopeOf(this.ctx, owner.organization_id);
    const { price } = await this.termsAndPrice(scope, providerId, transfer.units);
    const context = { ...this.ctx.labels, idempotency_key: key, invoice_id: owner.invoice_id, organization_id: owner.organization_id, provider_id: providerId };
    try {
      const happenedAt = await this.ctx.deps.clock.nowFor(scope);
      const unmined = { tx_hash: transfer.txHash, block_number: '-1', block_hash: '', recipient: transfer.to, units: transfer.units.toString() };
      await this.recordNew(transfer, owner, { key, providerId, price, happenedAt, confirmations: 0, context }, unmined, { msg: 'payment seen in the mempool' });
    } catch (error) {
      // Refused (provider disabled, ...): the scan of the block that mines it keeps it as an unmatched transfer.
      if (!(error instanceof DomainError)) throw error;
      this.ctx.logger.debug({ msg: 'mempool transfer not recorded; it is kept when mined', event: 'chain_mempool_refused', ...context, code: error.code });
    }
  }

  /** The provider's terms (it must be in the catalog) and the price of `units` in its currency. */
  private async termsAndPrice(scope: ReturnType<typeof scopeOf>, providerId: string, units: bigint) {
    const provider = await this.ctx.deps.queries.execute(new GetProviderTermsQuery(scope, providerId));
    if (!provider) throw new Error(`provider ${providerId} is not in the catalog`);
    return { provider, price: priceOf(units, provider.catalog.decimals) };
  }

  /**
   * A new payment for a transfer, mined (`found` names its block) or in the mempool (block -1): reported
   * through the payments module's port, the watcher's row of it saved, its address marked used, and logged
   * (`log`: the message and what it adds) when the payment is new. A refusal (DomainError) is the caller's.
   */
  private async recordNew(
    transfer: IncomingTransfer,
    owner: DepositAddressRow,
    payment: { key: string; providerId: string; price: string; happenedAt: Date; confirmations: number; context: Record<string, unknown> },
    found: Pick<TransferRow, 'tx_hash' | 'block_number' | 'block_hash' | 'recipient' | 'units'>,
    log: { msg: string } & Record<string, unknown>,
  ): Promise<void> {
    const { mode, network } = this.ctx.config;
    const { key, providerId, price, happenedAt, confirmations, context } = payment;
    const scope = scopeOf(this.ctx, owner.organization_id);
    const recorded = await this.ctx.deps.commands.execute(
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
    await this.ctx.deps.run((tx) =>
      this.ctx.deps.state.saveTransfer(
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
          // A mempool transfer stays at 0 until its block is scanned.
          confirmations: found.block_number === '-1' ? 0 : recorded.confirmations,
          required_confirmations: recorded.requiredConfirmations,
          orphaned: false,
          cancelled: recorded.status === 'CANCELLED',
        },
        this.ctx.deps.clock.now(),
      ),
    );
    // The address received money: its key's gap ends here.
    await this.ctx.deps.addresses.markUsed(this.ctx.deps.manager, mode, network, transfer.to);
    if (recorded.created) {
      const { msg, ...extra } = log;
      this.ctx.logger.log({
        msg,
        event: 'chain_payment_recorded',
        ...context,
        payment_id: recorded.paymentId,
        price,
        confirmations,
        status: recorded.status,
        ...extra,
      });
    }
  }

  /**
   * Reports the confirmations of transfers still below their requirement, in fair batches: at most
   * `orgBatch` transfers of one organization per batch, organizations interleaved, each organization's
   * least recently counted first. A counted transfer (its report taken or refused) is no longer due
   * until the next block, so the batches go on until no organization filled its share, or until the
   * step's budget (`countBudgetMs`, at least one batch) is spent: what is left is counted on the next
   * steps, least recently counted first, and the watcher reads new blocks meanwhile. So one organization's
   * thousands of pending transfers (dust sent to its addresses) delay only their own counts, never the
   * scan that finds every organization's new payments, nor the others' counts (each batch takes theirs).
   * True when every transfer due was counted; false when the budget ran out first (the watcher steps
   * again at once, without its pause).
   */
  async countConfirmations(head: bigint, final: bigint | null): Promise<boolean> {
    const { mode, network } = this.ctx.config;
    const deadline = performance.now() + this.ctx.deps.countBudgetMs;
    for (;;) {
      const rows = await this.ctx.deps.state.counting(this.ctx.deps.manager, mode, network, head, this.ctx.deps.orgBatch, final);
      let counted = 0;
      for (const row of rows) {
        // Covered by the node's final block: final whatever its count (reported as its requirement at least).
        const confirmations = countedConfirmations(head, BigInt(row.block_number), final, row.required_confirmations);
        if (confirmations <= row.confirmations) continue;
        if (confirmations >= row.required_confirmations && this.ctx.follower.rechecksTransactions && !(await this.stillThereOrLater(row, final))) continue;
        await this.report(row, { kind: 'confirmations', paymentId: row.payment_id, confirmations });
        await this.ctx.deps.run((tx) => this.ctx.deps.state.setConfirmations(tx, mode, network, row.idempotency_key, confirmations, this.ctx.deps.clock.now()));
        counted++;
      }
      if (!counted || !someOrganizationFull(rows, this.ctx.deps.orgBatch)) return true;
      if (performance.now() >= deadline) return false;
    }
  }

  /**
   * stillThere, except that a node that cannot answer about this one transaction now (its status aged out of the
   * node's cache and its block out of the ledger, a call timing out) does not stop every organization's counts:
   * the transfer goes to the back of its organization's line (its count stamped, unchanged) and is asked again
   * on a later step. False then.
   */
  private async stillThereOrLater(row: TransferRow, final: bigint | null): Promise<boolean> {
    try {
      return await this.stillThere(row, final);
    } catch (error) {
      if (!(error instanceof RpcFault)) throw error;
      const { mode, network } = this.ctx.config;
      await this.ctx.deps.run((tx) =>
        this.ctx.deps.state.setConfirmations(tx, mode, network, row.idempotency_key, row.confirmations, this.ctx.deps.clock.now()),
      );
      this.ctx.logger.warn({
        msg: 'where a transaction stands could not be asked; its payment is counted on a later step',
        event: 'chain_recheck_failed',
        ...this.ctx.labels,
        idempotency_key: row.idempotency_key,
        payment_id: row.payment_id,
        organization_id: row.organization_id,
        error: error.message,
      });
      return false;
    }
  }

  /**
   * Chains whose blocks have no hash to compare (`ChainFollower.rechecksTransactions`, Solana): before a
   * transfer's payment is reported final, where its transaction is now. In its block: true. In another
   * block, or unknown to the node once its final block covers the transfer's (the fork that held it died):
   * put in doubt, and false; settleOrphans then settles it as a reorg's (CANCELLED when it is in no block,
   * its count restarted when it is in another). Unknown while the final block is still below it: false,
   * asked again next step (it is not final yet, so it must not complete).
   */
  private async stillThere(row: TransferRow, final: bigint | null): Promise<boolean> {
    const { mode, network } = this.ctx.config;
    const block = BigInt(row.block_number);
    const covered = final !== null && final >= block;
    const minedIn = await rpcCall('transaction', () => this.ctx.follower.transactionBlock(row.tx_hash, covered ? block : undefined));
    if (minedIn === block) return true;
    if (minedIn === null && (final === null || final < block)) return false;
    await this.ctx.deps.run((tx) => this.ctx.deps.state.markOrphaned(tx, mode, network, row.idempotency_key, this.ctx.deps.clock.now()));
    this.ctx.logger.warn({
      msg:
        minedIn === null
          ? 'the node no longer knows a transaction it had confirmed (its fork was dropped); its transfer is in doubt'
          : 'a transaction the node had confirmed is in another block now; its transfer is in doubt',
      event: 'chain_transaction_dropped',
      ...this.ctx.labels,
      idempotency_key: row.idempotency_key,
      payment_id: row.payment_id,
      invoice_id: row.invoice_id,
      organization_id: row.organization_id,
      block: row.block_number,
      now_in: minedIn?.toString() ?? null,
      final: final?.toString() ?? null,
    });
    return false;
  }

  /** A report about a payment recorded before; null (logged at error level) when the payments module refuses it. */
  async report(
    row: TransferRow,
    report: { kind: 'confirmations'; paymentId: string; confirmations: number } | PaymentChainReport,
  ): Promise<RecordedPayment | null> {
    const scope = scopeOf(this.ctx, row.organization_id);
    try {
      return await this.ctx.deps.commands.execute(new RecordProviderPaymentCommand(scope, report));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      this.ctx.logger.error({
        msg: 'payment report refused',
        event: 'chain_report_refused',
        ...this.ctx.labels,
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

/**
 * Whether a stored transfer row is the transfer found now: the same transaction, invoice, provider,
 * recipient and amount (a row from before recipients and amounts were kept matches on the rest).
 */
function sameTransfer(row: TransferRow, found: { txHash: string; invoiceId: string; providerId: string; recipient: string; units: string }): boolean {
  return (
    row.tx_hash === found.txHash &&
    row.invoice_id === found.invoiceId &&
    row.provider_id === found.providerId &&
    (row.recipient === null || row.recipient === found.recipient) &&
    (row.units === null || BigInt(row.units) === BigInt(found.units))
  );
}
