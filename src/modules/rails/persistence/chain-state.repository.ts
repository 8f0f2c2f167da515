import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Mode } from '../../../shared/auth/request-context';
import { fairBatch } from '../../../shared/db/fair-batch';

export interface CursorRow {
  block_number: string;
  block_hash: string;
}

/** Where a watcher stands: its last block, and the time stamped on it when known (a chain without stamped times: see cursorTimeAfter; null: not known, or rewound). */
export interface ChainCursor {
  number: bigint;
  hash: string;
  time: Date | null;
}

export interface TransferRow {
  idempotency_key: string;
  organization_id: string;
  invoice_id: string;
  provider_id: string;
  payment_id: string;
  tx_hash: string;
  block_number: string;
  block_hash: string;
  confirmations: number;
  required_confirmations: number;
  orphaned: boolean;
  /** Its payment was cancelled because its transaction left the chain (it may come back). */
  cancelled: boolean;
  /** Our address that received it, and the amount in the smallest unit (null on rows from before they were kept). */
  recipient: string | null;
  units: string | null;
}

const TRANSFER_COLUMNS = `idempotency_key, organization_id, invoice_id, provider_id, payment_id, tx_hash, block_number::text, block_hash, confirmations,
              required_confirmations, orphaned, cancelled, recipient, units::text AS units`;

/** The chain watcher's memory per network and mode: cursor, recent block hashes, transfers seen. */
@Injectable()
export class ChainStateRepository {
  async cursor(m: EntityManager, mode: Mode, network: string): Promise<ChainCursor | null> {
    const rows: Array<CursorRow & { block_time: Date | null }> = await m.query(
      `SELECT block_number::text, block_hash, block_time FROM chain_cursors WHERE mode = $1 AND network = $2`,
      [mode, network],
    );
    return rows[0] ? { number: BigInt(rows[0].block_number), hash: rows[0].block_hash, time: rows[0].block_time } : null;
  }

  /**
   * Moves the cursor to a processed block (with the time stamped on it) and remembers its hash and those of
   * the blocks read on the way (`scanned`) from `keepFrom` up; forgets hashes below `keepFrom`. Every block
   * within the finality depth is remembered, not only each step's last: after a step that read more blocks
   * than that depth (catching up), a reorg of its last blocks finds its common ancestor among them.
   */
  async advance(
    m: EntityManager,
    mode: Mode,
    network: string,
    block: ChainCursor,
    keepFrom: bigint,
    now: Date,
    scanned: ReadonlyArray<{ number: bigint; hash: string }> = [],
  ): Promise<void> {
    await m.query(
      `INSERT INTO chain_cursors (mode, network, block_number, block_hash, updated_at, block_time) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (mode, network) DO UPDATE
         SET block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash, updated_at = EXCLUDED.updated_at, block_time = EXCLUDED.block_time`,
      [mode, network, block.number.toString(), block.hash, now, block.time],
    );
    const kept = new Map<bigint, string>();
    for (const b of scanned) if (b.number >= keepFrom && b.number <= block.number) kept.set(b.number, b.hash);
    if (block.number >= 0n) kept.set(block.number, block.hash);
    if (kept.size) {
      await m.query(
        `INSERT INTO chain_blocks (mode, network, block_number, block_hash)
         SELECT $1, $2, b.number, b.hash FROM unnest($3::bigint[], $4::text[]) AS b(number, hash)
         ON CONFLICT (mode, network, block_number) DO UPDATE SET block_hash = EXCLUDED.block_hash`,
        [mode, network, [...kept.keys()].map(String), [...kept.values()]],
      );
    }
    await m.query(`DELETE FROM chain_blocks WHERE mode = $1 AND network = $2 AND block_number < $3`, [mode, network, keepFrom.toString()]);
  }

