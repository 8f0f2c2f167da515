import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Mode, Scope } from '../../../shared/auth/request-context';
import { fairBatch } from '../../../shared/db/fair-batch';
import { keysetPage, KeysetPage, ListWhere } from '../../../shared/db/keyset-page';
import { newId } from '../../../shared/ids/ids';
import type { UnmatchedStatus } from '../domain/unmatched-transfer';

/** unchecked's batch: $1 mode, $2 network, $3 the final block, $4 per organization's mode, $5 in all. */
const UNCHECKED_BATCH = fairBatch(
  {
    table: 'unattributed_transfers',
    alias: 'u',
    due: `u.mode = $1 AND u.network = $2 AND u.status = 'OPEN' AND NOT u.final_checked AND NOT u.orphaned AND u.block_number <= $3`,
    order: 'u.network, u.block_number, u.id',
    columns: 'u.id, u.organization_id, u.mode, u.network, u.tx_hash, u.block_number',
    pool: `u.status = 'OPEN' AND NOT u.final_checked AND NOT u.orphaned`,
  },
  '$4',
  '$5',
);

export interface UnattributedTransferRow {
  id: string;
  organization_id: string;
  mode: Mode;
  network: string;
  idempotency_key: string;
  /** The deposit address as the watcher matches it (lower-case hex on EVM chains; the wallet itself for a transfer without an invoice). */
  address: string;
  /** Null for money that reached a merchant's wallet without a known reference (Solana): no invoice is known. */
  invoice_id: string | null;
  provider_id: string;
  currency: string;
  tx_hash: string;
  log_index: number | null;
  block_number: string;
  block_hash: string;
  happened_at: Date;
  units: string;
  /** Decimal text in the provider's currency. */
  amount: string;
  status: UnmatchedStatus;
  reason_code: string;
  reason: string;
  attempts: number;
  orphaned: boolean;
  payment_id: string | null;
  resolved_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** What the watcher keeps of a transfer the payments module refused, or of one no invoice is known for. */
export type RefusedTransfer = Omit<
  UnattributedTransferRow,
  'id' | 'status' | 'attempts' | 'orphaned' | 'payment_id' | 'resolved_at' | 'created_at' | 'updated_at' | 'mode'
>;

const COLUMNS = `id, organization_id, mode, network, idempotency_key, address, invoice_id, provider_id, currency, tx_hash, log_index,
  block_number::text AS block_number, block_hash, happened_at, units::text AS units, amount::text AS amount, status, reason_code, reason,
  attempts, orphaned, payment_id, resolved_at, created_at, updated_at`;

/**
 * Transfers into deposit addresses that the payments module refused, and money that reached a merchant's
 * wallet without a known reference (no invoice, Solana): written by the watcher (across
 * organizations, in the transaction that moves its cursor), read and resolved by the organization
 * they belong to (every read and change scoped by organization and mode).
 */
@Injectable()
export class UnattributedTransfersRepository {
  /**
   * Keeps a refused transfer: a new row, or the open row of the same transfer (a rescan, a reorg
   * moving it to another block) updated with the block and the latest refusal. A resolved one stays as it is
   * (null). `created`: the transfer was not kept before.
   */
  async keep(m: EntityManager, mode: Mode, t: RefusedTransfer, now: Date): Promise<{ row: UnattributedTransferRow; created: boolean } | null> {
    await this.makeRoom(m, mode, t);
    const rows: Array<UnattributedTransferRow & { created: boolean }> = await m.query(
      `INSERT INTO unattributed_transfers (id, organization_id, mode, network, idempotency_key, address, invoice_id, provider_id, currency, tx_hash,
                                           log_index, block_number, block_hash, happened_at, units, amount, status, reason_code, reason, attempts,
                                           created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::numeric, $16::numeric, 'OPEN', $17, $18, 1, $19, $19)
       ON CONFLICT (mode, network, idempotency_key) DO UPDATE
         SET block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash, happened_at = EXCLUDED.happened_at, orphaned = false,
             log_index = EXCLUDED.log_index,
             reason_code = EXCLUDED.reason_code, reason = EXCLUDED.reason, updated_at = EXCLUDED.updated_at,
             final_checked = unattributed_transfers.final_checked AND NOT unattributed_transfers.orphaned
       WHERE unattributed_transfers.status = 'OPEN'
       RETURNING ${COLUMNS}, (xmax = 0) AS created`,
      [
        newId('unmatched'),
        t.organization_id,
        mode,
        t.network,
        t.idempotency_key,
        t.address,
        t.invoice_id,
        t.provider_id,
        t.currency,
        t.tx_hash,
        t.log_index,
        t.block_number,
        t.block_hash,
        t.happened_at,
        t.units,
        t.amount,
        t.reason_code,
        t.reason,
        now,
      ],
    );
    if (!rows[0]) return null;
    const { created, ...row } = rows[0];
    return { row, created };
  }

