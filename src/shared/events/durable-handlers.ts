import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { AsyncResource } from 'node:async_hooks';
import type { EntityManager } from 'typeorm';
import type { Mode, Scope } from '../auth/request-context';
import { AppConfig } from '../config/app-config';
import { TransactionRunner } from '../db/transaction-runner';
import { BackgroundWork } from '../lifecycle/background-work';
import type { DomainEvent, DomainEventInit } from './domain-event';
import { ALL_EVENTS, eventClassOf } from './event-types';
import { NEXT_EVENTS_SQL } from './commit-order';
import { EventOutbox } from './outbox';
import { SpacedWake } from './spaced-wake';

/** What a durable handler is given with each event. */
export interface DurableHandlerContext {
  /**
   * The worker's transaction: the handler's own writes go through it, and the handler's cursor moves
   * past the event in the same commit (a crash before it undoes both, and the event is handled again).
   */
  readonly manager: EntityManager;
  /** Runs `work` once that transaction has committed (a nudge to an in-process worker, say); never if it rolls back. */
  afterCommit(work: () => void): void;
}

/** A class registered with `@DurableEventHandler`: sees every committed event of its types, once, in commit order. */
export interface DurableEventHandlerInstance<E extends DomainEvent = DomainEvent> {
  handle(event: E, context: DurableHandlerContext): Promise<void> | void;
  /**
   * Optional: takes a whole batch (up to 100 events, in commit order) at once instead of one `handle`
   * call per event, for a handler that writes the batch in one statement. Same transaction, same rules.
   */
  handleBatch?(events: readonly E[], context: DurableHandlerContext): Promise<void>;
}

interface Registration {
  name: string;
  target: Type<DurableEventHandlerInstance>;
  cls: new (init: DomainEventInit) => DomainEvent;
  types: readonly string[];
}

const registrations: Registration[] = [];
const NAME = /^[a-z][a-z0-9_.-]{0,99}$/;

/**
 * Registers a provider as a durable handler of `types` (of event class `cls`). `name` is its cursor's
 * key in `event_handler_cursors`: stable for ever (renaming it starts a new cursor at the end).
 * `[ALL_EVENTS]` (`'*'`) with `DomainEvent` hears every event, each built as the class its module
 * declared for its type (webhooks' fan-out).
 * The class must also be listed in its module's providers. See docs/DEVELOPING.md (durable handlers).
 */
export function DurableEventHandler<E extends DomainEvent>(
  name: string,
  cls: abstract new (init: DomainEventInit<E['type'], E['object']>) => E,
  types: readonly E['type'][],
): <C extends Type<DurableEventHandlerInstance<E>>>(target: C) => void {
  if (!NAME.test(name)) throw new Error(`durable handler name ${JSON.stringify(name)} must match ${String(NAME)}`);
  if (registrations.some((r) => r.name === name)) throw new Error(`durable handler ${name} is registered twice`);
  if (!types.length) throw new Error(`durable handler ${name} names no event type`);
  return (target) => {
    registrations.push({
      name,
      target,
      cls: cls as unknown as Registration['cls'],
      types: [...types],
    });
  };
}

/** The durable handlers registered in this process (by name), for the worker and for tests. */
export function durableHandlerNames(): string[] {
  return registrations.map((r) => r.name).sort();
}

/** A position in the events' commit order: (transaction_id, position) of an event row. */
export interface EventCursor {
  transactionId: string;
  position: string;
}

interface EventRowOut {
  kind: 'event' | 'top';
  id: string | null;
  organization_id: string | null;
  mode: Mode | null;
  type: string | null;
  data: { object: unknown; previous_attributes?: Record<string, unknown> } | null;
  created_at: Date | null;
  tx: string;
  pos: string;
}

const BATCH = 100;
/** How long a drain woken by a commit that found nothing waits before it looks once more. */
const WOKEN_FOLLOW_UP_MS = 50;
/**
 * Commits wake a handler's pass at most this often: under a stream of commits one pass reads what a few
 * milliseconds of them wrote, instead of a pass (four statements) per commit, at the price of up to this
 * much delay for an event that commits while a pass of its handler has just begun.
 */
const WOKEN_SPACING_MS = 50;
/** The longest pause before another try at a start that failed (the pause doubles from half a second). */
const START_RETRY_MAX_MS = 60_000;

interface Running {
  registration: Registration;
  instance: DurableEventHandlerInstance;
  /** Does a committed event of this type concern the handler? */
  hears: (type: string) => boolean;
  draining: Promise<void> | null;
  again: boolean;
  failures: number;
  retryAt: number;
  /** Commits wake the handler through this (WOKEN_SPACING_MS between woken passes). */
  wake: SpacedWake;
}

