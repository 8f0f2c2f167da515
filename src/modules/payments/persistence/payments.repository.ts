import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import { prepared, preparedShape } from '../../../shared/db/prepared';
import type { PendingEvent } from '../../../shared/events/outbox';
import { keysetPage } from '../../../shared/db/keyset-page';
import type { Currency } from '../../../shared/money/currency';
import { Amount, fromDb, renderAmount } from '../../../shared/money/money';
import type { PaymentStatus } from '../domain/payment-status';
import { PaymentRecord } from './payment.record';
import { FOR_INVOICE_SQL, INSERT_PAYMENT_SETTLING_SQL, SETTLING_SQL } from './invoice-payments-sql';
import { PAYMENT_COLUMNS as COLUMNS, paymentListRequest, PaymentListFilter } from './payment-list';

/** Who may see a payment: a tenant scope, or null for a payer without a key (the id is the capability). */
export type PaymentAccess = Scope | null;

interface PaymentRow {
  id: string;
  organization_id: string;
  mode: PaymentRecord['mode'];
  provider_id: string;
  invoice_id: string | null;
  currency: Currency;
  price: string;
  price_usd: string;
  rates_snapshot_id: string;
  status: PaymentStatus;
  idempotency_key: string | null;
  confirmations: number;
  required_confirmations: number;
  happened_at: Date;
  created_at: Date;
  updated_at: Date;
}