  /**
   * Where a reorg moved a transaction's logs (EVM and Tron log indexes are block-wide), the key of a
   * refused transfer may be the one another transfer of the transaction was kept under: that row (in doubt,
   * or already resolved) is moved aside, whatever its status, for its own transfer to find; and the row
   * this transfer was kept under before, under its old key, takes the new key. So each row keeps its own
   * address, amount and payment, and no transfer is kept twice.
   */
  private async makeRoom(m: EntityManager, mode: Mode, t: RefusedTransfer): Promise<void> {
    const same = `tx_hash = $4 AND address = $5 AND units = $6::numeric`;
    const params = [mode, t.network, t.idempotency_key, t.tx_hash, t.address, t.units];
    const moved = [...params, t.log_index];
    await m.query(
      `UPDATE unattributed_transfers SET idempotency_key = idempotency_key || '#moved-' || gen_random_uuid()
        WHERE mode = $1 AND network = $2 AND idempotency_key = $3 AND NOT (${same})`,
      params,
    );
    await m.query(
      `UPDATE unattributed_transfers SET idempotency_key = $3, log_index = $7
        WHERE id = (SELECT id FROM unattributed_transfers
                     WHERE mode = $1 AND network = $2 AND idempotency_key <> $3 AND ${same} AND (orphaned OR idempotency_key LIKE '%#moved-%')
                       AND NOT EXISTS (SELECT 1 FROM unattributed_transfers k WHERE k.mode = $1 AND k.network = $2 AND k.idempotency_key = $3)
                     ORDER BY created_at LIMIT 1)`,
      moved,
    );
  }

  /**
   * Open transfers of a network not yet asked for again whose block is at or below `final` (chains whose
   * blocks have no hash to compare, Solana: ChainFollower.rechecksTransactions), at most `limit`: a fair
   * batch (shared/db/fair-batch.ts), at most `perOrganization` of one organization's mode, oldest first in
   * each, organizations interleaved, so one organization's flood does not hold back another's checks. Read
   * across organizations, as the watcher writes them.
   */
  async unchecked(
    m: EntityManager,
    mode: Mode,
    network: string,
    final: bigint,
    limit: number,
    perOrganization: number,
  ): Promise<Array<{ id: string; organization_id: string; tx_hash: string; block_number: string }>> {
    const rows: Array<{ id: string; organization_id: string; tx_hash: string; block_number: string }> = await m.query(
      `SELECT u.id, u.organization_id, u.tx_hash, u.block_number::text AS block_number FROM (${UNCHECKED_BATCH}) u`,
      [mode, network, final.toString(), perOrganization, limit],
    );
    return rows;
  }

  /** The answer of the check: still in its block (checked), or gone (in doubt, `in_doubt` in the API, until a scan keeps it again). */
  async checked(m: EntityManager, mode: Mode, network: string, id: string, gone: boolean, now: Date): Promise<void> {
    await m.query(
      `UPDATE unattributed_transfers SET final_checked = NOT $4::boolean, orphaned = $4::boolean, updated_at = $5
        WHERE mode = $1 AND network = $2 AND id = $3 AND status = 'OPEN'`,
      [mode, network, id, gone, now],
    );
  }

  async find(m: EntityManager, scope: Scope, id: string, lock = false): Promise<UnattributedTransferRow | null> {
    const rows: UnattributedTransferRow[] = await m.query(
      `SELECT ${COLUMNS} FROM unattributed_transfers WHERE organization_id = $1 AND mode = $2 AND id = $3${lock ? ' FOR UPDATE' : ''}`,
      [scope.organizationId, scope.mode, id],
    );
    return rows[0] ?? null;
  }

  /** A retry the payments module refused again: the latest reason, one more attempt. */
  async refusedAgain(m: EntityManager, scope: Scope, id: string, reason: { code: string; text: string }, now: Date): Promise<void> {
    await m.query(
      `UPDATE unattributed_transfers SET reason_code = $4, reason = $5, attempts = attempts + 1, updated_at = $6
        WHERE organization_id = $1 AND mode = $2 AND id = $3 AND status = 'OPEN'`,
      [scope.organizationId, scope.mode, id, reason.code, reason.text, now],
    );
  }

  async resolve(m: EntityManager, scope: Scope, id: string, paymentId: string, now: Date): Promise<void> {
    await m.query(
      `UPDATE unattributed_transfers SET status = 'RESOLVED', payment_id = $4, resolved_at = $5, attempts = attempts + 1, updated_at = $5
        WHERE organization_id = $1 AND mode = $2 AND id = $3 AND status = 'OPEN'`,
      [scope.organizationId, scope.mode, id, paymentId, now],
    );
  }

  /** Newest first; null when `startingAfter` is not a row of the scope. */
  async list(
    m: EntityManager,
    scope: Scope,
    filter: { status?: UnmatchedStatus[]; startingAfter?: string; limit: number; offset: number },
  ): Promise<KeysetPage<UnattributedTransferRow> | null> {
    const where = new ListWhere(scope);
    if (filter.status?.length) where.statuses(filter.status);
    return keysetPage<UnattributedTransferRow>(m, {
      table: 'unattributed_transfers',
      columns: COLUMNS,
      where: where.where,
      parts: where.parts,
      params: where.params,
      filtered: where.filtered,
      limit: filter.limit,
      offset: filter.offset,
      startingAfter: filter.startingAfter,
    });
  }
}
