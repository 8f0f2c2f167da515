import { Inject, Injectable } from '@nestjs/common';
import { DbNotifications } from '../../../shared/db/notifications';
import { RevisionCheckedCache } from '../../../shared/db/revision-checked-cache';
import { TransactionRunner } from '../../../shared/db/transaction-runner';
import type { ProviderSettingRow } from './providers.repository';

/** Channel the provider commands notify (inside their transaction) so every process drops its cached settings. */
export const PROVIDER_SETTINGS_CHANGED = 'provider_settings_changed';

/** How old the last revision check may be for a cached setting to be used without a new one. */
export const PROVIDER_SETTINGS_CHECK_MS = 2_000;

/** One organization's setting for one provider in one mode; null: none (enabled, the catalog's confirmations). */
export type CachedProviderSetting = Pick<ProviderSettingRow, 'enabled' | 'requiredConfirmations'> | null;

/**
 * The setting behind GetProviderTermsQuery, which every reported payment asks: cached per process
 * so a payment costs no read of it. Settings change rarely and only through the CLI (or an
 * operator's SQL): its commands notify PROVIDER_SETTINGS_CHANGED before they answer, and
 * `provider_settings_revision` (a trigger moves it on every change) is checked every
 * PROVIDER_SETTINGS_CHECK_MS (RevisionCheckedCache). So a provider disabled, or its required
 * confirmations changed, takes effect at once in every listening process, and within two seconds
 * in one whose listener missed the notification.
 */
@Injectable()
export class ProviderSettingsCache extends RevisionCheckedCache<CachedProviderSetting> {
  constructor(@Inject(DbNotifications) notifications: DbNotifications, @Inject(TransactionRunner) tx: TransactionRunner) {
    super(notifications, tx, {
      what: 'provider setting',
      channel: PROVIDER_SETTINGS_CHANGED,
      revisionSql: 'SELECT revision::text AS revision FROM provider_settings_revision WHERE singleton',
      checkMs: PROVIDER_SETTINGS_CHECK_MS,
      ttlMs: 60_000,
      maxEntries: 10_000,
    });
  }

  static key(organizationId: string, mode: string, providerId: string): string {
    return `${organizationId}\u0000${mode}\u0000${providerId}`;
  }
}
