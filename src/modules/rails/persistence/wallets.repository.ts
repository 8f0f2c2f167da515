import { createHash } from 'node:crypto';
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
  xpub: string;
  first_address: string;
  next_index: number;
  active: boolean;
  created_at: Date;
  replaced_at: Date | null;
}

const COLUMNS = 'id, organization_id, mode, chain_family, xpub, first_address, next_index, active, created_at, replaced_at';

const keyContext = (walletId: string) => `receiving_wallet:${walletId}`;
const fingerprint = (xpub: string) => createHash('sha256').update(xpub).digest('hex');

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
        WHERE organization_id = $1 AND mode = $2 AND chain_family = $3 AND active`,
      [row.organization_id, row.mode, row.chain_family, row.created_at],
    );
    // A key registered before (here or by another organization) goes on after its highest index:
    // its earlier addresses belong to other invoices.
    const [{ next_index }] = await m.query(
      `INSERT INTO receiving_wallets (id, organization_id, mode, chain_family, xpub, first_address, next_index, active, created_at, xpub_fingerprint)
       VALUES ($1, $2, $3, $4, $5, $6,
               COALESCE((SELECT max(next_index) FROM receiving_wallets WHERE mode = $3 AND chain_family = $4 AND xpub_fingerprint = $8), 0), true, $7, $8)
       RETURNING next_index`,
      [
        row.id,
        row.organization_id,
        row.mode,
        row.chain_family,
        this.box.seal(row.xpub, keyContext(row.id)),
        row.first_address,
        row.created_at,
        fingerprint(row.xpub),
      ],
    );
    row.next_index = next_index;
  }

  /** Serializes wallet changes of one organization, mode and family (registration, deletion, allocation). */
  async lockFamily(m: EntityManager, scope: Scope, family: ChainFamily): Promise<void> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`receiving_wallets:${scope.organizationId}:${scope.mode}:${family}`]);
  }

  async find(m: EntityManager, scope: Scope, id: string): Promise<WalletRow | null> {
    const rows: WalletRow[] = await m.query(
      `SELECT ${COLUMNS} FROM receiving_wallets WHERE organization_id = $1 AND mode = $2 AND id = $3 AND deleted_at IS NULL`,
      [scope.organizationId, scope.mode, id],
    );
    return this.opened(rows)[0] ?? null;
  }

  /** The active wallet of a family, locked (FOR UPDATE) when an address is to be taken from it. */
  async active(m: EntityManager, scope: Scope, family: ChainFamily, lock = false): Promise<WalletRow | null> {
    const rows: WalletRow[] = await m.query(
      `SELECT ${COLUMNS} FROM receiving_wallets WHERE organization_id = $1 AND mode = $2 AND chain_family = $3 AND active${lock ? ' FOR UPDATE' : ''}`,
      [scope.organizationId, scope.mode, family],
    );
    return this.opened(rows)[0] ?? null;
  }

  async list(m: EntityManager, scope: Scope, limit: number, offset: number): Promise<{ items: WalletRow[]; total: number }> {
    const [{ total }] = await m.query(`SELECT count(*)::int AS total FROM receiving_wallets WHERE organization_id = $1 AND mode = $2 AND deleted_at IS NULL`, [
      scope.organizationId,
      scope.mode,
    ]);
    const items: WalletRow[] = await m.query(
      `SELECT ${COLUMNS} FROM receiving_wallets WHERE organization_id = $1 AND mode = $2 AND deleted_at IS NULL
        ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
      [scope.organizationId, scope.mode, limit, offset],
    );
    return { items: this.opened(items), total };
  }

  /** The chain families with an active wallet in the scope: one read of the one-active-per-family index, keys not opened. */
  async activeFamilies(m: EntityManager, scope: Scope): Promise<ChainFamily[]> {
    const rows: Array<{ chain_family: ChainFamily }> = await m.query(
      `SELECT chain_family FROM receiving_wallets WHERE organization_id = $1 AND mode = $2 AND active`,
      [scope.organizationId, scope.mode],
    );
    return rows.map((r) => r.chain_family);
  }

  /** Takes the next unused index of a wallet locked by `active(..., true)`. */
  async takeIndex(m: EntityManager, walletId: string): Promise<number> {
    const [row] = rowsOf<{ index: number }>(
      await m.query(`UPDATE receiving_wallets SET next_index = next_index + 1 WHERE id = $1 RETURNING next_index - 1 AS index`, [walletId]),
    );
    return row.index;
  }

  /**
   * Seals again, with the current key, up to `limit` keys stored plain or sealed with an older key;
   * returns how many; run until 0. Rows another transaction holds are skipped.
   */
  async sealStoredKeys(m: EntityManager, limit: number): Promise<number> {
    const rows: Array<{ id: string; xpub: string }> = await m.query(
      `SELECT id, xpub FROM receiving_wallets WHERE xpub NOT LIKE $1 ORDER BY id LIMIT $2 FOR NO KEY UPDATE SKIP LOCKED`,
      [`sealed:v1:${this.box.currentKeyId}:%`, limit],
    );
    for (const r of rows) {
      await m.query(`UPDATE receiving_wallets SET xpub = $2 WHERE id = $1`, [r.id, this.box.seal(this.box.open(r.xpub, keyContext(r.id)), keyContext(r.id))]);
    }
    return rows.length;
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