  /** The polled accounts left behind the cursor (their backlog over a step's budget), where each stands. */
  /** The polled accounts left behind, where each stands, and since when (the cursor's block time when it was first left behind; null: unknown). */
  async carried(m: EntityManager, mode: Mode, network: string): Promise<Array<{ account: string; position: string; since: Date | null }>> {
    return m.query(`SELECT account, position, since FROM chain_carried_accounts WHERE mode = $1 AND network = $2 ORDER BY account`, [mode, network]);
  }

  /**
   * Replaces the accounts left behind with `accounts`, in the transaction that moves the cursor. An account
   * still behind keeps its `since`; one newly left behind takes `since` (the block time of the cursor its
   * unread transfers come after).
   */
  async keepCarried(
    m: EntityManager,
    mode: Mode,
    network: string,
    accounts: ReadonlyArray<{ account: string; position: string }>,
    now: Date,
    since: Date | null,
  ): Promise<void> {
    const old: Array<{ account: string; since: Date | null }> = rowsOf(
      await m.query(`DELETE FROM chain_carried_accounts WHERE mode = $1 AND network = $2 RETURNING account, since`, [mode, network]),
    );
    if (!accounts.length) return;
    const before = new Map(old.map((r) => [r.account, r.since]));
    await m.query(
      `INSERT INTO chain_carried_accounts (mode, network, account, position, updated_at, since)
       SELECT $1, $2, a.account, a.position, $5, a.since FROM unnest($3::text[], $4::text[], $6::timestamptz[]) AS a(account, position, since)`,
      [
        mode,
        network,
        accounts.map((a) => a.account),
        accounts.map((a) => a.position),
        now,
        accounts.map((a) => (before.has(a.account) ? before.get(a.account) : since) ?? null),
      ],
    );
  }

  async rememberBlock(m: EntityManager, mode: Mode, network: string, block: { number: bigint; hash: string }): Promise<void> {
    await m.query(
      `INSERT INTO chain_blocks (mode, network, block_number, block_hash) VALUES ($1, $2, $3, $4)
       ON CONFLICT (mode, network, block_number) DO UPDATE SET block_hash = EXCLUDED.block_hash`,
      [mode, network, block.number.toString(), block.hash],
    );
  }

  /** Remembered block hashes at or below `below`, highest first. */
  async blocksBelow(m: EntityManager, mode: Mode, network: string, below: bigint): Promise<Array<{ number: bigint; hash: string }>> {
    const rows: CursorRow[] = await m.query(
      `SELECT block_number::text, block_hash FROM chain_blocks WHERE mode = $1 AND network = $2 AND block_number <= $3 ORDER BY block_number DESC`,
      [mode, network, below.toString()],
    );
    return rows.map((r) => ({ number: BigInt(r.block_number), hash: r.block_hash }));
  }

  /** Rewinds to `ancestor` after a reorg: later block hashes are forgotten and later transfers put in doubt. */
  async rewind(m: EntityManager, mode: Mode, network: string, ancestor: { number: bigint; hash: string }, now: Date): Promise<number> {
    await m.query(`DELETE FROM chain_blocks WHERE mode = $1 AND network = $2 AND block_number > $3`, [mode, network, ancestor.number.toString()]);
    // The ancestor's time is not kept: unknown (null) until the cursor moves on.
    await m.query(`UPDATE chain_cursors SET block_number = $3, block_hash = $4, updated_at = $5, block_time = NULL WHERE mode = $1 AND network = $2`, [
      mode,
      network,
      ancestor.number.toString(),
      ancestor.hash,
      now,
    ]);
    const rows = await m.query(
      `UPDATE chain_transfers SET orphaned = true, updated_at = $4 WHERE mode = $1 AND network = $2 AND block_number > $3 AND NOT cancelled RETURNING idempotency_key`,
      [mode, network, ancestor.number.toString(), now],
    );
    // Transfers kept as unmatched in those blocks are in doubt too: not retried until a rescan finds them again.
    await m.query(
      `UPDATE unattributed_transfers SET orphaned = true, updated_at = $4
        WHERE mode = $1 AND network = $2 AND block_number > $3 AND status = 'OPEN' AND NOT orphaned`,
      [mode, network, ancestor.number.toString(), now],
    );
    return Array.isArray(rows[0]) ? rows[0].length : rows.length;
  }

