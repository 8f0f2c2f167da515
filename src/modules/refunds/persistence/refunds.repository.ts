import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Mode, Scope } from '../../../shared/auth/request-context';
import { keysetPage, KeysetPage, ListWhere } from '../../../shared/db/keyset-page';
import type { RefundRate } from '../domain/refund-amounts';
import type { RefundStatus } from '../domain/refund-status';
import { FAIR_REFUNDS_SQL } from './refund-batches-sql';

/** A refund as stored; amounts are decimal text as PostgreSQL renders numeric. */
/** A refund as a change names it: its id under its organization and mode, never the id alone. */
export type RefundKey = Pick<RefundRow, 'id' | 'organization_id' | 'mode'>;

export interface RefundRow {
  id: string;
  organization_id: string;
  mode: Mode;
  invoice_id: string;
  status: RefundStatus;
  currency: string;
  amount: string;
  amount_usd: string;
  rate: RefundRate;
  rate_usd: string;
  rates_snapshot_id: string;
  reason: string | null;
  claim_token: string;
  expires_at: Date;
  provider_id: string | null;
  network: string | null;
  payout_currency: string | null;
  address: string | null;
  payout_amount: string | null;
  payout_units: string | null;
  payout_uri: string | null;
  chain_id: number | null;
  token_contract: string | null;
  claimed_at: Date | null;
  /** The chain's tip height when the destination was set (decimal text); the payout must be mined after it. */
  claimed_height: string | null;
  tx_hash: string | null;
  /** The node showed the reported transaction unmined after the claim. */
  tx_seen_unmined: boolean;
  /** Since when (real time) the node does not show the reported transaction. */
  tx_missing_since: Date | null;
  /** A payout taken back after the grace, watched for a while in case it confirms later. */
  released_tx_hash: string | null;
  released_at: Date | null;
  sent_at: Date | null;
  confirmations: number;
  required_confirmations: number;
  completed_at: Date | null;
  canceled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type NewRefund = Pick<
  RefundRow,
  | 'id'
  | 'organization_id'
  | 'mode'
  | 'invoice_id'
  | 'currency'
  | 'amount'
  | 'amount_usd'
  | 'rate'
  | 'rate_usd'
  | 'rates_snapshot_id'
  | 'reason'
  | 'claim_token'
  | 'expires_at'
>;

export interface Payout {
  provider_id: string;
  network: string;
  payout_currency: string;
  address: string;
  payout_amount: string;
  payout_units: string;
  payout_uri: string | null;
  chain_id: number | null;
  token_contract: string | null;
  required_confirmations: number;
  /** Null in test mode on a network without a rail (no chain to ask; the payout is simulated). */
  claimed_height: string | null;
}

/** How a reported transaction stands when it is taken (SENT). */
export interface SentReport {
  txHash: string;
  confirmations: number;
  seenUnmined: boolean;
  /** Set when the node does not show it (a family without mempool queries): the grace runs from then. */
  missingSince: Date | null;
}

const COLUMNS = `id, organization_id, mode, invoice_id, status, currency, amount::text AS amount, amount_usd::text AS amount_usd, rate,
  rate_usd::text AS rate_usd, rates_snapshot_id, reason, claim_token, expires_at, provider_id, network, payout_currency, address,
  payout_amount::text AS payout_amount, payout_units::text AS payout_units, payout_uri, chain_id::float8 AS chain_id, token_contract, claimed_at, claimed_height::text AS claimed_height, tx_hash,
  tx_seen_unmined, tx_missing_since, released_tx_hash, released_at, sent_at, confirmations, required_confirmations, completed_at, canceled_at,
  created_at, updated_at`;

export interface RefundFilter {
  invoiceId?: string;
  status?: RefundStatus[];
  /** Inclusive bounds on created_at (the exports' period). */
  createdFrom?: Date;
  createdTo?: Date;
  startingAfter?: string;
  limit: number;
  offset: number;
  /** False: the page's total is not counted (-1), for a caller that walks every page and counted on the first. */
  countTotal?: boolean;
}

/**
 * The refunds table: every read and change of the merchant's side scoped by organization and mode;
 * the claim finds its refund by token (the payer's capability); the workers walk the states they
 * move across organizations and change each refund under its row lock.
 */
/** Rows of an UPDATE ... RETURNING (the driver answers [rows, count] for it, and the rows alone for SELECT and INSERT). */
function returned(result: unknown): RefundRow[] {
  return (Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result) as RefundRow[];
}

@Injectable()
export class RefundsRepository {
  async insert(m: EntityManager, r: NewRefund, now: Date): Promise<RefundRow> {
    const rows: RefundRow[] = await m.query(
      `INSERT INTO refunds (id, organization_id, mode, invoice_id, status, currency, amount, amount_usd, rate, rate_usd, rates_snapshot_id, reason,
                            claim_token, expires_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'AWAITING_DESTINATION', $5, $6::numeric, $7::numeric, $8, $9::numeric, $10, $11, $12, $13, $14, $14)
       RETURNING ${COLUMNS}`,
      [
        r.id,
        r.organization_id,
        r.mode,
        r.invoice_id,
        r.currency,
        r.amount,
        r.amount_usd,
        r.rate,
        r.rate_usd,
        r.rates_snapshot_id,
        r.reason,
        r.claim_token,
        r.expires_at,
        now,
      ],
    );
    return rows[0];
  }

