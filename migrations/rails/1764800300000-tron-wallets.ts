import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Receiving wallets of Tron beside the EVM and UTXO ones: `chain_family` takes 'tron' too. A Tron key
 * serves the family's one network (no `network`, as EVM); its deposit addresses are base58 (`T...`),
 * a form `deposit_addresses.address` already takes.
 */
export class TronWallets1764800300000 implements MigrationInterface {
  name = 'TronWallets1764800300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE receiving_wallets DROP CONSTRAINT IF EXISTS receiving_wallets_chain_family_check`);
    await q.query(`ALTER TABLE receiving_wallets ADD CONSTRAINT receiving_wallets_chain_family_check CHECK (chain_family IN ('evm', 'utxo', 'tron'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE receiving_wallets DROP CONSTRAINT receiving_wallets_chain_family_check`);
    await q.query(`ALTER TABLE receiving_wallets ADD CONSTRAINT receiving_wallets_chain_family_check CHECK (chain_family IN ('evm', 'utxo'))`);
  }
}
