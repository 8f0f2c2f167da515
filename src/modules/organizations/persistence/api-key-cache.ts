import { Inject, Injectable } from '@nestjs/common';
import type { CallerContext } from '../../../shared/auth/request-context';
import { DbNotifications } from '../../../shared/db/notifications';

/** Channel a revoke notifies (inside its transaction) so every process drops its cached keys. */
export const API_KEYS_CHANGED = 'api_keys_changed';

const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

/**
 * Resolved API keys by key hash, so a request's authentication costs no query while the key is
 * cached. Only active keys are cached (an unknown key is looked up every time, so a new key works at
 * once). A revoke, in this process or any other (CLI, operator API on another instance), empties every
 * process's cache through PostgreSQL NOTIFY before the revoking transaction's caller gets its answer
 * back; without a listening connection nothing is cached. The TTL only bounds memory of idle keys.
 */
@Injectable()
export class ApiKeyCache {
  private readonly entries = new Map<string, { caller: CallerContext; expires: number }>();
  /** Bumped on every invalidation; a lookup that started before one must not store its answer. */
  private generation = 0;

  constructor(@Inject(DbNotifications) private readonly notifications: DbNotifications) {
    notifications.listen(API_KEYS_CHANGED, () => this.clear());
  }

  get(keyHash: string): CallerContext | null {
    const hit = this.entries.get(keyHash);
    if (!hit) return null;
    if (hit.expires < Date.now() || !this.notifications.live) {
      this.entries.delete(keyHash);
      return null;
    }
    return hit.caller;
  }

  /** A ticket to take before the lookup and hand to `set` after it. */
  ticket(): number {
    return this.generation;
  }

  set(keyHash: string, caller: CallerContext, ticket: number): void {
    if (ticket !== this.generation || !this.notifications.live) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(keyHash, { caller, expires: Date.now() + TTL_MS });
  }

  clear(): void {
    this.generation += 1;
    this.entries.clear();
  }
}
