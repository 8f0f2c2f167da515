import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource, EntityManager } from 'typeorm';

type Listener = () => void;

const CONNECT_TIMEOUT_MS = 5_000;

/**
 * PostgreSQL LISTEN/NOTIFY between the processes of the service (instances, workers, the CLI), for
 * in-process caches that must drop an entry as soon as another process changes the row behind it
 * (a revoked API key, newly imported rates).
 *
 * A writer calls `notify(m, channel)` inside its transaction: PostgreSQL delivers the notification
 * when (and only if) the transaction commits. A cache calls `listen(channel, drop)` once and asks
 * `live` before storing anything: a cache may only hold entries while the listening connection is
 * up, and every listener is called (so it empties) when that connection is lost. The connection is
 * opened on first use, so processes that never cache (the CLI) never open it.
 */
@Injectable()
export class DbNotifications implements OnApplicationShutdown {
  private readonly log = new Logger('DbNotifications');
  private readonly listeners = new Map<string, Set<Listener>>();
  private client: Client | null = null;
  private connecting: Promise<void> | null = null;
  /** Payloads this process sent and waits to receive back (see broadcast). */
  private readonly echoes = new Map<string, () => void>();
  private listening = false;
  private retryAfter = 0;
  private closed = false;

  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  /** True while notifications arrive; a cache stores nothing otherwise. Starts connecting when needed. */
  get live(): boolean {
    if (!this.listening) this.connect();
    return this.listening;
  }

  /** Calls `onChange` on every notification on the channel, and when notifications may have been missed. */
  listen(channel: string, onChange: Listener): void {
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
      if (this.listening && this.client) void this.client.query(`LISTEN ${quoteChannel(channel)}`).catch(() => this.lost());
    }
    set.add(onChange);
  }

  /** Queues a notification in the caller's transaction (sent on commit, dropped on rollback). */
  async notify(m: EntityManager, channel: string, payload = ''): Promise<void> {
    await m.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }

  /**
   * Runs `work` (a transaction that calls `notify(m, channel, payload)` with the payload it is given)
   * and, once it has returned (committed), waits until this process has received that notification
   * back (at most `timeoutMs`). PostgreSQL signals every listening session at the same commit, so when
   * the caller answers its own client, the other processes have been sent the change too: a revoke
   * is refused everywhere by the time its caller hears it succeeded.
   */
  async broadcast<T>(channel: string, work: (payload: string) => Promise<T>, timeoutMs = 1_000): Promise<T> {
    const payload = randomUUID();
    if (!this.listeners.has(channel)) this.listen(channel, () => undefined);
    const listening = await this.ready();
    let echoed: () => void = () => undefined;
    const echo = new Promise<void>((resolve) => {
      echoed = resolve;
    });
    if (listening) this.echoes.set(payload, echoed);
    try {
      const result = await work(payload);
      if (listening) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          echo,
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, timeoutMs);
          }),
        ]);
        clearTimeout(timer);
      }
      return result;
    } finally {
      this.echoes.delete(payload);
    }
  }

  /** Waits (at most timeoutMs) for the listening connection; false when notifications are unavailable. */
  async ready(timeoutMs = 2_000): Promise<boolean> {
    if (this.listening) return true;
    this.connect();
    if (!this.connecting) return false;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.connecting,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    return this.listening;
  }

  private connect(): void {
    if (this.connecting || this.closed || Date.now() < this.retryAfter) return;
    const url = (this.dataSource.options as { url?: string }).url;
    if (!url) return;
    // A connection that never completes (a peer gone quiet) gives up; TCP keep-alive notices one that died later.
    const client = new Client({
      connectionString: url,
      application_name: 'invoicing-api-listener',
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
    });
    client.on('notification', (n) => {
      this.listeners.get(n.channel)?.forEach((l) => l());
      if (n.payload) this.echoes.get(n.payload)?.();
    });
    client.on('error', () => this.lost());
    client.on('end', () => this.lost());
    this.client = client;
    this.connecting = (async () => {
      let timer: NodeJS.Timeout | undefined;
      try {
        // Bounded here as well: a connection that goes quiet while it starts must not keep the listener off for good.
        const gaveUp = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('no answer within 5 s')), CONNECT_TIMEOUT_MS);
        });
        const work = (async () => {
          await client.connect();
          for (const channel of this.listeners.keys()) await client.query(`LISTEN ${quoteChannel(channel)}`);
        })();
        work.catch(() => undefined);
        await Promise.race([work, gaveUp]);
        if (this.client === client && !this.closed) this.listening = true;
      } catch (e) {
        this.log.warn(`notifications unavailable, caches stay off: ${(e as Error).message}`);
        this.lost();
      } finally {
        clearTimeout(timer);
        this.connecting = null;
      }
    })();
  }

  /**
   * Drops the listening connection and opens a new one (used when a notification turned out to be
   * missed): caches empty now and stay off until the new connection listens.
   */
  reconnect(): void {
    if (this.client) this.lost();
  }

  /** The connection is gone: every cache empties and stays off until it is back. */
  private lost(): void {
    const client = this.client;
    if (this.listening && !this.closed) {
      this.log.warn('notification listener down: caches that depend on it are off until it reconnects');
    }
    this.client = null;
    this.listening = false;
    this.retryAfter = Date.now() + 1_000;
    client?.removeAllListeners();
    client?.on('error', () => undefined);
    void client?.end().catch(() => undefined);
    for (const set of this.listeners.values()) set.forEach((l) => l());
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = null;
    this.listening = false;
    client?.removeAllListeners();
    client?.on('error', () => undefined);
    await client?.end().catch(() => undefined);
  }
}

function quoteChannel(channel: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel name ${channel}`);
  return channel;
}