  async find(m: EntityManager, scope: Scope, id: string, lock = false): Promise<RefundRow | null> {
    const rows: RefundRow[] = await m.query(`SELECT ${COLUMNS} FROM refunds WHERE organization_id = $1 AND mode = $2 AND id = $3${lock ? ' FOR UPDATE' : ''}`, [
      scope.organizationId,
      scope.mode,
      id,
    ]);
    return rows[0] ?? null;
  }

  async findByToken(m: EntityManager, token: string, lock = false): Promise<RefundRow | null> {
    const rows: RefundRow[] = await m.query(`SELECT ${COLUMNS} FROM refunds WHERE claim_token = $1${lock ? ' FOR UPDATE' : ''}`, [token]);
    return rows[0] ?? null;
  }

  /** The invoice's refunds (its refundable amount is what they do not hold). */
  async ofInvoice(m: EntityManager, scope: Scope, invoiceId: string): Promise<Array<{ status: RefundStatus; amount_usd: string }>> {
    return m.query(`SELECT status, amount_usd::text AS amount_usd FROM refunds WHERE organization_id = $1 AND mode = $2 AND invoice_id = $3`, [
      scope.organizationId,
      scope.mode,
      invoiceId,
    ]);
  }

  /** The invoice's refunds with what the release after a reversal weighs (under lockInvoiceRefunds). */
  async heldOfInvoice(
    m: EntityManager,
    scope: Scope,
    invoiceId: string,
  ): Promise<Array<{ id: string; status: RefundStatus; amount_usd: string; created_at: Date }>> {
    return m.query(`SELECT id, status, amount_usd::text AS amount_usd, created_at FROM refunds WHERE organization_id = $1 AND mode = $2 AND invoice_id = $3`, [
      scope.organizationId,
      scope.mode,
      invoiceId,
    ]);
  }

