import { Inject, Injectable } from '@nestjs/common';
import { DbNotifications } from '../../../shared/db/notifications';
import { RevisionCheckedCache } from '../../../shared/db/revision-checked-cache';
import { TransactionRunner } from '../../../shared/db/transaction-runner';
import type { ResolvedKey } from './organizations.repository';

/** Channel a revoke notifies (inside its transaction) so every process drops its cached keys. */
export const API_KEYS_CHANGED = 'api_keys_changed';

/** How old the last revision check may be for a cached key to be used without a new one. */
export const REVISION_CHECK_MS = 2_000;

/**
 * Resolved API keys by key hash, so a request's authentication costs no key lookup while the key
 * is cached. Only active keys are cached (an unknown key is looked up every time, so a new key works
 * at once).
 *
 * A revoke, in this process or any other (CLI, operator API on another instance), notifies
 * API_KEYS_CHANGED before the revoking caller gets its answer, and `api_key_revision` (moved by a
 * trigger on every change to `api_keys`) is checked every REVISION_CHECK_MS (RevisionCheckedCache):
 * a revoked key is refused within about two seconds everywhere, even when its notification never
 * arrives. The TTL only bounds memory of idle keys. A rolled key's entry carries the end of its grace
 * period, which the resolver checks on every use (a roll also moves the revision).
 */
@Injectable()
export class ApiKeyCache extends RevisionCheckedCache<ResolvedKey> {
  constructor(@Inject(DbNotifications) notifications: DbNotifications, @Inject(TransactionRunner) tx: TransactionRunner) {
    super(notifications, tx, {
      what: 'API key',
      channel: API_KEYS_CHANGED,
      revisionSql: 'SELECT revision::text AS revision FROM api_key_revision WHERE singleton',
      checkMs: REVISION_CHECK_MS,
      ttlMs: 60_000,
      maxEntries: 10_000,
    });
  }
}
