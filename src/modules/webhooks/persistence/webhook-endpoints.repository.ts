import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Mode, Scope } from '../../../shared/auth/request-context';
import { SecretBox } from '../../../shared/crypto/secret-box';
import { rowsOf } from './sql-rows';

/** What a webhook endpoint's sealed secrets are bound to: a sealed value copied to another row does not open. */
export const endpointSecretContext = (endpointId: string) => `webhook_endpoint:${endpointId}`;

export interface EndpointRow {
  id: string;
  organization_id: string;
  mode: Mode;
  url: string;
  description: string | null;
  event_types: string[];
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  enabled: boolean;
  disabled_reason: string | null;
  consecutive_failures: number;
  created_at: Date;
  updated_at: Date;
}

/**
 * An endpoint without its signing secrets: what every read but a rotation's needs. Reads return this and
 * never open the sealed secrets, so an endpoint whose secret cannot be opened (sealed with a key this
 * instance lacks) still lists, reads, pauses, deletes and counts its failures; only signing and rotating
 * with a grace period open them.
 */
export type EndpointState = Omit<EndpointRow, 'secret' | 'previous_secret'>;

export interface EndpointChanges {
  url?: string;
  description?: string | null;
  event_types?: string[];
  enabled?: boolean;
  disabled_reason?: string | null;
  consecutive_failures?: number;
  secret?: string;
  previous_secret?: string | null;
  previous_secret_expires_at?: Date | null;
  updated_at: Date;
}

const COLUMNS = `id, organization_id, mode, url, description, event_types, secret, previous_secret, previous_secret_expires_at,
  enabled, disabled_reason, consecutive_failures, created_at, updated_at`;

/**
 * Webhook endpoints; every method is scoped by organization and mode, deleted endpoints are invisible.
 * Signing secrets are sealed (SecretBox) on the way in and opened only where they are used (a rotation:
 * findWithSecret; the dispatcher's claim opens its own): rows hold no secret in plain text, and every
 * other read leaves them out (EndpointState).
 */
@Injectable()
export class WebhookEndpointsRepository {
  constructor(@Inject(SecretBox) private readonly box: SecretBox) {}

  private state(row: EndpointRow): EndpointState {
    const { secret: _secret, previous_secret: _previous, ...state } = row;
    return state;
  }

