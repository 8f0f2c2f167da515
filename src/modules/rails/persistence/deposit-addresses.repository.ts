import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Mode, Scope } from '../../../shared/auth/request-context';

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

const COLUMNS = 'wallet_id, derivation_index, organization_id, mode, invoice_id, provider_id, network, address, watch_until, created_at';

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

  async insert(m: EntityManager, row: DepositAddressRow): Promise<void> {
    await m.query(
      `INSERT INTO deposit_addresses (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [row.wallet_id, row.derivation_index, row.organization_id, row.mode, row.invoice_id, row.provider_id, row.network, row.address, row.watch_until, row.created_at],
    );
  }

  /** Addresses of a network and mode still watched at `now` (across organizations: the watcher serves them all). */
  async watched(m: EntityManager, mode: Mode, network: string, now: Date): Promise<DepositAddressRow[]> {
    return m.query(
      `SELECT ${COLUMNS} FROM deposit_addresses WHERE mode = $1 AND network = $2 AND (watch_until IS NULL OR watch_until > $3)`,
      [mode, network, now],
    );
  }

  /** Whether more than `limit` addresses of a network and mode are watched at `now` (reads at most limit + 1 rows). */
  async watchesMoreThan(m: EntityManager, mode: Mode, network: string, now: Date, limit: number): Promise<boolean> {
    const [{ n }] = await m.query(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM deposit_addresses WHERE mode = $1 AND network = $2 AND (watch_until IS NULL OR watch_until > $3) LIMIT $4) AS watched`,
      [mode, network, now, limit + 1],
    );
    return n > limit;
  }

  /** The watched ones among `addresses` (an index lookup per address, whatever the number watched). */
  async watchedAmong(m: EntityManager, mode: Mode, network: string, addresses: string[], now: Date): Promise<DepositAddressRow[]> {
    if (!addresses.length) return [];
    return m.query(
      `SELECT ${COLUMNS} FROM deposit_addresses
        WHERE mode = $1 AND network = $2 AND address = ANY($3::text[]) AND (watch_until IS NULL OR watch_until > $4)`,
      [mode, network, addresses, now],
    );
  }
}
