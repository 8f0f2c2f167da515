import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Refunds (decisions §19), owned by the refunds module: the merchant creates one against an invoice,
 * the payer names where to send it through its claim token, the merchant reports the transaction and
 * the chain confirms it.
 *
 * - `amount` in `currency`, `amount_usd` its USD value at `rate` (`invoice`: the invoice's rates
 *   snapshot, `rates_snapshot_id`; `current`: the snapshot in force when it was made); `rate_usd` the
 *   USD value of one unit of `currency` then.
 * - `claim_token`: the payer's capability (the claim page and POST /refund_claims/{token}); unique.
 * - The payout, fixed when the payer gives a destination: `provider_id`, `network`, `payout_currency`,
 *   `address`, `payout_amount` (rounded down to the coin's decimals), `payout_units` (smallest unit),
 *   `payout_uri`, `chain_id` and `token_contract` (null for a coin).
 * - The merchant's report: `tx_hash`, then `confirmations` counted up to `required_confirmations`.
 */
export class Refunds1764500000000 implements MigrationInterface {
  name = 'Refunds1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE refunds (
        id                      text PRIMARY KEY,
        organization_id         text NOT NULL REFERENCES organizations(id),
        mode                    text NOT NULL CHECK (mode IN ('test', 'live')),
        invoice_id              text NOT NULL,
        status                  text NOT NULL CHECK (status IN ('AWAITING_DESTINATION', 'AWAITING_PAYOUT', 'SENT', 'COMPLETED', 'CANCELED', 'EXPIRED')),
        currency                text NOT NULL,
        amount                  numeric(78, 30) NOT NULL CHECK (amount > 0),
        amount_usd              numeric(78, 30) NOT NULL CHECK (amount_usd > 0),
        rate                    text NOT NULL CHECK (rate IN ('invoice', 'current')),
        rate_usd                numeric(78, 30) NOT NULL CHECK (rate_usd > 0),
        rates_snapshot_id       text NOT NULL,
        reason                  text NULL,
        claim_token             text NOT NULL UNIQUE,
        expires_at              timestamptz NOT NULL,
        provider_id             text NULL,
        network                 text NULL,
        payout_currency         text NULL,
        address                 text NULL,
        payout_amount           numeric(78, 30) NULL,
        payout_units            numeric(78, 0) NULL,
        payout_uri              text NULL,
        chain_id                integer NULL,
        token_contract          text NULL,
        claimed_at              timestamptz NULL,
        tx_hash                 text NULL,
        sent_at                 timestamptz NULL,
        confirmations           integer NOT NULL DEFAULT 0,
        required_confirmations  integer NOT NULL DEFAULT 0,
        completed_at            timestamptz NULL,
        canceled_at             timestamptz NULL,
        created_at              timestamptz NOT NULL,
        updated_at              timestamptz NOT NULL,
        CHECK ((status IN ('AWAITING_DESTINATION', 'CANCELED', 'EXPIRED')) OR address IS NOT NULL),
        CHECK ((status IN ('SENT', 'COMPLETED')) = (tx_hash IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX refunds_scope_idx ON refunds (organization_id, mode, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX refunds_status_idx ON refunds (organization_id, mode, status, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX refunds_invoice_idx ON refunds (organization_id, mode, invoice_id, created_at DESC, id DESC)`);
    // The workers: claims to expire, payouts to confirm.
    await q.query(`CREATE INDEX refunds_expiring_idx ON refunds (expires_at) WHERE status = 'AWAITING_DESTINATION'`);
    await q.query(`CREATE INDEX refunds_sent_idx ON refunds (sent_at) WHERE status = 'SENT'`);
    // One transaction pays one refund.
    await q.query(`CREATE UNIQUE INDEX refunds_tx_idx ON refunds (mode, network, lower(tx_hash)) WHERE tx_hash IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE refunds`);
  }
}