  /**
   * The scope's endpoints (deleted ones left out), counted under a transaction-level advisory lock of the
   * scope, held until the caller's transaction ends: creates of one organization's mode take turns there.
   */
  async countHeld(m: EntityManager, scope: Scope): Promise<number> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtextextended('webhook_endpoints ' || $1 || ' ' || $2, 0))`, [scope.organizationId, scope.mode]);
    const [{ count }] = await m.query(`SELECT count(*)::int AS count FROM webhook_endpoints WHERE organization_id = $1 AND mode = $2 AND deleted_at IS NULL`, [
      scope.organizationId,
      scope.mode,
    ]);
    return count as number;
  }

  async insert(m: EntityManager, row: EndpointRow): Promise<void> {
    await m.query(
      `INSERT INTO webhook_endpoints (id, organization_id, mode, url, description, event_types, secret, enabled, consecutive_failures, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6::text[], $7, $8, 0, $9, $10)`,
      [
        row.id,
        row.organization_id,
        row.mode,
        row.url,
        row.description,
        row.event_types,
        this.box.seal(row.secret, endpointSecretContext(row.id)),
        row.enabled,
        row.created_at,
        row.updated_at,
      ],
    );
  }

  /**
   * With `lock`, holds the endpoint row (FOR NO KEY UPDATE: deliveries and attempts referencing it
   * may still be inserted) until the transaction ends. Whoever changes an endpoint and its
   * deliveries takes this lock first, then the deliveries' rows, so two such writers never deadlock.
   */
  async find(m: EntityManager, scope: Scope, id: string, lock = false): Promise<EndpointState | null> {
    const row = await this.row(m, scope, id, lock);
    return row ? this.state(row) : null;
  }

  /** find, with its current signing secret opened (a rotation keeps it as the previous; the previous one is not read). */
  async findWithSecret(m: EntityManager, scope: Scope, id: string, lock = false): Promise<(EndpointState & { secret: string }) | null> {
    const row = await this.row(m, scope, id, lock);
    return row ? { ...this.state(row), secret: this.box.open(row.secret, endpointSecretContext(row.id)) } : null;
  }

  private async row(m: EntityManager, scope: Scope, id: string, lock: boolean): Promise<EndpointRow | null> {
    const rows: EndpointRow[] = await m.query(
      `SELECT ${COLUMNS} FROM webhook_endpoints
        WHERE organization_id = $1 AND mode = $2 AND id = $3 AND deleted_at IS NULL${lock ? ' FOR NO KEY UPDATE' : ''}`,
      [scope.organizationId, scope.mode, id],
    );
    return rows[0] ?? null;
  }

  async list(m: EntityManager, scope: Scope, limit: number, offset: number): Promise<{ items: EndpointState[]; total: number }> {
    const [{ total }] = await m.query(`SELECT count(*)::int AS total FROM webhook_endpoints WHERE organization_id = $1 AND mode = $2 AND deleted_at IS NULL`, [
      scope.organizationId,
      scope.mode,
    ]);
    const items: EndpointRow[] = await m.query(
      `SELECT ${COLUMNS} FROM webhook_endpoints WHERE organization_id = $1 AND mode = $2 AND deleted_at IS NULL
        ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
      [scope.organizationId, scope.mode, limit, offset],
    );
    return { items: items.map((r) => this.state(r)), total };
  }

  async update(m: EntityManager, scope: Scope, id: string, changes: EndpointChanges): Promise<EndpointState> {
    const context = endpointSecretContext(id);
    const entries = Object.entries(changes)
      .filter(([, v]) => v !== undefined)
      .map(([column, v]) => [column, (column === 'secret' || column === 'previous_secret') && typeof v === 'string' ? this.box.seal(v, context) : v] as const);
    const sets = entries.map(([column], i) => `${column} = $${i + 4}${column === 'event_types' ? '::text[]' : ''}`);
    const rows = rowsOf<EndpointRow>(
      await m.query(
        `UPDATE webhook_endpoints SET ${sets.join(', ')}
        WHERE organization_id = $1 AND mode = $2 AND id = $3 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
        [scope.organizationId, scope.mode, id, ...entries.map(([, v]) => v)],
      ),
    );
    return this.state(rows[0]);
  }

  /**
   * Seals, with the current key, up to `limit` stored secrets (deleted endpoints included) that are
   * plain text (written before sealing existed) or sealed with an older key. Returns how many rows
   * it sealed; run until 0. Rows another transaction holds are skipped, so instances may run it at once.
   */
  async sealStoredSecrets(m: EntityManager, limit: number): Promise<number> {
    const current = `sealed:v1:${this.box.currentKeyId}:%`;
    const rows: Array<{ id: string; secret: string; previous_secret: string | null }> = await m.query(
      `SELECT id, secret, previous_secret FROM webhook_endpoints
        WHERE secret NOT LIKE $1 OR (previous_secret IS NOT NULL AND previous_secret NOT LIKE $1)
        ORDER BY id LIMIT $2 FOR NO KEY UPDATE SKIP LOCKED`,
      [current, limit],
    );
    for (const r of rows) {
      const context = endpointSecretContext(r.id);
      const reseal = (v: string) => this.box.seal(this.box.open(v, context), context);
      await m.query(`UPDATE webhook_endpoints SET secret = $2, previous_secret = $3 WHERE id = $1`, [
        r.id,
        reseal(r.secret),
        r.previous_secret === null ? null : reseal(r.previous_secret),
      ]);
    }
    return rows.length;
  }

  /**
   * Gives up, for up to `limit` endpoints (deleted ones included), the secrets sealed with a key that
   * is lost for good (`pattern`: sealedWithPattern of its id): such a previous secret is dropped (its
   * grace ends), such a current secret is replaced by `fresh()` sealed with the current key, and a live
   * endpoint whose secret that was is disabled with `reason` (its receivers cannot know the new secret).
   * Returns the rows it changed, as they were, for the caller's events; run until fewer than `limit`.
   */
  async forgetSecretsSealedWith(
    m: EntityManager,
    pattern: string,
    fresh: () => string,
    reason: string,
    now: Date,
    limit: number,
  ): Promise<Array<{ id: string; organization_id: string; mode: Mode; secretLost: boolean; previousLost: boolean; wasEnabled: boolean; deleted: boolean }>> {
    const rows: Array<{
      id: string;
      organization_id: string;
      mode: Mode;
      secret: string;
      previous_secret: string | null;
      enabled: boolean;
      deleted_at: Date | null;
    }> = await m.query(
      `SELECT id, organization_id, mode, secret, previous_secret, enabled, deleted_at FROM webhook_endpoints
          WHERE secret LIKE $1 OR previous_secret LIKE $1
          ORDER BY id LIMIT $2 FOR NO KEY UPDATE SKIP LOCKED`,
      [pattern, limit],
    );
    const prefix = pattern.slice(0, -1);
    const changed = rows.map((r) => ({
      id: r.id,
      organization_id: r.organization_id,
      mode: r.mode,
      secretLost: r.secret.startsWith(prefix),
      previousLost: r.previous_secret?.startsWith(prefix) ?? false,
      wasEnabled: r.enabled,
      deleted: r.deleted_at !== null,
    }));
    for (const r of changed) {
      const live = r.secretLost && !r.deleted;
      await m.query(
        `UPDATE webhook_endpoints
            SET secret = COALESCE($2, secret),
                previous_secret = CASE WHEN $3 THEN NULL ELSE previous_secret END,
                previous_secret_expires_at = CASE WHEN $3 THEN NULL ELSE previous_secret_expires_at END,
                enabled = CASE WHEN $4 THEN false ELSE enabled END,
                disabled_reason = CASE WHEN $4 THEN $5 ELSE disabled_reason END,
                updated_at = CASE WHEN $4 THEN $6 ELSE updated_at END
          WHERE id = $1`,
        [r.id, r.secretLost ? this.box.seal(fresh(), endpointSecretContext(r.id)) : null, r.previousLost, live, reason, now],
      );
    }
    return changed;
  }

  /** Takes the endpoint's row lock by id alone (the dispatcher, before recording an attempt). */
  async lockById(m: EntityManager, id: string): Promise<void> {
    await m.query(`SELECT id FROM webhook_endpoints WHERE id = $1 FOR NO KEY UPDATE`, [id]);
  }

  async markDeleted(m: EntityManager, scope: Scope, id: string, at: Date): Promise<void> {
    await m.query(
      `UPDATE webhook_endpoints SET deleted_at = $4, enabled = false, updated_at = $4
        WHERE organization_id = $1 AND mode = $2 AND id = $3 AND deleted_at IS NULL`,
      [scope.organizationId, scope.mode, id, at],
    );
  }
}
