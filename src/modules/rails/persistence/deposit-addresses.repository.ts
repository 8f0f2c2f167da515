import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Mode, Scope } from '../../../shared/auth/request-context';
import { COLUMNS, WATCHED_AMONG_SQL, WATCHED_WALLETS_SQL, WATCHED_UP_TO_SQL } from './watched-addresses';

export interface DepositAddressRow {
  wallet_id: string;
  derivation_index: number;
  organization_id: string;
  mode: Mode;
  invoice_id: string;
  provider_id: string;
  network: string;
  /** Lower-case hex. */
  address: string;
  watch_until: Date | null;
  created_at: Date;
}

/** Deposit addresses handed out per invoice and provider. */
@Injectable()
export class DepositAddressesRepository {
  async findForInvoice(m: EntityManager, scope: Scope, invoiceId: string, providerId: string): Promise<DepositAddressRow | null> {
    const rows: DepositAddressRow[] = await m.query(
      `SELECT ${COLUMNS} FROM deposit_addresses WHERE organization_id = $1 AND mode = $2 AND invoice_id = $3 AND provider_id = $4`,
      [scope.organizationId, scope.mode, invoiceId, providerId],
    );
    return rows[0] ?? null;
  }

  /**
   * Inserts the address unless it collides with a row already there (the same index of the wallet,
   * the same address on the network and mode, or an address of the same invoice and provider);
   * false then, and nothing is written: the caller looks for the winner or takes another index.
   */
  async insertIfFree(m: EntityManager, row: DepositAddressRow): Promise<boolean> {
    const inserted: unknown[] = await m.query(
      `INSERT INTO deposit_addresses (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT DO NOTHING RETURNING wallet_id`,
      [
        row.wallet_id,
        row.derivation_index,
        row.organization_id,
        row.mode,
        row.invoice_id,
        row.provider_id,
        row.network,
        row.address,
        row.watch_until,
        row.created_at,
      ],
    );
    return inserted.length === 1;
  }

  /**
   * Up to `limit` addresses of a network and mode still watched at `now` (across organizations: the
   * watcher serves them all); `limit` rows back means there may be more. Ordered by the end of their
   * window on deposit_addresses_watching_idx, so the plan is a backward index range that stops at the
   * first address no longer watched or at `limit`, also as the generic plan the service's sessions use
   * (a plain LIMIT let the planner scan the whole table, reading every address ever handed out).
   */
  async watchedUpTo(m: EntityManager, mode: Mode, network: string, now: Date, limit: number): Promise<DepositAddressRow[]> {
    return m.query(WATCHED_UP_TO_SQL, [mode, network, now, limit]);
  }

  /**
   * Keeps the invoice's addresses on `network` watched until at least `until` (an address watched
   * without end stays so): after a reorg cancelled a payment to one of them, its transaction may be
   * mined again later, and only a watched address has its transfers seen.
   */
  async watchAgain(m: EntityManager, scope: Scope, network: string, invoiceId: string, until: Date): Promise<void> {
    await m.query(
      `UPDATE deposit_addresses SET watch_until = $5
        WHERE organization_id = $1 AND mode = $2 AND network = $3 AND invoice_id = $4 AND watch_until < $5`,
      [scope.organizationId, scope.mode, network, invoiceId, until],
    );
  }

  /**
   * The wallets to poll on a network of `<wallet>/<reference>` addresses, with their organizations: the
   * mode's active wallets of `family` and those the still-watched addresses pay (WATCHED_WALLETS_SQL).
   */
  async watchedWallets(m: EntityManager, mode: Mode, network: string, family: string, now: Date): Promise<Array<{ wallet: string; organization_id: string }>> {
    return m.query(WATCHED_WALLETS_SQL, [mode, network, now, family]);
  }

  /** The watched ones among `addresses` (an index lookup per address, whatever the number watched). */
  async watchedAmong(m: EntityManager, mode: Mode, network: string, addresses: string[], now: Date): Promise<DepositAddressRow[]> {
    if (!addresses.length) return [];
    return m.query(WATCHED_AMONG_SQL, [mode, network, addresses, now]);
  }

  /**
   * An address received money: its key's highest used index is raised to the address's (the key's
   * gap shrinks) and the gap warning is cleared. One statement on the (mode, network, address) index.
   */
  async markUsed(m: EntityManager, mode: Mode, network: string, address: string): Promise<void> {
    await m.query(
      `UPDATE account_key_counters c SET used_index = GREATEST(COALESCE(c.used_index, -1), d.derivation_index), gap_warned = false
         FROM deposit_addresses d JOIN receiving_wallets w ON w.id = d.wallet_id
        WHERE d.mode = $1 AND d.network = $2 AND d.address = $3 AND c.chain_family = w.chain_family AND c.key_fingerprint = w.key_fingerprint
          AND (c.used_index IS NULL OR c.used_index < d.derivation_index OR c.gap_warned)`,
      [mode, network, address],
    );
  }
}
