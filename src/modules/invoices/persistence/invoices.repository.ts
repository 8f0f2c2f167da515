import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import { PendingEvent, withEventRow } from '../../../shared/events/outbox';
import { prepared, preparedShape } from '../../../shared/db/prepared';
import { keysetPage } from '../../../shared/db/keyset-page';
import { writeBehind } from '../../../shared/db/pipelined-transaction';
import type { Currency } from '../../../shared/money/currency';
import { Amount, fromDb, renderAmount } from '../../../shared/money/money';
import type { InvoiceStatus, InvoiceSubstatus } from '../domain/invoice-status';
import { InvoiceCalculationRecord } from './invoice-calculation.record';
import { InvoiceItemRecord } from './invoice-item.record';
import { InvoiceRecord } from './invoice.record';
import {
  INSERT_INVOICE_SQL,
  INSERT_INVOICE_WITH_EVENT_SQL,
  INSERT_SUBSCRIPTION_INVOICE_SQL,
  INSERT_SUBSCRIPTION_INVOICE_WITH_EVENT_SQL,
  INVOICE_COLUMNS,
  READ_INVOICE_BY_ID_SQL,
  READ_INVOICE_SCOPED_SQL,
  sweepDueSql,
} from './invoice-sql';
import { invoiceListRequest, InvoiceListFilter } from './invoice-list';
import type { CurrencyChangeWindow } from '../domain/currency-change';

/**
 * Who may see an invoice: a tenant scope (organization and mode), or null for a payer's call
 * without a key, where the id alone (globally unique) finds the invoice (decisions §3).
 */
export type InvoiceAccess = Scope | null;

interface InvoiceRow {
  id: string;
  organization_id: string;
  mode: InvoiceRecord['mode'];
  status: InvoiceStatus;
  substatus: InvoiceSubstatus | null;
  currency: Currency;
  price: string;
  price_usd: string;
  refunded_usd: string;
  customer_email: string | null;
  metadata: Record<string, string>;
  redirect_url: string | null;
  rates_snapshot_id: string | null;
  rates_taken_at: Date | null;
  expires_at: Date | null;
  clock_held_until: Date | null;
  created_at: Date;
  updated_at: Date;
  subscription_id: string | null;
  period_start: Date | null;
  period_end: Date | null;
}

function toRecord(row: InvoiceRow): InvoiceRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    mode: row.mode,
    status: row.status,
    substatus: row.substatus,
    currency: row.currency,
    price: fromDb(row.price),
    priceUsd: fromDb(row.price_usd),
    refundedUsd: fromDb(row.refunded_usd),
    customerEmail: row.customer_email,
    metadata: row.metadata ?? {},
    redirectUrl: row.redirect_url,
    ratesSnapshotId: row.rates_snapshot_id,
    ratesTakenAt: row.rates_taken_at,
    expiresAt: row.expires_at,
    clockHeldUntil: row.clock_held_until,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    subscriptionId: row.subscription_id,
    periodStart: row.period_start,
    periodEnd: row.period_end,
  };
}

/** Item and calculation rows as the one-query read returns them (json_build_object: amounts as text, times ISO). */
interface ItemJson {
  id: string;
  organization_id: string;
  mode: InvoiceRecord['mode'];
  invoice_id: string;
  type: InvoiceItemRecord['type'];
  currency: Currency;
  product_id: string | null;
  billing_schema_id: string | null;
  payment_intent_id: string | null;
  price: string | null;
  quantity: number;
  position: number;
  status: string;
  exclude_reason: string | null;
  description: string | null;
  created_at: string;
  updated_at: string | null;
}

interface CalculationJson {
  id: string;
  organization_id: string;
  mode: InvoiceRecord['mode'];
  invoice_id: string;
  invoice_item_id: string | null;
  title: string;
  calculation_type: string;
  idx: number;
  position: number;
  currency: Currency;
  initial_price: string;
  price_delta: string;
  price: string;
  details: object;
  created_at: string;
  updated_at: string | null;
}