  async findTransfer(m: EntityManager, mode: Mode, network: string, key: string): Promise<TransferRow | null> {
    const rows: TransferRow[] = await m.query(
      `SELECT ${TRANSFER_COLUMNS}
         FROM chain_transfers WHERE mode = $1 AND network = $2 AND idempotency_key = $3`,
      [mode, network, key],
    );
    return rows[0] ?? null;
  }

  /**
   * Stores a transfer as it stands now (found in `block_number`, its payment's confirmations and
   * whether it is cancelled), no longer in doubt. The confirmations are its payment's: they restart
   * when the transaction was mined again in a later block.
   */
  async saveTransfer(m: EntityManager, mode: Mode, network: string, row: TransferRow, now: Date): Promise<void> {
    await m.query(
      `INSERT INTO chain_transfers (mode, network, idempotency_key, organization_id, invoice_id, provider_id, payment_id, tx_hash, block_number,
                                    block_hash, confirmations, required_confirmations, orphaned, cancelled, recipient, units, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, false, $14, $15, $16::numeric, $13, $13)
       ON CONFLICT (mode, network, idempotency_key) DO UPDATE SET block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash,
         confirmations = EXCLUDED.confirmations, orphaned = false, cancelled = EXCLUDED.cancelled,
         recipient = COALESCE(EXCLUDED.recipient, chain_transfers.recipient), units = COALESCE(EXCLUDED.units, chain_transfers.units),
         updated_at = EXCLUDED.updated_at`,
      [
        mode,
        network,
        row.idempotency_key,
        row.organization_id,
        row.invoice_id,
        row.provider_id,
        row.payment_id,
        row.tx_hash,
        row.block_number,
        row.block_hash,
        row.confirmations,
        row.required_confirmations,
        now,
        row.cancelled,
        row.recipient,
        row.units,
      ],
    );
  }

  /**
   * A transfer a reorg put in doubt (or whose payment it cancelled) that a transfer found now may be,
   * mined again in another block, possibly at another log index: the same transaction, invoice and
   * provider (coin or token), recipient and amount; not the row stored under `key` itself.
   */
  async findMinedAgain(
    m: EntityManager,
    mode: Mode,
    network: string,
    key: string,
    found: { txHash: string; invoiceId: string; providerId: string; recipient: string; units: string },
  ): Promise<TransferRow | null> {
    const rows: TransferRow[] = await m.query(
      `SELECT ${TRANSFER_COLUMNS}
         FROM chain_transfers
        WHERE mode = $1 AND network = $2 AND tx_hash = $3 AND idempotency_key <> $4 AND (orphaned OR cancelled)
          AND invoice_id = $5 AND provider_id = $6 AND (recipient IS NULL OR recipient = $7) AND (units IS NULL OR units = $8::numeric)
        ORDER BY idempotency_key LIMIT 1`,
      [mode, network, found.txHash, key, found.invoiceId, found.providerId, found.recipient, found.units],
    );
    return rows[0] ?? null;
  }

  /**
   * Moves the row stored under `key` to a key of its own (returned): a reorg put another transfer of its
   * transaction at that key (EVM and Tron logs are numbered across the block). The row keeps everything
   * else, in doubt as it was, so its own transfer, found again, still finds it (findMinedAgain).
   */
  async moveTransferAside(m: EntityManager, mode: Mode, network: string, key: string): Promise<string> {
    const aside = `${key}#moved-${randomUUID()}`;
    await m.query(`UPDATE chain_transfers SET idempotency_key = $4 WHERE mode = $1 AND network = $2 AND idempotency_key = $3`, [mode, network, key, aside]);
    return aside;
  }

  /** Forgets the row stored under `key` (a transfer found again under another key took its place). */
  async dropTransfer(m: EntityManager, mode: Mode, network: string, key: string): Promise<void> {
    await m.query(`DELETE FROM chain_transfers WHERE mode = $1 AND network = $2 AND idempotency_key = $3`, [mode, network, key]);
  }

