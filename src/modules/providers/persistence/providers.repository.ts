import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { Mode, Scope } from '../../../shared/auth/request-context';
import { prepared } from '../../../shared/db/prepared';

export interface ProviderSettingRow {
  providerId: string;
  enabled: boolean;
  /** The organization's override of the catalog's required confirmations (null: the catalog's). */
  requiredConfirmations: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Read once per reported payment: prepared. */
const SETTING_SQL = prepared(
  'provider_setting',
  `SELECT enabled, required_confirmations FROM provider_settings WHERE organization_id = $1 AND mode = $2 AND provider_id = $3`,
);

@Injectable()
export class ProvidersRepository {
  /** The organization's explicit settings in one mode, by provider id (absent = enabled). */
  async settings(m: EntityManager, scope: Scope): Promise<Map<string, ProviderSettingRow>> {
    const rows: Array<{ provider_id: string; enabled: boolean; required_confirmations: number | null; created_at: Date; updated_at: Date }> = await m.query(
      `SELECT provider_id, enabled, required_confirmations, created_at, updated_at FROM provider_settings WHERE organization_id = $1 AND mode = $2`,
      [scope.organizationId, scope.mode],
    );
    return new Map(
      rows.map((r) => [
        r.provider_id,
        {
          providerId: r.provider_id,
          enabled: r.enabled,
          requiredConfirmations: r.required_confirmations,
          createdAt: r.created_at,
          updatedAt: r.updated_at,
        },
      ]),
    );
  }

  /** The organization's setting for one provider in one mode (null: none, the provider is enabled with the catalog's terms). */
  async setting(m: EntityManager, scope: Scope, providerId: string): Promise<Pick<ProviderSettingRow, 'enabled' | 'requiredConfirmations'> | null> {
    const rows: Array<{ enabled: boolean; required_confirmations: number | null }> = await m.query(SETTING_SQL, [scope.organizationId, scope.mode, providerId]);
    return rows.length ? { enabled: rows[0].enabled, requiredConfirmations: rows[0].required_confirmations } : null;
  }

  /** Sets (or with null, clears) the organization's required confirmations for one provider; enabled is left as it is. */
  async setRequiredConfirmations(m: EntityManager, organizationId: string, mode: Mode, providerId: string, count: number | null, at: Date): Promise<void> {
    await m.query(
      `INSERT INTO provider_settings (organization_id, mode, provider_id, enabled, required_confirmations, created_at, updated_at)
       VALUES ($1, $2, $3, true, $4, $5, $5)
       ON CONFLICT (organization_id, mode, provider_id)
       DO UPDATE SET required_confirmations = EXCLUDED.required_confirmations, updated_at = EXCLUDED.updated_at`,
      [organizationId, mode, providerId, count, at],
    );
  }

  async upsert(m: EntityManager, organizationId: string, mode: Mode, providerId: string, enabled: boolean, at: Date): Promise<void> {
    await m.query(
      `INSERT INTO provider_settings (organization_id, mode, provider_id, enabled, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $5)
       ON CONFLICT (organization_id, mode, provider_id) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = EXCLUDED.updated_at`,
      [organizationId, mode, providerId, enabled, at],
    );
  }
}
