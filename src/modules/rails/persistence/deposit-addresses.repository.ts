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

  /** Who owns an address of a network and mode (the newest allocation, should an address repeat across wallets). */
  async byAddresses(m: EntityManager, mode: Mode, network: string, addresses: string[]): Promise<DepositAddressRow[]> {
    if (!addresses.length) return [];
    return m.query(
      `SELECT DISTINCT ON (address) ${COLUMNS} FROM deposit_addresses WHERE mode = $1 AND network = $2 AND address = ANY($3::text[])
        ORDER BY address, created_at DESC`,
      [mode, network, addresses],
    );
  }
}