  /** USD refunded per invoice (COMPLETED refunds), for the invoice reads. */
  /**
   * One change of an invoice's refunds at a time, until the transaction ends: a new refund taking from
   * the refundable amount, or a completion summing the completed ones (refundedUsd after this lock sees
   * every completion committed before it, so two completing at once both count).
   */
  async lockInvoiceRefunds(m: EntityManager, scope: Scope, invoiceId: string): Promise<void> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`refunds:${scope.mode}:${invoiceId}`]);
  }

  async refundedUsd(m: EntityManager, scope: Scope, invoiceIds: readonly string[]): Promise<Map<string, string>> {
    if (!invoiceIds.length) return new Map();
    const rows: Array<{ invoice_id: string; usd: string }> = await m.query(
      `SELECT invoice_id, sum(amount_usd)::text AS usd FROM refunds
        WHERE organization_id = $1 AND mode = $2 AND invoice_id = ANY($3::text[]) AND status = 'COMPLETED' GROUP BY invoice_id`,
      [scope.organizationId, scope.mode, [...invoiceIds]],
    );
    return new Map(rows.map((r) => [r.invoice_id, r.usd]));
  }

  /** A dashboard window's refunds: made in it (not canceled or expired), and completed in it with their USD value. */
  async figures(m: EntityManager, scope: Scope, from: Date, to: Date): Promise<{ count: number; completedCount: number; refundedUsd: string }> {
    const rows: Array<{ count: string; completed_count: string; refunded_usd: string }> = await m.query(
      `SELECT count(*) FILTER (WHERE created_at >= $3 AND created_at < $4 AND status NOT IN ('CANCELED', 'EXPIRED'))::text AS count,
              count(*) FILTER (WHERE status = 'COMPLETED' AND completed_at >= $3 AND completed_at < $4)::text AS completed_count,
              coalesce(sum(amount_usd) FILTER (WHERE status = 'COMPLETED' AND completed_at >= $3 AND completed_at < $4), 0)::text AS refunded_usd
         FROM refunds WHERE organization_id = $1 AND mode = $2 AND (created_at >= $3 OR completed_at >= $3)`,
      [scope.organizationId, scope.mode, from, to],
    );
    return { count: Number(rows[0].count), completedCount: Number(rows[0].completed_count), refundedUsd: rows[0].refunded_usd };
  }

  async list(m: EntityManager, scope: Scope, filter: RefundFilter): Promise<KeysetPage<RefundRow> | null> {
    const where = new ListWhere(scope);
    if (filter.invoiceId !== undefined) where.add((p) => `invoice_id = ${p}`, filter.invoiceId);
    if (filter.status?.length) where.statuses(filter.status);
    if (filter.createdFrom) where.add((p) => `created_at >= ${p}`, filter.createdFrom, 'time');
    if (filter.createdTo) where.add((p) => `created_at <= ${p}`, filter.createdTo, 'time');
    return keysetPage<RefundRow>(m, {
      table: 'refunds',
      columns: COLUMNS,
      where: where.where,
      parts: where.parts,
      params: where.params,
      filtered: where.filtered,
      limit: filter.limit,
      offset: filter.offset,
      startingAfter: filter.startingAfter,
      countTotal: filter.countTotal,
    });
  }

  async setStatus(m: EntityManager, key: RefundKey, status: RefundStatus, now: Date): Promise<RefundRow> {
    const rows = returned(
      await m.query(
        `UPDATE refunds SET status = $2, updated_at = $3,
              canceled_at = CASE WHEN $2 = 'CANCELED' THEN $3 ELSE canceled_at END,
              completed_at = CASE WHEN $2 = 'COMPLETED' THEN $3 ELSE completed_at END
        WHERE id = $1 AND organization_id = $4 AND mode = $5 RETURNING ${COLUMNS}`,
        [key.id, status, now, key.organization_id, key.mode],
      ),
    );
    return rows[0];
  }

  async setPayout(m: EntityManager, key: RefundKey, p: Payout, now: Date): Promise<RefundRow> {
    const rows = returned(
      await m.query(
        `UPDATE refunds SET status = 'AWAITING_PAYOUT', provider_id = $2, network = $3, payout_currency = $4, address = $5, payout_amount = $6::numeric,
              payout_units = $7::numeric, payout_uri = $8, chain_id = $9, token_contract = $10, required_confirmations = $11, claimed_at = $12, updated_at = $12,
              claimed_height = $13::bigint
        WHERE id = $1 AND organization_id = $14 AND mode = $15 RETURNING ${COLUMNS}`,
        [
          key.id,
          p.provider_id,
          p.network,
          p.payout_currency,
          p.address,
          p.payout_amount,
          p.payout_units,
          p.payout_uri,
          p.chain_id,
          p.token_contract,
          p.required_confirmations,
          now,
          p.claimed_height,
          key.organization_id,
          key.mode,
        ],
      ),
    );
    return rows[0];
  }

  async setSent(m: EntityManager, key: RefundKey, r: SentReport, now: Date): Promise<RefundRow> {
    const rows = returned(
      await m.query(
        `UPDATE refunds SET status = 'SENT', tx_hash = $2, confirmations = $3, tx_seen_unmined = $4, tx_missing_since = $5, sent_at = $6, updated_at = $6
          WHERE id = $1 AND organization_id = $7 AND mode = $8 RETURNING ${COLUMNS}`,
        [key.id, r.txHash, r.confirmations, r.seenUnmined, r.missingSince, now, key.organization_id, key.mode],
      ),
    );
    return rows[0];
  }

  /**
   * The reported transaction does not pay the refund (or left the node for longer than the grace): the
   * refund waits for a payout again (its caller releases the transfers it held, ReleasePayoutTransfersCommand). `released` keeps a transaction taken back
   * after the grace in view (`releasedPayouts`).
   */
  async clearSent(m: EntityManager, key: RefundKey, now: Date, released: { txHash: string; at: Date } | null = null): Promise<RefundRow> {
    const rows = returned(
      await m.query(
        `UPDATE refunds SET status = 'AWAITING_PAYOUT', tx_hash = NULL, sent_at = NULL, confirmations = 0, tx_seen_unmined = false, tx_missing_since = NULL,
              released_tx_hash = coalesce($3, released_tx_hash), released_at = coalesce($4, released_at),
              released_checked_at = CASE WHEN $3::text IS NULL THEN released_checked_at END, updated_at = $2
          WHERE id = $1 AND organization_id = $5 AND mode = $6 RETURNING ${COLUMNS}`,
        [key.id, now, released?.txHash ?? null, released?.at ?? null, key.organization_id, key.mode],
      ),
    );
    return rows[0];
  }

  /** What the node shows of the SENT refund's transaction now: seen unmined, or missing since when (null: shown). */
  async setTxSighting(m: EntityManager, key: RefundKey, seenUnmined: boolean, missingSince: Date | null): Promise<RefundRow> {
    const rows = returned(
      await m.query(
        `UPDATE refunds SET tx_seen_unmined = $2, tx_missing_since = $3 WHERE id = $1 AND organization_id = $4 AND mode = $5 RETURNING ${COLUMNS}`,
        [key.id, seenUnmined, missingSince, key.organization_id, key.mode],
      ),
    );
    return rows[0];
  }

  /**
   * Payouts taken back after the grace and released since `since` (the worker logs one that confirms
   * after all), a fair batch: at most `cap` per organization and mode, least recently checked first
   * (never checked, then oldest released). The batch is stamped checked: a payout the node still does
   * not know goes to the back of its organization's line.
   */
  async releasedPayouts(m: EntityManager, since: Date, cap: number, limit: number): Promise<Array<{ id: string; organization_id: string; mode: Mode }>> {
    return m.query(FAIR_REFUNDS_SQL.released, [cap, limit, since]);
  }

  /** Stops watching a payout taken back after the grace. */
  async forgetReleased(m: EntityManager, key: RefundKey): Promise<void> {
    await m.query(
      `UPDATE refunds SET released_tx_hash = NULL, released_at = NULL, released_checked_at = NULL WHERE id = $1 AND organization_id = $2 AND mode = $3`,
      [key.id, key.organization_id, key.mode],
    );
  }

  async setConfirmations(m: EntityManager, key: RefundKey, confirmations: number, now: Date): Promise<RefundRow> {
    const rows = returned(
      await m.query(`UPDATE refunds SET confirmations = $2, updated_at = $3 WHERE id = $1 AND organization_id = $4 AND mode = $5 RETURNING ${COLUMNS}`, [
        key.id,
        confirmations,
        now,
        key.organization_id,
        key.mode,
      ]),
    );
    return rows[0];
  }

  /**
   * Claims past their time without a destination (the expiry worker locks and moves each), a fair
   * batch (shared/db/fair-batch.ts): at most `cap` per organization and mode, least recently checked
   * first. The batch is stamped checked (at the database's now): a claim the worker finds still open at its
   * organization's own now goes to the back of its organization's line.
   */
  async expiredClaims(m: EntityManager, now: Date, cap: number, limit: number): Promise<Array<{ id: string; organization_id: string; mode: Mode }>> {
    return m.query(FAIR_REFUNDS_SQL.expiredClaims, [cap, limit, now]);
  }

  /**
   * Refunds reported sent (the confirmation worker checks each on its chain), a fair batch: at most
   * `cap` per organization and mode, least recently checked first (never checked, then oldest sent).
   * The batch is stamped checked (at the database's now): a payout the worker cannot finish this pass (not on the
   * chain yet, short of its confirmations) goes to the back of its organization's line.
   */
  async sent(m: EntityManager, cap: number, limit: number): Promise<Array<{ id: string; organization_id: string; mode: Mode }>> {
    return m.query(FAIR_REFUNDS_SQL.sent, [cap, limit]);
  }
}
