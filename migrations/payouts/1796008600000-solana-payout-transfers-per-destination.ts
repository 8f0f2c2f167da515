import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A Solana payout transfer is named by the wallet it paid: `native:<wallet>` for the lamports a transaction
 * gave the wallet, `spl:<wallet>:<mint>` for what it gave the wallet's token account of the mint. They were
 * `native` and `spl`, one per transaction whatever the wallet, so a transaction paying two payers' refunds
 * proved only the first.
 *
 * Only adds: each transfer held under an old name is held under its new name too, named after its refund's
 * destination (`refunds.address`, and `token_contract` for the mint: the only wallet it can have paid, the
 * one the refund was checked against). Left alone, the same transfer would be free under its new name and
 * could pay a second refund. The old-name row stays, so an instance of the previous version (a rolling
 * upgrade: it knows only the old names) still sees the transfer taken; new instances hold the old name
 * beside the new one while it is free, for the same reason, and read an old name held beside its payout's
 * new one as that transfer alone (`heldNames`). An old name held alone (the previous version's write, or a
 * refund with no destination) keeps every transfer of its kind in its transaction, as before.
 *
 * Down removes the new names held beside an old one of the same refund, and names each transaction's first
 * remaining transfer of a kind (held under a new name only) `native` or `spl` again while that name is free.
 */
export class SolanaPayoutTransfersPerDestination1796008600000 implements MigrationInterface {
  name = 'SolanaPayoutTransfersPerDestination1796008600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      INSERT INTO refund_payout_transfers (network, tx_hash, output, refund_id, organization_id, mode, units, created_at)
      SELECT h.network, h.tx_hash,
             CASE h.output WHEN 'native' THEN 'native:' || r.address ELSE 'spl:' || r.address || ':' || r.token_contract END,
             h.refund_id, h.organization_id, h.mode, h.units, h.created_at
        FROM refund_payout_transfers h
        JOIN refunds r ON r.id = h.refund_id
       WHERE h.network = 'solana' AND h.output IN ('native', 'spl') AND r.address IS NOT NULL
         AND (h.output = 'native' OR r.token_contract IS NOT NULL)
      ON CONFLICT DO NOTHING`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DELETE FROM refund_payout_transfers t
       WHERE t.network = 'solana' AND (t.output LIKE 'native:%' OR t.output LIKE 'spl:%')
         AND EXISTS (SELECT 1 FROM refund_payout_transfers o
                      WHERE o.network = 'solana' AND o.tx_hash = t.tx_hash AND o.refund_id = t.refund_id AND o.output = split_part(t.output, ':', 1))`);
    await q.query(`
      UPDATE refund_payout_transfers t
         SET output = first.kind
        FROM (
          SELECT DISTINCT ON (tx_hash, split_part(output, ':', 1)) tx_hash, output, split_part(output, ':', 1) AS kind
            FROM refund_payout_transfers
           WHERE network = 'solana' AND (output LIKE 'native:%' OR output LIKE 'spl:%')
           ORDER BY tx_hash, split_part(output, ':', 1), created_at, refund_id
        ) first
       WHERE t.network = 'solana' AND t.tx_hash = first.tx_hash AND t.output = first.output
         AND NOT EXISTS (SELECT 1 FROM refund_payout_transfers o WHERE o.network = 'solana' AND o.tx_hash = first.tx_hash AND o.output = first.kind)`);
  }
}
