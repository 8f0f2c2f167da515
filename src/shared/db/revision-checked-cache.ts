import { Logger } from '@nestjs/common';
import type { DbNotifications } from './notifications';
import type { TransactionRunner } from './transaction-runner';

export interface RevisionCheckedCacheOptions {
  /** What is cached, for the log ("API key", "provider setting"). */
  what: string;
  /** The NOTIFY channel on which a change empties every process's cache. */
  channel: string;
  /** A one-row read of the revision number that every change to the cached rows moves forward (a statement trigger keeps it). */
  revisionSql: string;
  /** How old the last revision check may be for an entry to be used without a new one. */
  checkMs: number;
  /** Bounds the memory of entries nobody asks for. */
  ttlMs: number;
  maxEntries: number;
}

/**
 * An in-process cache of rows that another process (an instance behind the same load balancer, the
 * CLI, an operator's SQL) may change, with a known bound on how stale an entry can be.
 *
 * Two things empty it. A change sends a PostgreSQL NOTIFY on `channel` (inside its transaction) that
 * empties every listening process's cache; without a listening connection nothing is cached. And
 * because a listener can miss notifications without knowing it (a pooler in transaction mode keeps
 * no LISTEN, a half-open socket), an entry is used only while the revision number (`revisionSql`,
 * moved by a statement trigger on every change to the rows, whichever path changes them) has been
 * read in the last `checkMs`: when it has moved, the cache empties. So a change takes effect within
 * `checkMs` everywhere even when its notification never arrives. The check is one single-row read
 * per process every `checkMs` at most, shared by the requests that wait for it.
 *
 * Callers ask `getOrLoad`: on a miss it runs their lookup and stores the answer, unless the cache was
 * emptied while the lookup ran (it may have read the old row).
 */
export class RevisionCheckedCache<V> {
  private readonly log: Logger;
  private readonly entries = new Map<string, { value: V; expires: number }>();
  /** Bumped on every invalidation; a lookup that started before one must not store its answer. */
  private generation = 0;
  private revision: string | null = null;
  /** When the last successful revision check started (epoch ms). */
  private checkedAt = 0;
  /** The generation at that check: when the revision moved but no notification emptied the cache since, one was missed. */
  private checkedGeneration = -1;
  private checking: Promise<void> | null = null;

  constructor(
    private readonly notifications: DbNotifications,
    private readonly tx: TransactionRunner,
    private readonly options: RevisionCheckedCacheOptions,
  ) {
    this.log = new Logger(`${options.what} cache`);
    notifications.listen(options.channel, () => this.clear());
  }

  /**
   * The cached value, else `load`'s answer, which is stored unless it is undefined (nothing to keep,
   * e.g. an unknown key) or the cache was emptied while `load` ran.
   */
  async getOrLoad(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const hit = await this.get(key);
    if (hit !== undefined) return hit;
    // Taken before the lookup: an invalidation while it runs bumps the generation, and the answer is not stored.
    const ticket = this.generation;
    const value = await load();
    if (value !== undefined && ticket === this.generation && this.notifications.live) {
      if (this.entries.size >= this.options.maxEntries) this.entries.clear();
      this.entries.set(key, { value, expires: Date.now() + this.options.ttlMs });
    }
    return value;
  }

  private async get(key: string): Promise<V | undefined> {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.expires < Date.now() || !this.notifications.live) {
      this.entries.delete(key);
      return undefined;
    }
    if (Date.now() - this.checkedAt >= this.options.checkMs) await this.checkRevision();
    return this.entries.get(key)?.value;
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
      const rows: Array<{ revision: string }> = await this.tx.manager.query(this.options.revisionSql);
      revision = rows[0]?.revision ?? '';
    } catch (e) {
      // Not known to be current: nothing cached is used until a check succeeds.
      this.log.warn(`${this.options.what} revision unreadable, cache emptied: ${(e as Error).message}`);
      this.clear();
      return;
    }
    const moved = revision !== this.revision;
    if (moved) {
      const missed = this.revision !== null && generation === this.checkedGeneration;
      this.clear();
      if (missed) {
        this.log.warn(
          `a change to a cached ${this.options.what} reached this process by the revision check, not by NOTIFY: the notification listener ` +
            'missed it (a pooler in transaction mode, or a dead connection); reconnecting it. Changes take effect within ' +
            `${this.options.checkMs / 1000} s meanwhile`,
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
