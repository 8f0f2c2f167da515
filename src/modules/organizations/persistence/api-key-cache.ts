import { Inject, Injectable, Logger } from '@nestjs/common';
import type { CallerContext } from '../../../shared/auth/request-context';
import { DbNotifications } from '../../../shared/db/notifications';
import { TransactionRunner } from '../../../shared/db/transaction-runner';

/** Channel a revoke notifies (inside its transaction) so every process drops its cached keys. */
export const API_KEYS_CHANGED = 'api_keys_changed';

const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;
/** How old the last revision check may be for a cached key to be used without a new one. */
export const REVISION_CHECK_MS = 2_000;

/**
 * Resolved API keys by key hash, so a request's authentication costs no key lookup while the key
 * is cached. Only active keys are cached (an unknown key is looked up every time, so a new key works
 * at once).
 *
 * Two things empty the cache. A revoke, in this process or any other (CLI, operator API on another
 * instance), sends a PostgreSQL NOTIFY that empties every listening process's cache before the
 * revoking caller gets its answer; without a listening connection nothing is cached. And because a
 * listener can miss notifications without knowing it (a pooler in transaction mode keeps no LISTEN,
 * a half-open socket), a cached key is used only while the `api_key_revision` number (moved by a
 * trigger on every change to `api_keys`) has been read in the last REVISION_CHECK_MS: when it has
 * moved, the cache empties. So a revoked key is refused within about two seconds everywhere, even
 * when its notification never arrives. The check is one single-row read per process every two
 * seconds at most, shared by the requests that wait for it. The TTL only bounds memory of idle keys.
 */
@Injectable()
export class ApiKeyCache {
  private readonly log = new Logger('ApiKeyCache');
  private readonly entries = new Map<string, { caller: CallerContext; expires: number }>();
  /** Bumped on every invalidation; a lookup that started before one must not store its answer. */
  private generation = 0;
  private revision: string | null = null;
  /** When the last successful revision check started (epoch ms). */
  private checkedAt = 0;
  /** The generation at that check: when the revision moved but no notification emptied the cache since, one was missed. */
  private checkedGeneration = -1;
  private checking: Promise<void> | null = null;

  constructor(
    @Inject(DbNotifications) private readonly notifications: DbNotifications,
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
  ) {
    notifications.listen(API_KEYS_CHANGED, () => this.clear());
  }

  async get(keyHash: string): Promise<CallerContext | null> {
    const hit = this.entries.get(keyHash);
    if (!hit) return null;
    if (hit.expires < Date.now() || !this.notifications.live) {
      this.entries.delete(keyHash);
      return null;
    }
    if (Date.now() - this.checkedAt >= REVISION_CHECK_MS) await this.checkRevision();
    return this.entries.get(keyHash)?.caller ?? null;
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

  /** One revision read at a time; every request that needs it waits for the same one. */
  private checkRevision(): Promise<void> {
    this.checking ??= this.readRevision().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  private async readRevision(): Promise<void> {
    const started = Date.now();
    const generation = this.generation;
    let revision: string;
    try {
      const rows: Array<{ revision: string }> = await this.tx.manager.query('SELECT revision::text AS revision FROM api_key_revision WHERE singleton');
      revision = rows[0]?.revision ?? '';
    } catch (e) {
      // Not known to be current: nothing cached is used until a check succeeds.
      this.log.warn(`API key revision unreadable, key cache emptied: ${(e as Error).message}`);
      this.clear();
      return;
    }
    const moved = revision !== this.revision;
    if (moved) {
      const missed = this.revision !== null && generation === this.checkedGeneration;
      this.clear();
      if (missed) {
        this.log.warn(
          'an API key change reached this process by the revision check, not by NOTIFY: the notification listener ' +
            'missed it (a pooler in transaction mode, or a dead connection); reconnecting it. Revocations take effect within ' +
            `${REVISION_CHECK_MS / 1000} s meanwhile`,
        );
        this.notifications.reconnect();
      }
    }
    this.revision = revision;
    this.checkedAt = started;
    // After its own clear (and a reconnect's), the next check counts from here; otherwise from the start of this
    // read, so that a notification heard while it ran counts as heard.
    this.checkedGeneration = moved ? this.generation : generation;
  }
}
