import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Mode, Scope } from '../../../shared/auth/request-context';
import { SecretBox } from '../../../shared/crypto/secret-box';
import type { ChainFamily } from '../domain/payment-rail';
import { rowsOf } from './sql-rows';

export interface WalletRow {
  id: string;
  organization_id: string;
  mode: Mode;
  chain_family: ChainFamily;
  /** The network the wallet serves when its family has a wallet per network; null for a family-wide wallet. */
  network: string | null;
  xpub: string;
  /** The key's fingerprint (RailKeys.fingerprint); null on a row written before fingerprints, until the next start fills it. */
  key_fingerprint: string | null;
  first_address: string;
  /** The key's counter: indexes 0 to next_index - 1 were handed out, by this wallet or another of the same key. */
  next_index: number;
  /** Addresses of the key handed out after the last one that received money (all of them when none did). */
  unused_gap: number;
  active: boolean;
  created_at: Date;
  replaced_at: Date | null;
}

/** A wallet with its key's counter (the counter is the key's, shared by every wallet of the key). */
const FROM = `receiving_wallets w LEFT JOIN account_key_counters c ON c.chain_family = w.chain_family AND c.key_fingerprint = w.key_fingerprint`;
const COLUMNS = `w.id, w.organization_id, w.mode, w.chain_family, w.network, w.xpub, w.key_fingerprint, w.first_address,
                 GREATEST(w.next_index, COALESCE(c.next_index, 0)) AS next_index,
                 GREATEST(w.next_index, COALESCE(c.next_index, 0)) - 1 - COALESCE(c.used_index, -1) AS unused_gap, w.active, w.created_at, w.replaced_at`;

const keyContext = (walletId: string) => `receiving_wallet:${walletId}`;

/**
 * What a wallet whose key was sealed with a lost SECRETS_KEY holds instead, in plain text (it is no
 * secret): never a key, and skipped by the start's re-sealing and fingerprinting.
 */
const LOST_KEY_MARKER = 'lost';

/**
 * Receiving wallets; every method is scoped by organization and mode, deleted wallets are invisible.
 * The key is sealed on the way in and opened on the way out: rows hold no plain key.
 */
@Injectable()
export class WalletsRepository {
  constructor(@Inject(SecretBox) private readonly box: SecretBox) {}

  private opened(rows: WalletRow[]): WalletRow[] {
    return rows.map((row) => ({ ...row, xpub: this.box.open(row.xpub, keyContext(row.id)) }));
  }

  /**
   * Makes `row` the active wallet of its family: the current active one (locked first) is marked
   * replaced in the same transaction, so there is never a moment with two or none.
   */
  async insertActive(m: EntityManager, row: WalletRow): Promise<void> {
    await m.query(
      `UPDATE receiving_wallets SET active = false, replaced_at = $4
        WHERE organization_id = $1 AND mode = $2 AND chain_family = $3 AND network IS NOT DISTINCT FROM $5 AND active`,
      [row.organization_id, row.mode, row.chain_family, row.created_at, row.network],
    );
    // The key's counter, created at 0 for a key never seen; a key registered before (here, in the other
    // mode or by another organization) goes on after its highest index: its earlier addresses belong to other invoices.
    await m.query(
      `INSERT INTO account_key_counters (chain_family, key_fingerprint, next_index, updated_at) VALUES ($1, $2, 0, $3)
       ON CONFLICT (chain_family, key_fingerprint) DO NOTHING`,
      [row.chain_family, row.key_fingerprint, row.created_at],
    );
    const [{ next_index, unused_gap }] = await m.query(
      `INSERT INTO receiving_wallets (id, organization_id, mode, chain_family, xpub, first_address, next_index, active, created_at, key_fingerprint, network)
       VALUES ($1, $2, $3, $4, $5, $6,
               (SELECT next_index FROM account_key_counters WHERE chain_family = $4 AND key_fingerprint = $8), true, $7, $8, $9)
       RETURNING next_index,
                 next_index - 1 - COALESCE((SELECT used_index FROM account_key_counters WHERE chain_family = $4 AND key_fingerprint = $8), -1) AS unused_gap`,
      [
        row.id,
        row.organization_id,
        row.mode,
        row.chain_family,
        this.box.seal(row.xpub, keyContext(row.id)),
        row.first_address,
        row.created_at,
        row.key_fingerprint,
        row.network,
      ],
    );
    row.next_index = next_index;
    row.unused_gap = unused_gap;
  }