/**
 * Runs the durable handlers: each handler's events in commit order, each exactly once as far as the
 * database is concerned (its writes and its cursor commit together), after the writer's commit.
 *
 * - A pass takes the handler's cursor row with `FOR UPDATE SKIP LOCKED`: the row lock is the
 *   handler's lease across instances (a second instance skips it while the first holds it; a crashed
 *   instance's lock goes with its connection), so behind a load balancer each handler still sees its
 *   events one at a time and in order.
 * - It reads up to 100 events after the cursor (NEXT_EVENTS_SQL), calls the handler for each in the
 *   same transaction, moves the cursor past them, and commits. A handler that throws rolls the batch
 *   back: the pass is retried with a growing pause (up to a minute), and the handler's later events
 *   wait (in order, none skipped). A crash (a SIGKILL, a lost connection) rolls back the same way: the
 *   batch is handled again by the next pass, here after a restart or on another instance.
 * - Passes run when an event of one of its types commits in this process (EventOutbox.afterCommit), at
 *   most one such woken pass every WOKEN_SPACING_MS (SpacedWake: the commits of that moment are read
 *   by one pass; such a pass that read nothing looks once more WOKEN_FOLLOW_UP_MS later), and every
 *   DURABLE_HANDLERS_POLL_MS for the events other instances wrote.
 * - A new handler's cursor starts at the end: it sees the events committed after its first start.
 * - The start (realigning the commit order, the new handlers' cursors) runs once the service opens its
 *   background work; one that fails is logged and tried again after a growing pause. The stop (when the
 *   application closes, before its connections do) lets the start and the passes under way finish
 *   their statements and begins no new one: a process stopped the moment it began listening (a loaded
 *   machine, a cluster worker still starting) otherwise sent the start's next statement to a closed
 *   pool, and that rejection, which nothing awaited, ended the process with exit code 1.
 *
 * Retention: an event below `lowestCursor()` has been read by every handler; nothing at or above it
 * may be deleted (docs/DEVELOPING.md).
 */
