import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A Solana payout transfer is named by the wallet it paid: `native:<wallet>` for the lamports a transaction
 * gave the wallet, `spl:<wallet>:<mint>` for what it gave the wallet's token account of the mint. They were
 * `native` and `spl`, one per transaction whatever the wallet, so a transaction paying two payers' refunds
 * proved only the first. The transfers held under the old names are renamed after their refund's destination
 * (`refunds.address`, and `token_contract` for the mint), the only wallet such a transfer can have paid: the
 * refund was checked against that wallet when it took it. Left as they were, the same transfer would be free
 * under its new name and could pay a second refund. A row whose new name another row of its transaction holds
 * already, or whose refund lacks the destination, keeps its old name rather than stop the upgrade; so do rows an
 * instance of the previous version writes while the upgrade rolls out. A transfer under an old name is still
 * held: each transfer now says the name it had (`formerly`), and no payout takes one another holds under it.
 *
 * Down names each transaction's first transfer of a kind `native` or `spl` again (the earliest held). A second
 * one (another wallet paid by the same transaction, held since) keeps its new name: the old names could not
 * tell it apart, and its refund still holds it, which is what the code from before looks at for that refund.
 */
export class SolanaPayoutTransfersPerDestination1796008600000 implements MigrationInterface {
  name = 'SolanaPayoutTransfersPerDestination1796008600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      UPDATE refund_payout_transfers t
         SET output = renamed.output
        FROM (
          SELECT h.tx_hash, h.output AS old,
                 CASE h.output WHEN 'native' THEN 'native:' || r.address ELSE 'spl:' || r.address || ':' || r.token_contract END AS output
            FROM refund_payout_transfers h
            JOIN refunds r ON r.id = h.refund_id
           WHERE h.network = 'solana' AND h.output IN ('native', 'spl')
        ) renamed
       WHERE t.network = 'solana' AND t.tx_hash = renamed.tx_hash AND t.output = renamed.old AND renamed.output IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM refund_payout_transfers o WHERE o.network = 'solana' AND o.tx_hash = renamed.tx_hash AND o.output = renamed.output)`);
  }

  async down(q: QueryRunner): Promise<void> {
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
