import { generateKeyPairSigner } from '@solana/kit';
import { DataSource } from 'typeorm';
import { SolanaPayoutTransfersPerDestination1796008600000 as Migration } from '../../../migrations/payouts/1796008600000-solana-payout-transfers-per-destination';
import { heldNames } from '../../../src/modules/payouts/domain/payout-verdict';
import { payoutOutput } from '../../../src/modules/rails/solana/solana-follower';
import { ownTestDatabase } from '../../support/api';
import { withClient } from '../../support/pg';
import { runCli } from '../../support/server';

/**
 * The Solana payout transfers refunds held before transfers were named by their destination (`native`, `spl`)
 * are held under their new names too, after their refunds' wallets, the names the follower gives the same
 * transfers now, so none of them is free again under its new name; the old names stay held for instances of
 * the previous version during a rolling upgrade. Other networks' transfers are left as they are. Down removes
 * the new names held beside old ones. The rows are written as a database migrated and used before this
 * migration holds them: the API writes the new names now.
 */
describe('migration SolanaPayoutTransfersPerDestination1796008600000', () => {
  let db: { url: string; drop(): Promise<void> };
  let source: DataSource;

  beforeAll(async () => {
    db = await ownTestDatabase();
    // A copy of the migrated template applies nothing; an empty database (no template) is migrated here.
    const migrated = await runCli(['migrate'], { DATABASE_URL: db.url, DATA_DIR: undefined, LOG_LEVEL: 'warn' });
    if (migrated.code !== 0) throw new Error(`migrate failed (exit ${migrated.code}):\n${migrated.stderr}${migrated.stdout}`);
    source = await new DataSource({ type: 'postgres', url: db.url, entities: [], migrations: [] }).initialize();
  }, 120_000);
  afterAll(async () => {
    await source?.destroy();
    await db?.drop();
  });

  const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => withClient(db.url, async (c) => (await c.query(text, params)).rows as T[]);
  const run = async (step: 'up' | 'down') => {
    const runner = source.createQueryRunner();
    try {
      await new Migration()[step](runner);
    } finally {
      await runner.release();
    }
  };
  /** Each refund's held transfer names, sorted. */
  const held = async () => {
    const rows = await sql<{ refund_id: string; output: string }>(
      `SELECT refund_id, output FROM refund_payout_transfers WHERE organization_id = 'org_mig' ORDER BY refund_id, output`,
    );
    const byRefund: Record<string, string[]> = {};
    for (const r of rows) (byRefund[r.refund_id] ??= []).push(r.output);
    return byRefund;
  };
  const rowsOf = (tx: string) => sql<{ refund_id: string; output: string }>(`SELECT refund_id, output FROM refund_payout_transfers WHERE tx_hash = $1`, [tx]);

  it("holds the Solana transfers held under the old names under their refunds' wallets too, as the follower names them now, and keeps the old names; down removes what it added", async () => {
    expect(await sql(`SELECT 1 FROM schema_migrations WHERE name = 'SolanaPayoutTransfersPerDestination1796008600000'`)).toHaveLength(1);
    const x = (await generateKeyPairSigner()).address;
    const y = (await generateKeyPairSigner()).address;
    const mint = (await generateKeyPairSigner()).address;
    const batch = '5'.repeat(88);
    const other = '4'.repeat(88);
    await sql(`INSERT INTO organizations (id, name) VALUES ('org_mig', 'Migrated shop')`);
    const refund = (id: string, network: string, address: string, token: string | null, tx: string) =>
      sql(
        `INSERT INTO refunds (id, organization_id, mode, invoice_id, status, currency, amount, amount_usd, rate, rate_usd, rates_snapshot_id,
                              claim_token, expires_at, provider_id, network, payout_currency, address, payout_amount, payout_units, token_contract,
                              claimed_at, tx_hash, sent_at, required_confirmations, completed_at, created_at, updated_at)
         VALUES ($1, 'org_mig', 'test', 'inv_mig', 'COMPLETED', 'USDC', 1, 1, 'invoice', 1, 'rs_mig', $1 || '_claim', now() + interval '1 day',
                 'prov_x', $2, 'USDC', $3, 1, 1000000, $4, now(), $5, now(), 32, now(), now(), now())`,
        [id, network, address, token, tx],
      );
    const hold = (refundId: string, network: string, tx: string, output: string, at: string) =>
      sql(
        `INSERT INTO refund_payout_transfers (network, tx_hash, output, refund_id, organization_id, mode, units, created_at)
         VALUES ($1, $2, $3, $4, 'org_mig', 'test', 1000000, $5)`,
        [network, tx, output, refundId, at],
      );
    // Before: one transaction paid X in SOL and in USDC (two refunds, one transfer of each kind), another paid Y
    // in SOL; an EVM refund's coin transfer is `native` too and is no Solana transfer.
    await refund('rf_sol_x', 'solana', x, null, batch);
    await refund('rf_usdc_x', 'solana', x, mint, batch);
    await refund('rf_sol_y', 'solana', y, null, other);
    await refund('rf_eth', 'ethereum', '0x70997970c51812dc3a010c7d01b50e0d17dc79c8', null, '0x' + 'ab'.repeat(32));
    await hold('rf_sol_x', 'solana', batch, 'native', '2026-01-01T00:00:00Z');
    await hold('rf_usdc_x', 'solana', batch, 'spl', '2026-01-01T00:00:00Z');
    await hold('rf_sol_y', 'solana', other, 'native', '2026-01-01T00:00:00Z');
    await hold('rf_eth', 'ethereum', '0x' + 'ab'.repeat(32), 'native', '2026-01-01T00:00:00Z');

    await run('up');
    expect([payoutOutput(x, null), payoutOutput(x, mint), payoutOutput(y, null)]).toEqual([`native:${x}`, `spl:${x}:${mint}`, `native:${y}`]);
    const migrated = {
      rf_eth: ['native'],
      rf_sol_x: ['native', `native:${x}`],
      rf_sol_y: ['native', `native:${y}`],
      rf_usdc_x: ['spl', `spl:${x}:${mint}`],
    };
    expect(await held()).toEqual(migrated);
    // The service reads the batch's transfers as the new names say (the old names held beside them left out);
    // an instance of the previous version still finds `native` and `spl` taken.
    expect(heldNames(await rowsOf(batch))).toEqual(new Set([`native:${x}`, `spl:${x}:${mint}`]));
    // Run again: nothing changes.
    await run('up');
    expect(await held()).toEqual(migrated);

    // Since then, the batch's SOL to Y paid another refund (its old name was taken: the new name alone). Down:
    // the new names held beside old ones go; Y's keeps its new name, as `native` is held in the batch.
    await refund('rf_sol_y2', 'solana', y, null, batch);
    await hold('rf_sol_y2', 'solana', batch, payoutOutput(y, null), '2026-02-01T00:00:00Z');
    expect(heldNames(await rowsOf(batch))).toEqual(new Set([`native:${x}`, `spl:${x}:${mint}`, `native:${y}`]));
    await run('down');
    expect(await held()).toEqual({ rf_eth: ['native'], rf_sol_x: ['native'], rf_sol_y: ['native'], rf_sol_y2: [`native:${y}`], rf_usdc_x: ['spl'] });
    // And up again.
    await run('up');
    expect(await held()).toEqual({ ...migrated, rf_sol_y2: [`native:${y}`] });
  });
});