function toRecord(r: PaymentRow): PaymentRecord {
  return {
    id: r.id,
    organizationId: r.organization_id,
    mode: r.mode,
    providerId: r.provider_id,
    invoiceId: r.invoice_id,
    currency: r.currency,
    price: fromDb(r.price),
    priceUsd: fromDb(r.price_usd),
    ratesSnapshotId: r.rates_snapshot_id,
    status: r.status,
    idempotencyKey: r.idempotency_key,
    confirmations: r.confirmations,
    requiredConfirmations: r.required_confirmations,
    happenedAt: r.happened_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function accessWhere(access: PaymentAccess, params: unknown[]): string {
  if (!access) return '';
  params.push(access.organizationId, access.mode);
  return ` AND organization_id = $${params.length - 1} AND mode = $${params.length}`;
}

const INSERT_PAYMENT_SQL = prepared(
  'payment_insert',
  `INSERT INTO payments (id, organization_id, mode, provider_id, invoice_id, currency, price, price_usd, rates_snapshot_id,
                         status, idempotency_key, happened_at, created_at, updated_at, confirmations, required_confirmations)
   VALUES ($1, $2, $3, $4, $5, $6, $7::numeric, $8::numeric, $9, $10, $11, $12, $13, $14, $15, $16)
   ON CONFLICT (organization_id, mode, idempotency_key) DO NOTHING
   RETURNING id`,
);
/** A reported payment with an idempotency key (every chain payment has one) is first looked up by it. */
const LOCK_BY_KEY_SQL = prepared(
  'payment_lock_by_key',
  `SELECT ${COLUMNS} FROM payments WHERE organization_id = $1 AND mode = $2 AND idempotency_key = $3 FOR UPDATE`,
);
/** A payment as a settlement of its invoice reads it. */
export interface SettlingPayment {
  id: string;
  status: PaymentStatus;
  /** What was paid, in the payment's currency. */
  price: Amount;
  priceUsd: Amount;
  providerId: string;
  happenedAt: Date;
  createdAt: Date;
  /** A rail reported its transaction in no block any more. */
  offChain: boolean;
}

type SettlingRow = {
  id: string;
  status: PaymentStatus;
  price: string;
  price_usd: string;
  provider_id: string;
  happened_at: Date;
  created_at: Date;
  off_chain: boolean;
};

function settlingOf(r: SettlingRow): SettlingPayment {
  return {
    id: r.id,
    status: r.status,
    price: fromDb(r.price),
    priceUsd: fromDb(r.price_usd),
    providerId: r.provider_id,
    happenedAt: r.happened_at,
    createdAt: r.created_at,
    offChain: r.off_chain,
  };
}

@Injectable()
export class PaymentsRepository {
  async find(m: EntityManager, access: PaymentAccess, id: string): Promise<PaymentRecord | null> {
    const params: unknown[] = [id];
    const rows: PaymentRow[] = await m.query(
      preparedShape('payment_find', `SELECT ${COLUMNS} FROM payments WHERE id = $1${accessWhere(access, params)}`),
      params,
    );
    return rows[0] ? toRecord(rows[0]) : null;
  }

  /** Like find, holding the row lock until the transaction ends. */
  async lock(m: EntityManager, scope: Scope, id: string): Promise<PaymentRecord | null> {
    const params: unknown[] = [id];
    const rows: PaymentRow[] = await m.query(
      preparedShape('payment_lock', `SELECT ${COLUMNS} FROM payments WHERE id = $1${accessWhere(scope, params)} FOR UPDATE`),
      params,
    );
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async lockByIdempotencyKey(m: EntityManager, scope: Scope, key: string): Promise<PaymentRecord | null> {
    const rows: PaymentRow[] = await m.query(LOCK_BY_KEY_SQL, [scope.organizationId, scope.mode, key]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  /**
   * Inserts the payment unless one with the same idempotency key already exists in its scope
   * (INSERT ... ON CONFLICT DO NOTHING). Returns true when this call inserted it.
   */
  async insertIfAbsent(m: EntityManager, p: PaymentRecord): Promise<boolean> {
    const rows: Array<{ id: string }> = await m.query(INSERT_PAYMENT_SQL, this.insertValues(p));
    return rows.length === 1;
  }

  /**
   * Inserts a payment that has no idempotency key (so nothing it could conflict with) and, in the
   * same statement, its payment.created event's row (`PaymentEvents.created`); returns what
   * `settling` would then return for its invoice (the caller holds the invoice's lock).
   */
  async insertForSettling(m: EntityManager, p: PaymentRecord, event: PendingEvent): Promise<SettlingPayment[]> {
    if (p.idempotencyKey !== null) throw new Error('insertForSettling: a payment with an idempotency key may already exist; use insertIfAbsent');
    if (p.invoiceId === null) throw new Error('insertForSettling: the payment has no invoice');
    const rows: SettlingRow[] = await m.query(INSERT_PAYMENT_SETTLING_SQL, [...this.insertValues(p), ...event.values]);
    return rows.map(settlingOf);
  }

  private insertValues(p: PaymentRecord): unknown[] {
    return [
      p.id,
      p.organizationId,
      p.mode,
      p.providerId,
      p.invoiceId,
      p.currency,
      renderAmount(p.price),
      renderAmount(p.priceUsd),
      p.ratesSnapshotId,
      p.status,
      p.idempotencyKey,
      p.happenedAt,
      p.createdAt,
      p.updatedAt,
      p.confirmations,
      p.requiredConfirmations,
    ];
  }

  async updateStatus(m: EntityManager, p: PaymentRecord, status: PaymentStatus, at: Date, confirmations: number = p.confirmations): Promise<void> {
    await m.query(`UPDATE payments SET status = $4, confirmations = $6, updated_at = $5 WHERE id = $1 AND organization_id = $2 AND mode = $3`, [
      p.id,
      p.organizationId,
      p.mode,
      status,
      at,
      confirmations,
    ]);
  }

  /** When a rail reported the (locked) payment's transaction off the canonical chain; null when it never did or it came back. */
  async offChainAt(m: EntityManager, p: PaymentRecord): Promise<Date | null> {
    const rows: Array<{ off_chain_at: Date | null }> = await m.query(`SELECT off_chain_at FROM payments WHERE id = $1 AND organization_id = $2 AND mode = $3`, [
      p.id,
      p.organizationId,
      p.mode,
    ]);
    return rows[0]?.off_chain_at ?? null;
  }

  /** Sets (a time) or clears (null) the payment's off-chain mark. */
  async setOffChain(m: EntityManager, p: PaymentRecord, at: Date | null): Promise<void> {
    await m.query(`UPDATE payments SET off_chain_at = $4 WHERE id = $1 AND organization_id = $2 AND mode = $3`, [p.id, p.organizationId, p.mode, at]);
  }

  /** The payments of one invoice (its scope), oldest first. */
  async forInvoice(m: EntityManager, scope: Scope, invoiceId: string): Promise<PaymentRecord[]> {
    const rows: PaymentRow[] = await m.query(FOR_INVOICE_SQL, [scope.organizationId, scope.mode, invoiceId]);
    return rows.map(toRecord);
  }

  /**
   * What settling the invoice needs of each of its payments (domain/settlement.ts), in one round
   * trip; the caller holds the invoice's lock, so the list is complete.
   */
  async settling(m: EntityManager, scope: Scope, invoiceId: string): Promise<SettlingPayment[]> {
    const rows: SettlingRow[] = await m.query(SETTLING_SQL, [scope.organizationId, scope.mode, invoiceId]);
    return rows.map(settlingOf);
  }

  /**
   * One page of the list, newest first, the number of matches and whether more follow, in one round
   * trip. With `startingAfter` the page starts after that payment (keyset: (created_at, id) below the
   * cursor's, an index range instead of skipping rows; offset then skips from there); total counts
   * every match of the filters. Null when the cursor is not a payment of the scope.
   */
  async list(m: EntityManager, scope: Scope, f: PaymentListFilter): Promise<{ rows: PaymentRecord[]; total: number; hasMore: boolean } | null> {
    const page = await keysetPage<PaymentRow>(m, paymentListRequest(scope, f));
    return page && { ...page, rows: page.rows.map(toRecord) };
  }
}
