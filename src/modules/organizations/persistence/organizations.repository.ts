import { Injectable } from '@nestjs/common';
import { EntityManager, IsNull } from 'typeorm';
import type { CallerContext, Mode } from '../../../shared/auth/request-context';
import type { OrgId } from '../../../shared/ids/ids';
import { ApiKeyRecord } from './api-key.record';
import { OrganizationRecord } from './organization.record';

/** A resolved key: its caller, and when a roll's grace period ends (null: never). */
export interface ResolvedKey {
  caller: CallerContext;
  expiresAt: Date | null;
}

@Injectable()
export class OrganizationsRepository {
  async insertOrganization(m: EntityManager, org: OrganizationRecord): Promise<void> {
    await m.insert(OrganizationRecord, org);
  }

  /** Name, image and creation time of one organization (one indexed row, no entity mapping: on the payment path). */
  async profile(m: EntityManager, id: string): Promise<{ id: string; name: string; image_url: string | null; created_at: Date } | null> {
    const rows = await m.query(`SELECT id, name, image_url, created_at FROM organizations WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  findOrganization(m: EntityManager, id: string): Promise<OrganizationRecord | null> {
    return m.findOne(OrganizationRecord, { where: { id } });
  }

  async insertKey(m: EntityManager, key: ApiKeyRecord): Promise<void> {
    await m.insert(ApiKeyRecord, key);
  }

  listKeys(m: EntityManager, organizationId: string): Promise<ApiKeyRecord[]> {
    return m.find(ApiKeyRecord, { where: { organizationId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /**
   * The active keys with this full-key hash or display prefix (within one organization when given),
   * locked for a revocation.
   */
  findActiveKeysForUpdate(m: EntityManager, match: { keyHash?: string; prefix?: string; organizationId?: string }): Promise<ApiKeyRecord[]> {
    const where = {
      ...(match.keyHash !== undefined ? { keyHash: match.keyHash } : { prefix: match.prefix ?? '' }),
      ...(match.organizationId !== undefined && { organizationId: match.organizationId }),
      revokedAt: IsNull(),
    };
    return m.find(ApiKeyRecord, { where, lock: { mode: 'pessimistic_write' } });
  }

  async revokeKeys(m: EntityManager, keys: ApiKeyRecord[], at: Date): Promise<void> {
    for (const key of keys) {
      key.revokedAt = at;
      await m.update(ApiKeyRecord, { id: key.id }, { revokedAt: at });
    }
  }

  /** The key's row of an organization, locked for a change (a roll); null for another organization's id. */
  findKeyForUpdate(m: EntityManager, organizationId: string, id: string): Promise<ApiKeyRecord | null> {
    return m.findOne(ApiKeyRecord, { where: { organizationId, id }, lock: { mode: 'pessimistic_write' } });
  }

  /** Marks a key rolled: accepted until `expiresAt`, replaced by `rolledTo`. */
  async markRolled(m: EntityManager, id: string, expiresAt: Date, rolledTo: string): Promise<void> {
    await m.update(ApiKeyRecord, { id }, { expiresAt, rolledTo });
  }

  /** The last-used time of each of the organization's keys that has been used. */
  async keyUsage(m: EntityManager, organizationId: string): Promise<Map<string, Date>> {
    const rows: Array<{ key_id: string; last_used_at: Date }> = await m.query(
      `SELECT u.key_id, u.last_used_at FROM api_key_usage u JOIN api_keys k ON k.id = u.key_id WHERE k.organization_id = $1`,
      [organizationId],
    );
    return new Map(rows.map((r) => [r.key_id, r.last_used_at]));
  }

  /** Writes last-used times in one statement; an older time never replaces a newer one. */
  async recordKeyUsage(m: EntityManager, notes: Array<{ keyId: string; at: Date }>): Promise<void> {
    if (!notes.length) return;
    await m.query(
      `INSERT INTO api_key_usage (key_id, last_used_at)
       SELECT u.key_id, u.at FROM unnest($1::text[], $2::timestamptz[]) AS u(key_id, at)
        WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.id = u.key_id)
       ON CONFLICT (key_id) DO UPDATE SET last_used_at = GREATEST(api_key_usage.last_used_at, EXCLUDED.last_used_at)`,
      [notes.map((n) => n.keyId), notes.map((n) => n.at)],
    );
  }

  /** The caller of an unrevoked key, with the end of its grace period when it was rolled (checked by the resolver). */
  async resolveKey(m: EntityManager, keyHash: string): Promise<ResolvedKey | null> {
    const rows: Array<{
      id: string;
      organization_id: string;
      name: string;
      mode: Mode;
      prefix: string;
      read_only: boolean;
      created_at: Date;
      expires_at: Date | null;
    }> = await m.query(
      `SELECT k.id, k.organization_id, o.name, k.mode, k.prefix, k.read_only, k.created_at, k.expires_at
           FROM api_keys k JOIN organizations o ON o.id = k.organization_id
          WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [keyHash],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      expiresAt: row.expires_at,
      caller: {
        organizationId: row.organization_id as OrgId,
        organizationName: row.name,
        mode: row.mode,
        keyId: row.id,
        keyPrefix: row.prefix,
        readOnly: row.read_only,
        keyCreatedAt: row.created_at,
      },
    };
  }

  /** Every organization, oldest first, with its count of active keys per mode (no key material). */
  async listOrganizations(m: EntityManager): Promise<Array<{ id: string; name: string; createdAt: Date; activeTestKeys: number; activeLiveKeys: number }>> {
    const rows: Array<{ id: string; name: string; created_at: Date; test_keys: string; live_keys: string }> = await m.query(
      `SELECT o.id, o.name, o.created_at,
              count(k.id) FILTER (WHERE k.mode = 'test' AND k.revoked_at IS NULL) AS test_keys,
              count(k.id) FILTER (WHERE k.mode = 'live' AND k.revoked_at IS NULL) AS live_keys
         FROM organizations o LEFT JOIN api_keys k ON k.organization_id = o.id
        GROUP BY o.id ORDER BY o.created_at, o.id`,
    );
    return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at, activeTestKeys: Number(r.test_keys), activeLiveKeys: Number(r.live_keys) }));
  }

  async countOrganizations(m: EntityManager): Promise<number> {
    return m.count(OrganizationRecord);
  }
}
