import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which catalog providers an organization has turned off, per mode. No row means enabled: every
 * provider is enabled when an organization is created, and a provider added to the catalog later
 * is enabled for everyone until an operator disables it.
 */
export class ProviderSettings1763700500000 implements MigrationInterface {
  name = 'ProviderSettings1763700500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE provider_settings (
        organization_id text NOT NULL REFERENCES organizations(id),
        mode            text NOT NULL CHECK (mode IN ('test', 'live')),
        provider_id     text NOT NULL CHECK (provider_id ~ '^prov_[a-z0-9_]+$'),
        enabled         boolean NOT NULL,
        created_at      timestamptz NOT NULL,
        updated_at      timestamptz NOT NULL,
        PRIMARY KEY (organization_id, mode, provider_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE provider_settings`);
  }
}
