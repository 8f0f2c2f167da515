import { MigrationInterface, QueryRunner } from 'typeorm';

const ADDRESS_FORMS_BEFORE = `address ~ '^0x[0-9a-f]{40}$' OR address ~ '^[a-z]+:[02-9ac-hj-np-z]{20,120}$' OR address ~ '^[1-9A-HJ-NP-Za-km-z]{25,40}$' OR address ~ '^[a-z]{1,10}1[02-9ac-hj-np-z]{20,100}$'`;

/**
 * Receiving wallets of Solana: `chain_family` takes 'solana' too. A Solana wallet is registered by its
 * address (kept in `xpub`, the account key column: a Solana wallet has no extended key) and serves the
 * family's one network. Its payment addresses are `<wallet>/<reference>` (a fresh reference each, both
 * base58 32-byte keys): `deposit_addresses.address` takes that form too, and its unique index keeps a
 * reference from being handed out twice.
 */
export class SolanaWallets1764900500000 implements MigrationInterface {
  name = 'SolanaWallets1764900500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE receiving_wallets DROP CONSTRAINT IF EXISTS receiving_wallets_chain_family_check`);
    await q.query(
      `ALTER TABLE receiving_wallets ADD CONSTRAINT receiving_wallets_chain_family_check CHECK (chain_family IN ('evm', 'utxo', 'tron', 'solana'))`,
    );
    await q.query(`ALTER TABLE deposit_addresses DROP CONSTRAINT deposit_addresses_address_check`);
    await q.query(
      `ALTER TABLE deposit_addresses ADD CONSTRAINT deposit_addresses_address_check CHECK (${ADDRESS_FORMS_BEFORE} OR address ~ '^[1-9A-HJ-NP-Za-km-z]{32,44}/[1-9A-HJ-NP-Za-km-z]{32,44}$')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE receiving_wallets DROP CONSTRAINT receiving_wallets_chain_family_check`);
    await q.query(`ALTER TABLE receiving_wallets ADD CONSTRAINT receiving_wallets_chain_family_check CHECK (chain_family IN ('evm', 'utxo', 'tron'))`);
    await q.query(`ALTER TABLE deposit_addresses DROP CONSTRAINT deposit_addresses_address_check`);
    await q.query(`ALTER TABLE deposit_addresses ADD CONSTRAINT deposit_addresses_address_check CHECK (${ADDRESS_FORMS_BEFORE})`);
  }
}
