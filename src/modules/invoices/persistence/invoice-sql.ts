/**
 * The SQL of the two hot paths (creating an invoice, reading one with its items and calculations),
 * in a module of its own so the benchmark's raw floor (bench/floor-server.ts) runs the very same
 * statements with the same parameters as the service. All three are prepared statements.
 */
import { fairBatch } from '../../../shared/db/fair-batch';
import { prepared } from '../../../shared/db/prepared';
import { withEventRow } from '../../../shared/events/event-row';

/**
 * One statement writes the invoice, its items and its calculation lines (data-modifying CTEs):
 * one round trip, atomic on its own (a single statement is its own transaction), foreign keys
 * checked at the end of the statement. Items and lines arrive as parallel arrays (unnest).
 *
 * $1 id, $2 organization_id, $3 mode, $4 status, $5 currency, $6 price, $7 price_usd, $8 customer_email,
 * $9 metadata (json text), $10 redirect_url, $11 rates_snapshot_id, $12 rates_taken_at, $13 created_at (= updated_at);
 * items: $14 id, $15 type, $16 currency, $17 product_id, $18 billing_schema_id, $19 payment_intent_id, $20 price,
 * $21 quantity, $22 position, $23 status;
 * lines: $24 id, $25 invoice_item_id, $26 title, $27 calculation_type, $28 idx, $29 position, $30 currency,
 * $31 initial_price, $32 price_delta, $33 price, $34 details (json text); $35 expires_at; $36 the items' descriptions.
 */
export const INSERT_INVOICE_SQL = prepared(
  'invoice_insert',
  `
WITH invoice AS (
  INSERT INTO invoices (id, organization_id, mode, status, substatus, currency, price, price_usd, customer_email, metadata,
                        redirect_url, rates_snapshot_id, rates_taken_at, expires_at, created_at, updated_at)
  VALUES ($1, $2, $3, $4, NULL, $5, $6::numeric, $7::numeric, $8, $9::jsonb, $10, $11, $12, $35, $13, $13)
), items AS (
  INSERT INTO invoice_items (id, organization_id, mode, invoice_id, type, currency, product_id, billing_schema_id,
                             payment_intent_id, price, quantity, position, status, exclude_reason, description, created_at, updated_at)
  SELECT t.id, $2, $3, $1, t.type, t.currency, t.product_id, t.billing_schema_id, t.payment_intent_id, t.price::numeric,
         t.quantity, t.position, t.status, NULL, t.description, $13, $13
    FROM unnest($14::text[], $15::text[], $16::text[], $17::text[], $18::text[], $19::text[], $20::text[], $21::int[], $22::int[], $23::text[], $36::text[])
         AS t(id, type, currency, product_id, billing_schema_id, payment_intent_id, price, quantity, position, status, description)
)
INSERT INTO invoice_calculations (id, organization_id, mode, invoice_id, invoice_item_id, title, calculation_type, idx, position,
                                  currency, initial_price, price_delta, price, details, created_at, updated_at)
SELECT c.id, $2, $3, $1, c.invoice_item_id, c.title, c.calculation_type, c.idx, c.position, c.currency,
       c.initial_price::numeric, c.price_delta::numeric, c.price::numeric, c.details::jsonb, $13, $13
  FROM unnest($24::text[], $25::text[], $26::text[], $27::text[], $28::int[], $29::int[], $30::text[], $31::text[], $32::text[], $33::text[], $34::text[])
       AS c(id, invoice_item_id, title, calculation_type, idx, position, currency, initial_price, price_delta, price, details)`,
);

/** The insert above with the invoice.created event's row written by the same statement ($37 to $42). */
export const INSERT_INVOICE_WITH_EVENT_SQL = prepared('invoice_insert_event', withEventRow(INSERT_INVOICE_SQL, 36));

/**
 * A subscription's period invoice: the insert above plus $37 subscription_id, $38 period_start,
 * $39 period_end. The unique index on (subscription_id, period_start) refuses a second one.
 */
export const INSERT_SUBSCRIPTION_INVOICE_SQL = prepared(
  'invoice_insert_subscription',
  INSERT_INVOICE_SQL.replace('expires_at, created_at, updated_at)', 'expires_at, created_at, updated_at, subscription_id, period_start, period_end)').replace(
    '$35, $13, $13)',
    '$35, $13, $13, $37, $38, $39)',
  ),
);

/** The subscription insert with the invoice.created event's row ($40 to $45). */
export const INSERT_SUBSCRIPTION_INVOICE_WITH_EVENT_SQL = prepared('invoice_insert_subscription_event', withEventRow(INSERT_SUBSCRIPTION_INVOICE_SQL, 39));

const ITEMS_JSON = `(SELECT coalesce(json_agg(json_build_object(
    'id', it.id, 'organization_id', it.organization_id, 'mode', it.mode, 'invoice_id', it.invoice_id, 'type', it.type,
    'currency', it.currency, 'product_id', it.product_id, 'billing_schema_id', it.billing_schema_id,
    'payment_intent_id', it.payment_intent_id, 'price', it.price::text, 'quantity', it.quantity, 'position', it.position,
    'status', it.status, 'exclude_reason', it.exclude_reason, 'description', it.description, 'created_at', it.created_at, 'updated_at', it.updated_at)
    ORDER BY it.position), '[]'::json)
   FROM invoice_items it WHERE it.invoice_id = i.id AND it.organization_id = i.organization_id AND it.mode = i.mode)`;