  /**
   * Transfers still counting confirmations (below their requirement or inside the finality depth),
   * not in doubt, whose count at `head` is above the one last reported, or that the node's `final`
   * block (chains that name one; null otherwise) covers while they are below their requirement; a fair batch
   * (shared/db/fair-batch.ts): at most `cap` of one organization, organizations interleaved, each
   * organization's least recently counted first (updated_at moves with every count).
   */
  async counting(m: EntityManager, mode: Mode, network: string, head: bigint, cap: number, final: bigint | null = null): Promise<TransferRow[]> {
    const batch = fairBatch(
      {
        table: 'chain_transfers',
        alias: 't',
        due: `t.mode = $1 AND t.network = $2 AND NOT t.cancelled AND NOT t.orphaned AND t.block_number >= 0
          AND (t.confirmations < t.required_confirmations OR t.block_number >= $3::bigint)
          AND (t.confirmations < $3::bigint - t.block_number + 1 OR (t.block_number <= $5::bigint AND t.confirmations < t.required_confirmations))`,
        order: 't.updated_at, t.block_number, t.idempotency_key',
      },
      '$4',
      'ALL',
    );
    return m.query(`SELECT ${TRANSFER_COLUMNS} FROM (${batch}) t ORDER BY t.fair_turn, t.updated_at, t.block_number, t.idempotency_key`, [
      mode,
      network,
      head.toString(),
      cap,
      (final ?? -1n).toString(),
    ]);
  }

  /** Every transfer stored of one transaction (index on the transaction hash). */
  async transfersOf(m: EntityManager, mode: Mode, network: string, txHash: string): Promise<TransferRow[]> {
    return m.query(`SELECT ${TRANSFER_COLUMNS} FROM chain_transfers WHERE mode = $1 AND network = $2 AND tx_hash = $3`, [mode, network, txHash]);
  }

  async orphans(m: EntityManager, mode: Mode, network: string): Promise<TransferRow[]> {
    return m.query(
      `SELECT ${TRANSFER_COLUMNS}
         FROM chain_transfers WHERE mode = $1 AND network = $2 AND orphaned AND NOT cancelled ORDER BY block_number`,
      [mode, network],
    );
  }

  async setConfirmations(m: EntityManager, mode: Mode, network: string, key: string, confirmations: number, now: Date): Promise<void> {
    await m.query(`UPDATE chain_transfers SET confirmations = $4, updated_at = $5 WHERE mode = $1 AND network = $2 AND idempotency_key = $3`, [
      mode,
      network,
      key,
      confirmations,
      now,
    ]);
  }

  /** Transfers of transactions seen only in the mempool (block -1), not settled. */
  async unmined(m: EntityManager, mode: Mode, network: string): Promise<TransferRow[]> {
    return m.query(
      `SELECT ${TRANSFER_COLUMNS} FROM chain_transfers WHERE mode = $1 AND network = $2 AND block_number = -1 AND NOT cancelled AND NOT orphaned`,
      [mode, network],
    );
  }

  /** Puts a transfer in doubt (its transaction left the mempool unmined, or its block left the chain). */
  async markOrphaned(m: EntityManager, mode: Mode, network: string, key: string, now: Date): Promise<void> {
    await m.query(`UPDATE chain_transfers SET orphaned = true, updated_at = $4 WHERE mode = $1 AND network = $2 AND idempotency_key = $3`, [
      mode,
      network,
      key,
      now,
    ]);
  }

  async markCancelled(m: EntityManager, mode: Mode, network: string, key: string, now: Date): Promise<void> {
    await m.query(`UPDATE chain_transfers SET cancelled = true, orphaned = false, updated_at = $4 WHERE mode = $1 AND network = $2 AND idempotency_key = $3`, [
      mode,
      network,
      key,
      now,
    ]);
  }
}

/** The rows of a statement's answer (TypeORM answers an UPDATE or DELETE as [rows, count]). */
function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return Array.isArray(result) ? (result as T[]) : [];
}