function itemFromJson(j: ItemJson): InvoiceItemRecord {
  return {
    id: j.id,
    organizationId: j.organization_id,
    mode: j.mode,
    invoiceId: j.invoice_id,
    type: j.type,
    currency: j.currency,
    productId: j.product_id,
    billingSchemaId: j.billing_schema_id,
    paymentIntentId: j.payment_intent_id,
    price: j.price === null ? null : fromDb(j.price),
    quantity: j.quantity,
    position: j.position,
    status: j.status,
    excludeReason: j.exclude_reason,
    description: j.description ?? null,
    createdAt: new Date(j.created_at),
    updatedAt: j.updated_at === null ? null : new Date(j.updated_at),
  };
}

function calculationFromJson(j: CalculationJson): InvoiceCalculationRecord {
  return {
    id: j.id,
    organizationId: j.organization_id,
    mode: j.mode,
    invoiceId: j.invoice_id,
    invoiceItemId: j.invoice_item_id,
    title: j.title,
    calculationType: j.calculation_type,
    idx: j.idx,
    position: j.position,
    currency: j.currency,
    initialPrice: fromDb(j.initial_price),
    priceDelta: fromDb(j.price_delta),
    price: fromDb(j.price),
    details: j.details,
    createdAt: new Date(j.created_at),
    updatedAt: j.updated_at === null ? null : new Date(j.updated_at),
  };
}

/** The invoice with the parts a read asked for (null when not asked). */
export interface InvoiceWithParts {
  invoice: InvoiceRecord;
  items: InvoiceItemRecord[] | null;
  calculations: InvoiceCalculationRecord[] | null;
}

function accessWhere(access: InvoiceAccess, params: unknown[]): string {
  if (!access) return '';
  params.push(access.organizationId, access.mode);
  return ` AND organization_id = $${params.length - 1} AND mode = $${params.length}`;
}

const UPDATE_STATUS_SQL = `UPDATE invoices SET status = $4, substatus = $5, updated_at = $6 WHERE id = $1 AND organization_id = $2 AND mode = $3`;
/** The status update with an event's row (the invoice's invoice.updated) written by the same statement. */
const UPDATE_STATUS_WITH_EVENT_SQL = prepared('invoice_status_event', withEventRow(UPDATE_STATUS_SQL, 6));
/** A settlement's status move, with the providers its payments went through when that list grew ($7, else null). */
const SETTLE_TEXT = `UPDATE invoices SET status = $4, substatus = $5, updated_at = $6, payment_provider_ids = COALESCE($7::text[], payment_provider_ids)
    WHERE id = $1 AND organization_id = $2 AND mode = $3`;
const SETTLE_SQL = prepared('invoice_settle', SETTLE_TEXT);
const SETTLE_WITH_EVENT_SQL = prepared('invoice_settle_event', withEventRow(SETTLE_TEXT, 7));
/** The providers alone: a new payment through another provider that moves no status. */
const UPDATE_PROVIDERS_SQL = prepared(
  'invoice_payment_providers',
  `UPDATE invoices SET payment_provider_ids = $4::text[] WHERE id = $1 AND organization_id = $2 AND mode = $3`,
);

/** An invoice under its row lock, with the list's read model of its payments. */
export type LockedInvoice = InvoiceRecord & { paymentProviderIds: string[] };

