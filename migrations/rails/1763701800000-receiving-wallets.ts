import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Receiving wallets (watch-only account keys of the merchants) and the deposit addresses handed
 * out from them, one per invoice and provider.
 *
 * - `xpub` is sealed at rest (SecretBox, SECRETS_KEY; context the wallet id): a watch-only key cannot
 *   spend, but it reveals every address of the wallet. `xpub_fingerprint` (SHA-256 of the key) finds
 *   the same key registered again without opening it.
 * - One active wallet per organization, mode and chain family (partial unique index); a new one
 *   replaces it for new addresses, and addresses already handed out stay watched.
 * - `next_index` is the next unused index of the receive chain. Allocation locks the wallet row,
 *   takes the index and inserts the address in one transaction, so an index is never handed out
 *   twice, also across crashes (a rolled-back allocation leaves next_index untouched).
 * - `deposit_addresses` is unique per (organization, mode, invoice, provider): the same invoice and
 *   provider always get the same address; `(mode, network, address)` is unique and is what the chain watcher
 *   looks up (registering a key used before continues after its highest index, so an address
 *   never serves two invoices); `watch_until` is the end of the invoice's monitoring window (null: never ends).
 */
export class ReceivingWallets1763701800000 implements MigrationInterface {
  name = 'ReceivingWallets1763701800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE receiving_wallets (
        id               text PRIMARY KEY,
        organization_id  text NOT NULL REFERENCES organizations(id),
        mode             text NOT NULL CHECK (mode IN ('test', 'live')),
        chain_family     text NOT NULL CHECK (chain_family IN ('evm')),
        xpub             text NOT NULL,
        xpub_fingerprint text NOT NULL,
        first_address    text NOT NULL,
        next_index       integer NOT NULL DEFAULT 0 CHECK (next_index >= 0),
        active           boolean NOT NULL,
        created_at       timestamptz NOT NULL,
        replaced_at      timestamptz,
        deleted_at       timestamptz,
        CHECK (NOT (active AND deleted_at IS NOT NULL))
      )`);
    await q.query(`CREATE UNIQUE INDEX receiving_wallets_one_active_idx ON receiving_wallets (organization_id, mode, chain_family) WHERE active`);
    await q.query(`CREATE INDEX receiving_wallets_scope_idx ON receiving_wallets (organization_id, mode, created_at DESC, id DESC) WHERE deleted_at IS NULL`);
    await q.query(`CREATE INDEX receiving_wallets_key_idx ON receiving_wallets (mode, chain_family, xpub_fingerprint)`);

    await q.query(`
      CREATE TABLE deposit_addresses (
        wallet_id         text NOT NULL REFERENCES receiving_wallets(id),
        derivation_index  integer NOT NULL CHECK (derivation_index >= 0),
        organization_id   text NOT NULL REFERENCES organizations(id),
        mode              text NOT NULL CHECK (mode IN ('test', 'live')),
        invoice_id        text NOT NULL,
        provider_id       text NOT NULL,
        network           text NOT NULL,
        address           text NOT NULL CHECK (address ~ '^0x[0-9a-f]{40}$'),
        watch_until       timestamptz,
        created_at        timestamptz NOT NULL,
        PRIMARY KEY (wallet_id, derivation_index),
        UNIQUE (organization_id, mode, invoice_id, provider_id)
      )`);
    await q.query(`CREATE UNIQUE INDEX deposit_addresses_watch_idx ON deposit_addresses (mode, network, address)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE deposit_addresses`);
    await q.query(`DROP TABLE receiving_wallets`);
  }
}