@Injectable()
export class DurableEventHandlers implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('DurableEventHandlers');
  private readonly running: Running[] = [];
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** The start under way (or the last one, settled): the stop waits for it. */
  private starting: Promise<void> | null = null;
  /** Failed starts in a row: the next try waits longer. */
  private startFailures = 0;
  private startRetry: NodeJS.Timeout | null = null;
  /**
   * The context passes run in: made at start-up, outside any request, so a pass started by a request's
   * commit carries none of that request's context (its idempotency claim, its open transaction).
   */
  private readonly detached = new AsyncResource('DurableEventHandlers');
  /** Events the handler named by DURABLE_HANDLERS_CRASH_BEFORE was about to see (tests only). */
  private seen = 0;

  constructor(
    @Inject(ModuleRef) private readonly modules: ModuleRef,
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(BackgroundWork) private readonly work: BackgroundWork,
    @Inject(EventOutbox) private readonly outbox: EventOutbox,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    for (const registration of registrations) {
      const instance = this.modules.get(registration.target, { strict: false });
      const types = new Set(registration.types);
      const hears = types.has(ALL_EVENTS) ? () => true : (type: string) => types.has(type);
      const wake = new SpacedWake(
        WOKEN_SPACING_MS,
        () => this.detached.runInAsyncScope(() => this.drain(r, true)),
        () => r.draining !== null,
      );
      const r: Running = { registration, instance, hears, draining: null, again: false, failures: 0, retryAt: 0, wake };
      this.running.push(r);
    }
    if (this.running.length) {
      this.work.whenReady(
        'durable-event-handlers',
        () => this.begin(),
        () => this.drainAll(),
      );
    }
  }

  /**
   * Stops before the application's connections close: no new pass or start, then waits for the start
   * and the passes under way (each ends after its current batch).
   */
  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    for (const r of this.running) r.wake.stop();
    if (this.startRetry) clearTimeout(this.startRetry);
    await this.starting;
    for (const r of this.running) while (r.draining) await r.draining;
  }

  /** The lowest cursor of all handlers (null when none has one yet): events at or above it may not be deleted. */
  async lowestCursor(m: EntityManager = this.tx.manager): Promise<EventCursor | null> {
    const rows: Array<{ tx: string; pos: string }> = await m.query(
      `SELECT transaction_id::text AS tx, position::text AS pos FROM event_handler_cursors ORDER BY transaction_id, position LIMIT 1`,
    );
    return rows.length ? { transactionId: rows[0].tx, position: rows[0].pos } : null;
  }

  /** Starts the handlers; a start that fails is logged and tried again after a pause (none once stopping). */
  private begin(): void {
    if (this.stopped) return;
    this.starting = this.start().then(
      () => {
        this.startFailures = 0;
      },
      (e: Error) => {
        if (this.stopped) {
          this.logger.warn({ msg: 'durable event handlers: the start under way failed while stopping', err: e.message });
          return;
        }
        this.startFailures++;
        const pauseMs = Math.min(START_RETRY_MAX_MS, 500 * 2 ** Math.min(this.startFailures, 7));
        this.logger.error({ msg: 'durable event handlers could not start; trying again', err: e.message, failures: this.startFailures, retry_in_ms: pauseMs });
        this.startRetry = setTimeout(() => {
          this.startRetry = null;
          this.begin();
        }, pauseMs);
        this.startRetry.unref();
      },
    );
  }

  /** Realigns the commit order, makes the new handlers' cursors, then runs the passes; stops between statements once stopping. */
  private async start(): Promise<void> {
    await this.realign();
    // A handler seen for the first time starts at the end: after every transaction committed so far.
    for (const { registration } of this.running) {
      if (this.stopped) return;
      await this.tx.manager.query(
        `INSERT INTO event_handler_cursors (handler, transaction_id, position) VALUES ($1, pg_snapshot_xmin(pg_current_snapshot()), 0)
         ON CONFLICT (handler) DO NOTHING`,
        [registration.name],
      );
    }
    if (this.stopped) return;
    this.outbox.afterCommit((types) => {
      for (const r of this.running) if (types.some(r.hears)) r.wake.wake();
    });
    this.timer = setInterval(() => this.running.forEach((r) => this.drain(r)), this.config.DURABLE_HANDLERS_POLL_MS);
    this.timer.unref();
    this.running.forEach((r) => this.drain(r));
  }

  /**
   * Transaction ids belong to the database cluster. A database restored from a dump into another cluster
   * (pg_dump and restore; pg_upgrade and replicas keep the counter) holds event rows and cursors with ids
   * ahead of the new cluster's, and the events written from then on would sort before them, unseen. No row
   * or cursor written here can be at or past the snapshot's xmax, so any that is came from elsewhere: such
   * rows move to transaction 0 (before everything else, in their position order) and such cursors to the
   * last row of transaction 0. What was restored counts as handled; a warning says so.
   */
  private async realign(): Promise<void> {
    const moved = await this.tx.run(async (m) => {
      const rows: Array<{ n: number }> = await m.query(
        `WITH moved AS (
           UPDATE events SET transaction_id = '0' WHERE transaction_id >= pg_snapshot_xmax(pg_current_snapshot()) RETURNING 1)
         SELECT count(*)::int AS n FROM moved`,
      );
      const cursors: Array<{ handler: string }> = await m.query(
        `WITH moved AS (
           UPDATE event_handler_cursors
              SET transaction_id = '0', position = (SELECT coalesce(max(position), 0) FROM events WHERE transaction_id = '0'), updated_at = now()
            WHERE transaction_id >= pg_snapshot_xmax(pg_current_snapshot())
            RETURNING handler)
         SELECT handler FROM moved`,
      );
      return { events: rows[0].n, handlers: cursors.map((c) => c.handler) };
    });
    if (moved.events || moved.handlers.length) {
      this.logger.warn({
        msg: 'events and cursors from another database cluster (a restored dump): they count as handled',
        events: moved.events,
        handlers: moved.handlers,
      });
    }
  }

  /**
   * The handler `name` read to the end of what is committed now (after the pass under way, if any); for a
   * worker's on-demand pass that must see what the handler writes (webhooks: its dispatcher's pass after
   * the fan-out). Does nothing before the handlers started, or for a name not registered.
   */
  async catchUp(name: string): Promise<void> {
    const r = this.running.find((x) => x.registration.name === name);
    if (!r || !this.timer) return;
    this.drain(r);
    while (r.draining) await r.draining;
  }

  /** Every handler read to the end of what is committed now (tests only, BackgroundWork.runPass). */
  private async drainAll(): Promise<void> {
    for (const r of this.running) {
      this.drain(r);
      while (r.draining) await r.draining;
    }
  }

  /**
   * Handles what is there for `r`; a call while a pass runs asks for one more pass after it. A drain `woken`
   * by this process's commit that read nothing looks once more a moment later: the event may not be
   * readable yet (an older transaction still open holds it back) or another instance held the handler's
   * cursor for a pass that began before the commit. Otherwise it would wait for the poll.
   */
  private drain(r: Running, woken = false): void {
    if (this.stopped) return;
    if (r.draining) {
      r.again = true;
      return;
    }
    if (Date.now() < r.retryAt) return;
    let read = 0;
    r.draining = (async () => {
      do {
        r.again = false;
        for (;;) {
          if (this.stopped) break;
          r.wake.started();
          const { full, events } = await this.pass(r);
          read += events;
          if (!full) break;
        }
      } while (r.again && !this.stopped);
    })()
      .then(() => {
        r.failures = 0;
        if (woken && read === 0 && !this.stopped) setTimeout(() => this.detached.runInAsyncScope(() => this.drain(r)), WOKEN_FOLLOW_UP_MS).unref();
      })
      .catch((e: Error) => {
        r.failures++;
        const pauseMs = Math.min(60_000, 500 * 2 ** Math.min(r.failures, 7));
        r.retryAt = Date.now() + pauseMs;
        this.logger.error({
          msg: 'durable event handler failed; its events wait',
          handler: r.registration.name,
          err: e.message,
          failures: r.failures,
          retry_in_ms: pauseMs,
        });
      })
      .finally(() => {
        r.draining = null;
      });
  }

  /** One batch in one transaction: whether it was full (more may follow), and how many events it read. */
  private async pass(r: Running): Promise<{ full: boolean; events: number }> {
    const { name, cls, types } = r.registration;
    const after: Array<() => void> = [];
    const result = await this.tx.run(async (m) => {
      after.length = 0;
      const cursor: Array<{ tx: string; pos: string }> = await m.query(
        `SELECT transaction_id::text AS tx, position::text AS pos FROM event_handler_cursors WHERE handler = $1 FOR UPDATE SKIP LOCKED`,
        [name],
      );
      // Another instance holds this handler (or its cursor is not made yet): nothing to do here.
      if (!cursor.length) return { full: false, events: 0 };
      const rows: EventRowOut[] = await m.query(NEXT_EVENTS_SQL, [cursor[0].tx, cursor[0].pos, types, BATCH]);
      const events = rows.filter((row) => row.kind === 'event');
      const top = rows.find((row) => row.kind === 'top');
      const context: DurableHandlerContext = { manager: m, afterCommit: (work) => after.push(work) };
      const built = events.map((row) => {
        const scope = { organizationId: row.organization_id, mode: row.mode } as Scope;
        // A handler of every type gets each event as the class its module declared (the registered class otherwise).
        const Cls = (types.includes(ALL_EVENTS) && eventClassOf(row.type!)) || cls;
        return new Cls({
          id: row.id!,
          type: row.type!,
          scope,
          createdAt: row.created_at!,
          object: row.data!.object,
          previousAttributes: row.data!.previous_attributes,
        });
      });
      if (r.instance.handleBatch) {
        built.forEach(() => this.crashHook(name));
        if (built.length) await r.instance.handleBatch(built, context);
      } else {
        for (const event of built) {
          this.crashHook(name);
          await r.instance.handle(event, context);
        }
      }
      for (const row of events) this.logger.debug({ msg: 'durable event handled', handler: name, event: row.id, type: row.type });
      // A full batch moves to its last event (more may follow); otherwise to the last event read of any type.
      const to = events.length === BATCH ? events[events.length - 1] : top;
      if (to) {
        await m.query(`UPDATE event_handler_cursors SET transaction_id = $2::xid8, position = $3::bigint, updated_at = now() WHERE handler = $1`, [
          name,
          to.tx,
          to.pos,
        ]);
      }
      return { full: events.length === BATCH, events: events.length };
    });
    for (const work of after) {
      try {
        work();
      } catch (e) {
        this.logger.warn({ msg: 'work after a durable handler commit failed', handler: name, err: (e as Error).message });
      }
    }
    return result;
  }

  /**
   * Test only (DURABLE_HANDLERS_CRASH_BEFORE=<handler>[:<n>], refused in production): the process
   * exits at once, before the handler sees its n-th event in this process (the first by default),
   * with that event's transaction committed and the handler's cursor not moved past it.
   */
  private crashHook(name: string): void {
    const setting = this.config.DURABLE_HANDLERS_CRASH_BEFORE;
    if (!setting) return;
    const [handler, nth] = setting.split(':');
    if (handler !== name) return;
    this.seen++;
    if (this.seen < Number(nth ?? 1)) return;
    process.stderr.write(`durable handler ${name}: exiting before its event ${this.seen} (DURABLE_HANDLERS_CRASH_BEFORE)\n`);
    process.exit(1);
  }
}
