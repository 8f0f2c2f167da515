import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Mode } from '../../../shared/auth/request-context';
import { payoutDestinationKey } from '../../rails';

/** The payout a transfer pays: its id (a refund's id today, the table's `refund_id`), its organization, mode, network and destination. */
export interface PayoutHolder {
  id: string;
  organization_id: string;
  mode: Mode;
  network: string;
  /** What it pays: `<address> <token contract or mint>`, or `<address> native` for the coin (kept with each transfer it holds as `recipient`, payoutRecipient). */
  recipient: string;
}

/**
 * What a payout pays, as its held transfers keep it: its destination (payoutDestinationKey: one name per
 * script however the payer spelled the address) and the asset.
 */
export function payoutRecipient(network: string, address: string, tokenContract: string | null): string {
  return `${payoutDestinationKey(network, address)} ${tokenContract ?? 'native'}`;
}

/** A held transfer's recipient as payoutRecipient names it now (rows kept before destinations were named keep the address as written). */
export function recipientKey(network: string, recipient: string): string {
  const space = recipient.lastIndexOf(' ');
  return space < 0 ? recipient : `${payoutDestinationKey(network, recipient.slice(0, space))}${recipient.slice(space)}`;
}

/** A transfer some payout holds: its name, the payout, and what it paid (`recipient`, payoutRecipient; null: unknown). */
export interface HeldTransfer {
  output: string;
  refund_id: string;
  recipient: string | null;
  /** What the transfer paid (smallest units), as it was taken. */
  units: string;
}

/**
 * The `refund_payout_transfers` table (created by the refunds migrations, owned by payouts since): each
 * transfer of a chain transaction that pays one payout, unique by network, transaction, transfer and what it
 * paid (its recipient: a reorg may rename a held transfer onto another address's), whatever the organization
 * and the mode, so a transfer pays one payout anywhere.
 */
@Injectable()
export class PayoutTransfersRepository {
  /**
   * The transfers of a transaction on a network that pay a payout, whichever organization's or mode's:
   * read only to leave them out (never shown to anyone), locked for the caller's unit of work.
   */
  /**
   * One payout at a time takes transfers of the transaction `txHash`, until the caller's transaction ends:
   * `held` read after this sees every hold committed before it, so payouts taking transfers of one
   * transaction at once each pick a free one instead of the same one (which failed all but one of them).
   */
  async lockTransaction(m: EntityManager, network: string, txHash: string): Promise<void> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`payout-transfers:${network}:${txHash}`]);
  }

  async held(m: EntityManager, network: string, txHash: string): Promise<HeldTransfer[]> {
    return m.query(`SELECT output, refund_id, recipient, units::text AS units FROM refund_payout_transfers WHERE network = $1 AND tx_hash = $2 FOR UPDATE`, [
      network,
      txHash,
    ]);
  }

  /**
   * The payout takes the transfers that pay it (in the caller's unit of work). A transfer another
   * payout took a moment before fails the unique key (23505), and the caller's transaction with it.
   * A transfer with a former name (`formerly`) holds that name too while it is free, so that an instance
   * of the previous version (a rolling upgrade), which knows only that name, sees the transfer taken.
   */
  async hold(
    m: EntityManager,
    payout: PayoutHolder,
    txHash: string,
    transfers: ReadonlyArray<{ output: string; formerly?: string; units: string }>,
    now: Date,
  ): Promise<void> {
    const columns = `refund_payout_transfers (network, tx_hash, output, refund_id, organization_id, mode, units, created_at, recipient)`;
    for (const t of transfers) {
      const row = (output: string) => [payout.network, txHash, output, payout.id, payout.organization_id, payout.mode, t.units, now, payout.recipient];
      await m.query(`INSERT INTO ${columns} VALUES ($1, $2, $3, $4, $5, $6, $7::numeric, $8, $9)`, row(t.output));
      // The former name is one per transaction and asset, whoever it paid: held once, by the first payout that takes it.
      if (t.formerly) {
        await m.query(
          `INSERT INTO ${columns} SELECT $1, $2, $3, $4, $5, $6, $7::numeric, $8, $9
            WHERE NOT EXISTS (SELECT 1 FROM refund_payout_transfers WHERE network = $1 AND tx_hash = $2 AND output = $3)
           ON CONFLICT DO NOTHING`,
          row(t.formerly),
        );
      }
    }
  }

  /** The payout holds no transfer any more (its reported transaction was taken back). */
  async release(m: EntityManager, payoutId: string): Promise<void> {
    await m.query(`DELETE FROM refund_payout_transfers WHERE refund_id = $1`, [payoutId]);
  }
}