@Injectable()
export class InvoicesRepository {
  /**
   * Writes a new invoice with its items and calculation lines in one statement (one round trip;
   * a single statement is atomic, so it needs no surrounding transaction of its own), and, when
   * given, its event's row in the same statement (`EventOutbox.prepare`).
   */
  async insertInvoice(
    m: EntityManager,
    invoice: InvoiceRecord,
    items: InvoiceItemRecord[],
    calculations: InvoiceCalculationRecord[],
    event: PendingEvent | null = null,
  ): Promise<void> {
    const money = (a: Amount | null) => (a === null ? null : renderAmount(a));
    const values = [
      invoice.id,
      invoice.organizationId,
      invoice.mode,
      invoice.status,
      invoice.currency,
      renderAmount(invoice.price),
      renderAmount(invoice.priceUsd),
      invoice.customerEmail,
      JSON.stringify(invoice.metadata ?? {}),
      invoice.redirectUrl,
      invoice.ratesSnapshotId,
      invoice.ratesTakenAt,
      invoice.createdAt,
      items.map((i) => i.id),
      items.map((i) => i.type),
      items.map((i) => i.currency),
      items.map((i) => i.productId),
      items.map((i) => i.billingSchemaId),
      items.map((i) => i.paymentIntentId),
      items.map((i) => money(i.price)),
      items.map((i) => i.quantity),
      items.map((i) => i.position),
      items.map((i) => i.status),
      calculations.map((c) => c.id),
      calculations.map((c) => c.invoiceItemId),
      calculations.map((c) => c.title),
      calculations.map((c) => c.calculationType),
      calculations.map((c) => c.idx),
      calculations.map((c) => c.position),
      calculations.map((c) => c.currency),
      calculations.map((c) => renderAmount(c.initialPrice)),
      calculations.map((c) => renderAmount(c.priceDelta)),
      calculations.map((c) => renderAmount(c.price)),
      calculations.map((c) => JSON.stringify(c.details)),
      invoice.expiresAt ?? null,
      items.map((i) => i.description ?? null),
    ];
    if (invoice.subscriptionId) {
      values.push(invoice.subscriptionId, invoice.periodStart ?? null, invoice.periodEnd ?? null);
      await m.query(event ? INSERT_SUBSCRIPTION_INVOICE_WITH_EVENT_SQL : INSERT_SUBSCRIPTION_INVOICE_SQL, event ? [...values, ...event.values] : values);
      return;
    }
    await m.query(event ? INSERT_INVOICE_WITH_EVENT_SQL : INSERT_INVOICE_SQL, event ? [...values, ...event.values] : values);
  }

  /** The invoice and, when asked, its items and calculation lines, in one query (null when not there). */
  async findWithParts(m: EntityManager, access: InvoiceAccess, id: string, want: { items: boolean; calculations: boolean }): Promise<InvoiceWithParts | null> {
    const rows: Array<InvoiceRow & { items: ItemJson[] | null; calculations: CalculationJson[] | null }> = access
      ? await m.query(READ_INVOICE_SCOPED_SQL, [id, want.items, want.calculations, access.organizationId, access.mode])
      : await m.query(READ_INVOICE_BY_ID_SQL, [id, want.items, want.calculations]);
    const row = rows[0];
    if (!row) return null;
    return {
      invoice: toRecord(row),
      items: row.items ? row.items.map(itemFromJson) : null,
      calculations: row.calculations ? row.calculations.map(calculationFromJson) : null,
    };
  }