  /**
   * Whether another organization holds a wallet of the key (any mode; active, replaced or deleted: its
   * counter still holds that organization's count). Takes the key's lock first, so two organizations
   * registering one key at once are answered one after the other.
   */
  async keyHeldElsewhere(m: EntityManager, organizationId: string, family: ChainFamily, fingerprint: string): Promise<boolean> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`account_key:${family}:${fingerprint}`]);
    const rows: unknown[] = await m.query(
      `SELECT 1 FROM receiving_wallets WHERE chain_family = $1 AND key_fingerprint = $2 AND organization_id <> $3 LIMIT 1`,
      [family, fingerprint, organizationId],
    );
    return rowsOf(rows).length > 0;
  }

  /** Serializes wallet changes of one organization, mode and wallet slot (family, and network where it has one). */
  async lockFamily(m: EntityManager, scope: Scope, family: ChainFamily, network: string | null): Promise<void> {
    const slot = network === null ? family : `${family}:${network}`;
    await m.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`receiving_wallets:${scope.organizationId}:${scope.mode}:${slot}`]);
  }

  async find(m: EntityManager, scope: Scope, id: string): Promise<WalletRow | null> {
    const rows: WalletRow[] = await m.query(
      `SELECT ${COLUMNS} FROM ${FROM} WHERE w.organization_id = $1 AND w.mode = $2 AND w.id = $3 AND w.deleted_at IS NULL`,
      [scope.organizationId, scope.mode, id],
    );
    return this.opened(rows)[0] ?? null;
  }

  /** The active wallet of a family (and network, for a wallet per network), locked (FOR UPDATE) when an address is to be taken from it. */
  async active(m: EntityManager, scope: Scope, family: ChainFamily, network: string | null, lock = false): Promise<WalletRow | null> {
    const rows: WalletRow[] = await m.query(
      `SELECT ${COLUMNS} FROM ${FROM}
        WHERE w.organization_id = $1 AND w.mode = $2 AND w.chain_family = $3 AND COALESCE(w.network, '') = $4 AND w.active${lock ? ' FOR UPDATE OF w' : ''}`,
      [scope.organizationId, scope.mode, family, network ?? ''],
    );
    return this.opened(rows)[0] ?? null;
  }

  /**
   * Every organization's active wallets, keys opened, for the operator's preflight (`cli doctor`): the one
   * read across organizations, made by the operator's command and never by a request.
   */
  async activeOfEveryOrganization(m: EntityManager): Promise<WalletRow[]> {
    const rows: WalletRow[] = await m.query(
      `SELECT ${COLUMNS} FROM ${FROM} WHERE w.active AND w.deleted_at IS NULL ORDER BY w.organization_id, w.mode, w.chain_family, w.network NULLS FIRST`,
    );
    return this.opened(rows);
  }

  async list(m: EntityManager, scope: Scope, limit: number, offset: number): Promise<{ items: WalletRow[]; total: number }> {
    const [{ total }] = await m.query(`SELECT count(*)::int AS total FROM receiving_wallets WHERE organization_id = $1 AND mode = $2 AND deleted_at IS NULL`, [
      scope.organizationId,
      scope.mode,
    ]);
    const items: WalletRow[] = await m.query(
      `SELECT ${COLUMNS} FROM ${FROM} WHERE w.organization_id = $1 AND w.mode = $2 AND w.deleted_at IS NULL
        ORDER BY w.created_at DESC, w.id DESC LIMIT $3 OFFSET $4`,
      [scope.organizationId, scope.mode, limit, offset],
    );
    return { items: this.opened(items), total };
  }

  /**
   * The wallet slots with an active wallet in the scope (the family, or `<family>:<network>` for a wallet
   * per network): one read of the one-active-per-slot index, keys not opened.
   */
  async activeSlots(m: EntityManager, scope: Scope): Promise<string[]> {
    const rows: Array<{ slot: string }> = await m.query(
      `SELECT chain_family || COALESCE(':' || network, '') AS slot FROM receiving_wallets WHERE organization_id = $1 AND mode = $2 AND active`,
      [scope.organizationId, scope.mode],
    );
    return rows.map((r) => r.slot);
  }

  /**
   * Takes the next unused index of the key of a wallet locked by `active(..., true)`: the key's counter
   * row is locked by the upsert until the transaction ends, so allocations from every organization and
   * mode holding the key queue there. A key without a counter (a row from before fingerprints, not
   * yet filled at start) starts after the highest index of its wallets. The wallet row records the
   * counter (and the fingerprint, when it lacked one).
   */
  async takeIndex(m: EntityManager, wallet: WalletRow, fingerprint: string, now: Date): Promise<{ index: number; gap: number; warned: boolean }> {
    const [row] = rowsOf<{ index: number; gap: number; warned: boolean }>(
      await m.query(
        `WITH counter AS (
           INSERT INTO account_key_counters (chain_family, key_fingerprint, next_index, updated_at)
           VALUES ($1, $2, (SELECT max(next_index) FROM receiving_wallets WHERE chain_family = $1 AND (key_fingerprint = $2 OR id = $3)) + 1, $4)
           ON CONFLICT (chain_family, key_fingerprint) DO UPDATE SET next_index = account_key_counters.next_index + 1, updated_at = EXCLUDED.updated_at
           RETURNING next_index, used_index, gap_warned)
         UPDATE receiving_wallets SET next_index = GREATEST(next_index, (SELECT next_index FROM counter)), key_fingerprint = COALESCE(key_fingerprint, $2)
          WHERE id = $3
         RETURNING (SELECT next_index FROM counter) - 1 AS index,
                   (SELECT next_index - 1 - COALESCE(used_index, -1) FROM counter) AS gap,
                   (SELECT gap_warned FROM counter) AS warned`,
        [wallet.chain_family, fingerprint, wallet.id, now],
      ),
    );
    return row;
  }

  /** Marks the key's gap as warned about (until an address of the key receives money); true when it was not yet. */
  async markGapWarned(m: EntityManager, chainFamily: ChainFamily, fingerprint: string): Promise<boolean> {
    const rows: unknown[] = await m.query(
      `UPDATE account_key_counters SET gap_warned = true WHERE chain_family = $1 AND key_fingerprint = $2 AND NOT gap_warned RETURNING 1`,
      [chainFamily, fingerprint],
    );
    return rowsOf(rows).length > 0;
  }

  /**
   * Up to `limit` wallets without a fingerprint (written before fingerprints), keys opened; locked
   * (rows another transaction holds are skipped) until `setFingerprints` in the same transaction.
   */
  async unfingerprinted(
    m: EntityManager,
    limit: number,
  ): Promise<Array<{ id: string; mode: Mode; chain_family: ChainFamily; network: string | null; xpub: string }>> {
    const rows: Array<{ id: string; mode: Mode; chain_family: ChainFamily; network: string | null; xpub: string }> = await m.query(
      `SELECT id, mode, chain_family, network, xpub FROM receiving_wallets WHERE key_fingerprint IS NULL AND xpub <> $2 ORDER BY id LIMIT $1 FOR NO KEY UPDATE SKIP LOCKED`,
      [limit, LOST_KEY_MARKER],
    );
    return rows.map((r) => ({ ...r, xpub: this.box.open(r.xpub, keyContext(r.id)) }));
  }

  /**
   * Stores the fingerprints of `rows` and raises their keys' counters to the highest index any wallet
   * of the key handed out (its own count, or its highest deposit address + 1), so the shared counter
   * never gives an index that one of them used.
   */
  async setFingerprints(m: EntityManager, rows: Array<{ id: string; fingerprint: string }>, now: Date): Promise<void> {
    if (!rows.length) return;
    await m.query(
      `UPDATE receiving_wallets w SET key_fingerprint = f.fingerprint
         FROM unnest($1::text[], $2::text[]) AS f(id, fingerprint) WHERE w.id = f.id`,
      [rows.map((r) => r.id), rows.map((r) => r.fingerprint)],
    );
    await m.query(
      `INSERT INTO account_key_counters (chain_family, key_fingerprint, next_index, updated_at)
       SELECT w.chain_family, w.key_fingerprint, max(GREATEST(w.next_index, COALESCE(d.top + 1, 0))), $2
         FROM receiving_wallets w
         LEFT JOIN LATERAL (SELECT max(derivation_index) AS top FROM deposit_addresses WHERE wallet_id = w.id) d ON true
        WHERE w.key_fingerprint = ANY($1::text[])
        GROUP BY w.chain_family, w.key_fingerprint
       ON CONFLICT (chain_family, key_fingerprint) DO UPDATE SET next_index = GREATEST(account_key_counters.next_index, EXCLUDED.next_index), updated_at = $2`,
      [[...new Set(rows.map((r) => r.fingerprint))], now],
    );
  }

  /**
   * Seals again, with the current key, up to `limit` keys stored plain or sealed with an older key;
   * returns how many; run until 0. Rows another transaction holds are skipped.
   */
  async sealStoredKeys(m: EntityManager, limit: number): Promise<number> {
    const rows: Array<{ id: string; xpub: string }> = await m.query(
      `SELECT id, xpub FROM receiving_wallets WHERE xpub NOT LIKE $1 AND xpub <> $3 ORDER BY id LIMIT $2 FOR NO KEY UPDATE SKIP LOCKED`,
      [`sealed:v1:${this.box.currentKeyId}:%`, limit, LOST_KEY_MARKER],
    );
    for (const r of rows) {
      await m.query(`UPDATE receiving_wallets SET xpub = $2 WHERE id = $1`, [r.id, this.box.seal(this.box.open(r.xpub, keyContext(r.id)), keyContext(r.id))]);
    }
    return rows.length;
  }

  /**
   * Removes, as DELETE /wallets/{id} does, up to `limit` wallets whose key is sealed with a key lost
   * for good (`pattern`: sealedWithPattern of its id), deleted ones included, and replaces that key by
   * LOST_KEY_MARKER, which no start opens. `fingerprinted` is false for a wallet stored before key
   * fingerprints: its address counter cannot be found without the key. Returns the removed wallets;
   * run until fewer than `limit`.
   */
  async forgetKeysSealedWith(
    m: EntityManager,
    pattern: string,
    now: Date,
    limit: number,
  ): Promise<Array<{ id: string; was_deleted: boolean; fingerprinted: boolean }>> {
    const rows: Array<{ id: string; was_deleted: boolean; fingerprinted: boolean }> = await m.query(
      `SELECT id, deleted_at IS NOT NULL AS was_deleted, key_fingerprint IS NOT NULL AS fingerprinted
         FROM receiving_wallets WHERE xpub LIKE $1 ORDER BY id LIMIT $2 FOR NO KEY UPDATE SKIP LOCKED`,
      [pattern, limit],
    );
    if (rows.length) {
      await m.query(`UPDATE receiving_wallets SET xpub = $2, deleted_at = COALESCE(deleted_at, $3), active = false WHERE id = ANY($1::text[])`, [
        rows.map((r) => r.id),
        LOST_KEY_MARKER,
        now,
      ]);
    }
    return rows;
  }

  async markDeleted(m: EntityManager, scope: Scope, id: string, now: Date): Promise<void> {
    await m.query(`UPDATE receiving_wallets SET deleted_at = $4, active = false WHERE organization_id = $1 AND mode = $2 AND id = $3 AND deleted_at IS NULL`, [
      scope.organizationId,
      scope.mode,
      id,
      now,
    ]);
  }
}
