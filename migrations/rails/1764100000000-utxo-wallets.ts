import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Receiving wallets of UTXO chains (Bitcoin, Litecoin, Dogecoin, Bitcoin Cash) beside the EVM ones.
 *
 * - `chain_family` takes 'utxo' too.
 * - `network`: the network a wallet serves when its family has one wallet per network (a UTXO key
 *   belongs to one coin); null for a family-wide wallet (one EVM key serves every EVM network). One
 *   active wallet per organization, mode, family and network (null counted as one value).
 * - `deposit_addresses.address` holds each family's address form: EVM addresses lower case (0x and 40
 *   hex digits) as before; base58, bech32 and cashaddr forms (case kept) for UTXO chains.
 */
export class UtxoWallets1764100000000 implements MigrationInterface {
  name = 'UtxoWallets1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE receiving_wallets DROP CONSTRAINT IF EXISTS receiving_wallets_chain_family_check`);
    await q.query(`ALTER TABLE receiving_wallets ADD CONSTRAINT receiving_wallets_chain_family_check CHECK (chain_family IN ('evm', 'utxo'))`);
    await q.query(`ALTER TABLE receiving_wallets ADD COLUMN network text NULL`);
    await q.query(`ALTER TABLE receiving_wallets ADD CONSTRAINT receiving_wallets_network_check CHECK ((chain_family = 'utxo') = (network IS NOT NULL))`);
    await q.query(`DROP INDEX receiving_wallets_one_active_idx`);
    await q.query(
      `CREATE UNIQUE INDEX receiving_wallets_one_active_idx ON receiving_wallets (organization_id, mode, chain_family, COALESCE(network, '')) WHERE active`,
    );
    await q.query(`ALTER TABLE deposit_addresses DROP CONSTRAINT IF EXISTS deposit_addresses_address_check`);
    await q.query(
      `ALTER TABLE deposit_addresses ADD CONSTRAINT deposit_addresses_address_check CHECK (address ~ '^0x[0-9a-f]{40}$' OR address ~ '^[a-z]+:[02-9ac-hj-np-z]{20,120}$' OR address ~ '^[1-9A-HJ-NP-Za-km-z]{25,40}$' OR address ~ '^[a-z]{1,10}1[02-9ac-hj-np-z]{20,100}$')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE deposit_addresses DROP CONSTRAINT deposit_addresses_address_check`);
    await q.query(`ALTER TABLE deposit_addresses ADD CONSTRAINT deposit_addresses_address_check CHECK (address ~ '^0x[0-9a-f]{40}$')`);
    await q.query(`DROP INDEX receiving_wallets_one_active_idx`);
    await q.query(`CREATE UNIQUE INDEX receiving_wallets_one_active_idx ON receiving_wallets (organization_id, mode, chain_family) WHERE active`);
    await q.query(`ALTER TABLE receiving_wallets DROP CONSTRAINT receiving_wallets_network_check`);
    await q.query(`ALTER TABLE receiving_wallets DROP COLUMN network`);
    await q.query(`ALTER TABLE receiving_wallets DROP CONSTRAINT receiving_wallets_chain_family_check`);
    await q.query(`ALTER TABLE receiving_wallets ADD CONSTRAINT receiving_wallets_chain_family_check CHECK (chain_family IN ('evm'))`);
  }
}