  /** The invoice within the caller's organization and mode (or by id alone for a payer); null when not there. */
  async find(m: EntityManager, access: InvoiceAccess, id: string): Promise<InvoiceRecord | null> {
    const params: unknown[] = [id];
    const rows: InvoiceRow[] = await m.query(`SELECT ${INVOICE_COLUMNS} FROM invoices WHERE id = $1${accessWhere(access, params)}`, params);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  /** The id of a subscription's period invoice (the unique key of subscription and period start), if there is one. */
  async findSubscriptionPeriod(m: EntityManager, scope: Scope, subscriptionId: string, periodStart: Date): Promise<string | null> {
    const rows: Array<{ id: string }> = await m.query(
      `SELECT id FROM invoices WHERE subscription_id = $1 AND period_start = $2 AND organization_id = $3 AND mode = $4`,
      [subscriptionId, periodStart, scope.organizationId, scope.mode],
    );
    return rows[0]?.id ?? null;
  }

  /** Status and substatus of the given invoices of one scope (missing ids are left out). */
  async statuses(
    m: EntityManager,
    scope: Scope,
    ids: readonly string[],
  ): Promise<Array<Pick<InvoiceRow, 'id' | 'status' | 'substatus' | 'expires_at' | 'clock_held_until'>>> {
    if (ids.length === 0) return [];
    return m.query(
      `SELECT id, status, substatus, expires_at, clock_held_until FROM invoices WHERE id = ANY($1::text[]) AND organization_id = $2 AND mode = $3`,
      [ids, scope.organizationId, scope.mode],
    );
  }

  /**
   * Like find, holding the row lock until the transaction ends; take it before checking a state change.
   * Also answers the list's read model of the invoice's payments (the providers they went through).
   */
  async lock(m: EntityManager, access: InvoiceAccess, id: string): Promise<LockedInvoice | null> {
    const params: unknown[] = [id];
    // Prepared: every payment write takes this lock first (two shapes: with and without the caller's scope).
    const sql = preparedShape(
      'invoice_lock',
      `SELECT ${INVOICE_COLUMNS}, payment_provider_ids FROM invoices WHERE id = $1${accessWhere(access, params)} FOR UPDATE`,
    );
    const rows: Array<InvoiceRow & { payment_provider_ids: string[] }> = await m.query(sql, params);
    return rows[0] ? { ...toRecord(rows[0]), paymentProviderIds: rows[0].payment_provider_ids } : null;
  }

  /**
   * Sweeper: up to `limit` unpaid invoices of any organization (or of `scope` only) whose clock move is due at `now`
   * (expired but not marked, or past the end of the monitoring window), locked FOR UPDATE SKIP LOCKED
   * so several instances sweeping at once each take different rows. Rows locked by a payment's
   * transaction are skipped too; that transaction applies the move itself. The batch is fair
   * (shared/db/fair-batch.ts): at most `cap` invoices of one organization's mode, organizations
   * interleaved, each organization's earliest due first.
   *
   * The batch comes back in (organization, mode) order, the order its moves then take the
   * organizations' rollup locks in (migration AnalyticsWriterLock): two sweeping instances never
   * wait for each other's organizations crosswise.
   */
  async lockDue(
    m: EntityManager,
    now: Date,
    monitoringMinutes: number,
    limit: number,
    cap: number,
    scope: { organizationId: string; mode: string } | null = null,
  ): Promise<InvoiceRecord[]> {
    const params: unknown[] = [now, monitoringMinutes, limit, cap];
    // With a scope (a test mode whose test clock was moved), only that organization's mode.
    if (scope) params.push(scope.organizationId, scope.mode);
    const rows: InvoiceRow[] = await m.query(sweepDueSql(scope !== null), params);
    return rows.map(toRecord);
  }

  /**
   * Moves a locked invoice's status (with its first event's row when given). Nothing is read back,
   * so in a transaction it is sent without waiting for the answer (`writeBehind`): when it is the
   * last statement, as in a payment's settlement, COMMIT goes out right behind it.
   */
  async updateStatus(
    m: EntityManager,
    invoice: Pick<InvoiceRecord, 'id' | 'organizationId' | 'mode'>,
    status: InvoiceStatus,
    substatus: InvoiceSubstatus | null,
    at: Date,
    event: PendingEvent | null = null,
  ): Promise<void> {
    const values = [invoice.id, invoice.organizationId, invoice.mode, status, substatus, at];
    await writeBehind(m, event ? UPDATE_STATUS_WITH_EVENT_SQL : UPDATE_STATUS_SQL, event ? [...values, ...event.values] : values);
  }

  /**
   * What a payment's settlement writes to its (locked) invoice: the status move its payments call for
   * (with the first event's row when given), and the providers they went through when that list grew
   * (the list filter's read model), in one statement sent without waiting (`writeBehind`). Nothing
   * when neither changed.
   */
  async settlePayments(
    m: EntityManager,
    invoice: Pick<InvoiceRecord, 'id' | 'organizationId' | 'mode'>,
    move: { status: InvoiceStatus; substatus: InvoiceSubstatus | null; at: Date; event: PendingEvent | null } | null,
    providers: readonly string[] | null,
  ): Promise<void> {
    const scope = [invoice.id, invoice.organizationId, invoice.mode];
    if (!move) {
      if (providers) await writeBehind(m, UPDATE_PROVIDERS_SQL, [...scope, providers]);
      return;
    }
    const values = [...scope, move.status, move.substatus, move.at, providers];
    await writeBehind(m, move.event ? SETTLE_WITH_EVENT_SQL : SETTLE_SQL, move.event ? [...values, ...move.event.values] : values);
  }

  /** Holds a locked invoice's payment window open until `until` (a reorg's fall-back; never shortens a hold). */
  async holdClock(m: EntityManager, invoice: Pick<InvoiceRecord, 'id' | 'organizationId' | 'mode'>, until: Date): Promise<void> {
    await writeBehind(m, `UPDATE invoices SET clock_held_until = GREATEST(clock_held_until, $4) WHERE id = $1 AND organization_id = $2 AND mode = $3`, [
      invoice.id,
      invoice.organizationId,
      invoice.mode,
      until,
    ]);
  }

  /** A currency change: the calculation lines are rewritten and the totals follow. */
  async replaceCalculations(
    m: EntityManager,
    invoice: InvoiceRecord,
    calculations: InvoiceCalculationRecord[],
    totals: { currency: Currency; price: Amount; priceUsd: Amount; ratesSnapshotId: string; ratesTakenAt: Date },
    at: Date,
  ): Promise<void> {
    await m.query(`DELETE FROM invoice_calculations WHERE invoice_id = $1 AND organization_id = $2 AND mode = $3`, [
      invoice.id,
      invoice.organizationId,
      invoice.mode,
    ]);
    if (calculations.length) await m.insert(InvoiceCalculationRecord, calculations);
    await m.query(
      `UPDATE invoices SET currency = $4, price = $5, price_usd = $6, rates_snapshot_id = $7, rates_taken_at = $8, updated_at = $9
        WHERE id = $1 AND organization_id = $2 AND mode = $3`,
      [
        invoice.id,
        invoice.organizationId,
        invoice.mode,
        totals.currency,
        renderAmount(totals.price),
        renderAmount(totals.priceUsd),
        totals.ratesSnapshotId,
        totals.ratesTakenAt,
        at,
      ],
    );
  }

  /** The payer currency-change window of an invoice (domain/currency-change.ts), or null. */
  async currencyChangeWindow(m: EntityManager, invoice: Pick<InvoiceRecord, 'id' | 'organizationId' | 'mode'>): Promise<CurrencyChangeWindow | null> {
    const rows: Array<{ window_started_at: Date; changes: number }> = await m.query(
      `SELECT window_started_at, changes FROM invoice_currency_changes WHERE invoice_id = $1 AND organization_id = $2 AND mode = $3`,
      [invoice.id, invoice.organizationId, invoice.mode],
    );
    return rows[0] ? { startedAt: new Date(rows[0].window_started_at), changes: Number(rows[0].changes) } : null;
  }

  /** Stores the window after an accepted payer change (the caller holds the invoice's row lock). */
  async saveCurrencyChangeWindow(
    m: EntityManager,
    invoice: Pick<InvoiceRecord, 'id' | 'organizationId' | 'mode'>,
    window: CurrencyChangeWindow,
  ): Promise<void> {
    await m.query(
      `INSERT INTO invoice_currency_changes (invoice_id, organization_id, mode, window_started_at, changes) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (invoice_id) DO UPDATE SET window_started_at = EXCLUDED.window_started_at, changes = EXCLUDED.changes`,
      [invoice.id, invoice.organizationId, invoice.mode, window.startedAt, window.changes],
    );
  }

  items(m: EntityManager, invoice: Pick<InvoiceRecord, 'id' | 'organizationId' | 'mode'>): Promise<InvoiceItemRecord[]> {
    return m.find(InvoiceItemRecord, {
      where: { invoiceId: invoice.id, organizationId: invoice.organizationId, mode: invoice.mode },
      order: { position: 'ASC' },
    });
  }

  calculations(m: EntityManager, invoice: Pick<InvoiceRecord, 'id' | 'organizationId' | 'mode'>): Promise<InvoiceCalculationRecord[]> {
    return m.find(InvoiceCalculationRecord, {
      where: { invoiceId: invoice.id, organizationId: invoice.organizationId, mode: invoice.mode },
      order: { position: 'ASC' },
    });
  }

  /**
   * One page of the list, newest first, the number of matches and whether more follow, in one round
   * trip. With `startingAfter` the page starts after that invoice (keyset: (created_at, id) below the
   * cursor's, an index range instead of skipping rows; offset then skips from there); total counts
   * every match of the filters. Null when the cursor is not an invoice of the scope.
   */
  async list(
    m: EntityManager,
    scope: Scope,
    f: InvoiceListFilter,
    clock?: { now: Date; monitoringMinutes: number },
  ): Promise<{ rows: InvoiceRecord[]; total: number; hasMore: boolean } | null> {
    const page = await keysetPage<InvoiceRow>(m, invoiceListRequest(scope, f, clock));
    return page && { ...page, rows: page.rows.map(toRecord) };
  }
}