const CALCULATIONS_JSON = `(SELECT coalesce(json_agg(json_build_object(
    'id', c.id, 'organization_id', c.organization_id, 'mode', c.mode, 'invoice_id', c.invoice_id, 'invoice_item_id', c.invoice_item_id,
    'title', c.title, 'calculation_type', c.calculation_type, 'idx', c.idx, 'position', c.position, 'currency', c.currency,
    'initial_price', c.initial_price::text, 'price_delta', c.price_delta::text, 'price', c.price::text, 'details', c.details,
    'created_at', c.created_at, 'updated_at', c.updated_at)
    ORDER BY c.position), '[]'::json)
   FROM invoice_calculations c WHERE c.invoice_id = i.id AND c.organization_id = i.organization_id AND c.mode = i.mode)`;

const READ_COLUMNS = `i.id, i.organization_id, i.mode, i.status, i.substatus, i.currency, i.price::text AS price, i.price_usd::text AS price_usd, i.refunded_usd::text AS refunded_usd,
  i.customer_email, i.metadata, i.redirect_url, i.rates_snapshot_id, i.rates_taken_at, i.expires_at, i.clock_held_until, i.created_at, i.updated_at,
  i.subscription_id, i.period_start, i.period_end,
  CASE WHEN $2::boolean THEN ${ITEMS_JSON} END AS items,
  CASE WHEN $3::boolean THEN ${CALCULATIONS_JSON} END AS calculations`;

/**
 * One invoice with, on request, its items ($2) and calculation lines ($3) as JSON arrays (amounts
 * as exact text): one round trip whatever is expanded. Money never passes through a JSON number.
 * Scoped form: $4 organization_id, $5 mode.
 */
export const READ_INVOICE_SCOPED_SQL = prepared(
  'invoice_read_scoped',
  `SELECT ${READ_COLUMNS} FROM invoices i WHERE i.id = $1 AND i.organization_id = $4 AND i.mode = $5`,
);

/** The payer's form (no key): the id alone finds the invoice. */
export const READ_INVOICE_BY_ID_SQL = prepared('invoice_read', `SELECT ${READ_COLUMNS} FROM invoices i WHERE i.id = $1`);

/** The invoice columns as the repository reads them (amounts as text, for exact decimals). */
export const INVOICE_COLUMNS = `id, organization_id, mode, status, substatus, currency, price::text AS price, price_usd::text AS price_usd, refunded_usd::text AS refunded_usd,
  customer_email, metadata, redirect_url, rates_snapshot_id, rates_taken_at, expires_at, clock_held_until, created_at, updated_at,
  subscription_id, period_start, period_end`;

/** No reorg's hold keeps the window open at $1 (domain/invoice-timing.ts, paymentWindowEndsAt). */
const NOT_HELD_AT_1 = (alias: string) => `(${alias}clock_held_until IS NULL OR ${alias}clock_held_until <= $1)`;

/**
 * The sweeper's batch (InvoicesRepository.lockDue): $1 now, $2 the monitoring window in minutes, $3 the batch's
 * size, $4 one organization's share; with `scoped`, only the organization $5's mode $6 (a test clock moved).
 * A fair batch (shared/db/fair-batch.ts) read through invoices_scope_due_idx, so one merchant's burst of expired
 * invoices costs a pass what a few do; the invoices are then locked one by one by id (a lateral read through the
 * primary key, whatever the planner guesses of the batch's size), FOR UPDATE SKIP LOCKED, and come back in
 * (organization, mode) order.
 */
export function sweepDueSql(scoped: boolean): string {
  const batch = fairBatch(
    {
      table: 'invoices',
      alias: 'i',
      due: `i.status = 'PENDING' AND i.expires_at IS NOT NULL AND i.expires_at <= $1
            AND (i.substatus IS DISTINCT FROM 'EXPIRED' OR (i.expires_at + make_interval(mins => $2) <= $1 AND ${NOT_HELD_AT_1('i.')}))`,
      order: 'i.expires_at, i.id',
      columns: 'i.id, i.organization_id, i.mode, i.expires_at',
      pool: `i.status = 'PENDING' AND i.expires_at IS NOT NULL`,
      scope: scoped ? 's.organization_id = $5 AND s.mode = $6' : undefined,
    },
    '$4',
    '$3',
  );
  return `SELECT due.* FROM (${batch}) b CROSS JOIN LATERAL (
         SELECT ${INVOICE_COLUMNS} FROM invoices
          WHERE id = b.id
            AND status = 'PENDING' AND expires_at IS NOT NULL AND expires_at <= $1
            AND (substatus IS DISTINCT FROM 'EXPIRED' OR (expires_at + make_interval(mins => $2) <= $1 AND ${NOT_HELD_AT_1('')}))
          FOR UPDATE SKIP LOCKED
       ) due
       ORDER BY due.organization_id, due.mode, due.expires_at, due.id`;
}
