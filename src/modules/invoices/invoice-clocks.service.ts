import { Inject, Injectable, Logger, OnModuleDestroy, OnApplicationBootstrap } from '@nestjs/common';
import { BackgroundWork } from '../../shared/lifecycle/background-work';
import type { EntityManager } from 'typeorm';
import { InvoicesConfig } from './invoices.config';
import { PeriodicTask } from '../../shared/time/periodic-task';
import { TransactionRunner } from '../../shared/db/transaction-runner';
import { AppConfig } from '../../shared/config/app-config';
import { someOrganizationFull } from '../../shared/db/fair-batch';
import { Clock } from '../../shared/time/clock';
import type { InvoiceStatus, InvoiceSubstatus } from './domain/invoice-status';
import { TimedInvoice, timeMove, timeMoveEvents, withTimeApplied } from './domain/invoice-timing';
import type { InvoiceRecord } from './persistence/invoice.record';
import { InvoicesRepository } from './persistence/invoices.repository';
import { InvoiceEvents } from './commands/invoice-events';
import type { Scope } from '../../shared/auth/request-context';

/** A clock move written to an invoice (expiry, or the end of its monitoring window). */
export interface ClockMove {
  invoiceId: string;
  organizationId: string;
  mode: InvoiceRecord['mode'];
  from: { status: InvoiceStatus; substatus: InvoiceSubstatus | null };
  to: { status: InvoiceStatus; substatus: InvoiceSubstatus | null };
  /** Events this move stands for: invoice.expired (first time EXPIRED), invoice.updated. */
  events: Array<'invoice.expired' | 'invoice.updated'>;
  at: Date;
}

/** Invoices a sweeper pass takes per transaction. */
const SWEEP_BATCH = 200;

/**
 * The invoice clocks at work (domain/invoice-timing.ts holds the rules):
 * - `current` is what every read shows: the stored state with any due move applied at its scope's
 *   now (Clock.nowFor: real time, or a test mode's moved test clock),
 *   so a read never shows a stale state even when the sweeper is behind;
 * - `applyDue` writes a due move to an invoice the caller has locked (payments take it before
 *   applying a payment, so a late payment meets the invoice as it stands now);
 * - `sweep` writes every due move, in batches locked FOR UPDATE SKIP LOCKED, so several instances
 *   sweeping at once never apply one move twice; each batch is fair (at most WORKER_ORG_BATCH
 *   invoices of one organization's mode, organizations interleaved), so an organization with many
 *   invoices due has them moved in turns with the others' rather than ahead of them;
 * - `start` runs `sweep` every INVOICE_SWEEP_SECONDS (started by its own onApplicationBootstrap once the
 *   service opens BackgroundWork, after the migrations; never in the CLI).
 *
 * Events: each move records `invoice.expired` (the first time an invoice becomes EXPIRED), then
 * `invoice.updated` (and `invoice.voided` when the window closes) in its own transaction, through
 * InvoiceEvents and the event outbox; each move is also logged (`invoice_clock_move`).
 */
@Injectable()
export class InvoiceClocks implements OnModuleDestroy, OnApplicationBootstrap {
  private readonly logger = new Logger('InvoiceClocks');
  private readonly task = new PeriodicTask(
    () => this.sweep(),
    (e) => this.logger.warn({ err: e.message }, 'invoice sweep failed; retrying on the next tick'),
  );

  constructor(
    @Inject(BackgroundWork) private readonly work: BackgroundWork,
    @Inject(InvoicesRepository) private readonly repo: InvoicesRepository,
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(InvoicesConfig) private readonly config: InvoicesConfig,
    @Inject(InvoiceEvents) private readonly events: InvoiceEvents,
    @Inject(AppConfig) private readonly app: AppConfig,
  ) {}

  get monitoringMinutes(): number {
    return this.config.INVOICE_MONITORING_MINUTES;
  }

  /**
   * Now for one organization's invoices in one mode (a test mode's clock may have been moved);
   * `manager`: the caller's transaction, when it asks from inside one.
   */
  nowFor(scope: Pick<Scope, 'organizationId' | 'mode'> | Pick<InvoiceRecord, 'organizationId' | 'mode'>, manager?: EntityManager): Promise<Date> {
    return this.clock.nowFor(scope, manager);
  }

  /** The invoice as it stands at `now` (its scope's now: nowFor). */
  current<T extends TimedInvoice>(invoice: T, now: Date): T {
    return withTimeApplied(invoice, now, this.monitoringMinutes);
  }

  /** Whether a clock move is due at `now` (applyDue would write one). */
  moveDue(invoice: TimedInvoice, now: Date): boolean {
    return timeMove(invoice, now, this.monitoringMinutes) !== null;
  }

  /** Writes the move due at `now` to a locked invoice; returns the invoice as it now is and the move (or null). */
  async applyDue<T extends TimedInvoice & Pick<InvoiceRecord, 'id' | 'organizationId' | 'mode' | 'updatedAt'>>(
    m: EntityManager,
    invoice: T,
    now: Date,
  ): Promise<{ invoice: T; move: ClockMove | null }> {
    const next = timeMove(invoice, now, this.monitoringMinutes);
    if (!next) return { invoice, move: null };
    const scope: Scope = { organizationId: invoice.organizationId as Scope['organizationId'], mode: invoice.mode };
    const stored = await this.repo.find(m, scope, invoice.id);
    if (!stored) throw new Error(`invoice ${invoice.id} vanished while locked`);
    const before = this.events.view(stored);
    await this.repo.updateStatus(m, invoice, next.status, next.substatus, now);
    const move: ClockMove = {
      invoiceId: invoice.id,
      organizationId: invoice.organizationId,
      mode: invoice.mode,
      from: { status: invoice.status, substatus: invoice.substatus },
      to: next,
      events: timeMoveEvents(invoice, next),
      at: now,
    };
    // In the same transaction: invoice.expired (first time EXPIRED), then invoice.updated (and invoice.voided).
    if (move.events.includes('invoice.expired')) await this.events.expired(m, scope, invoice.id);
    await this.events.changed(m, scope, before);
    this.logger.log({ event: 'invoice_clock_move', invoice_id: move.invoiceId, from: move.from, to: move.to, events: move.events });
    return { invoice: { ...invoice, status: next.status, substatus: next.substatus, updatedAt: now }, move };
  }

  /**
   * One sweep: every move due now, batch by batch. Returns the moves this instance applied. Test
   * modes whose clock was moved (CLOCK_CONTROL) are swept first at their own now, each on its own;
   * then every invoice at real time.
   */
  async sweep(): Promise<ClockMove[]> {
    const moves: ClockMove[] = [];
    for (const { scope, offsetMs } of await this.clock.movedScopes()) {
      moves.push(...(await this.sweepAt(() => new Date(this.clock.now().getTime() + offsetMs), scope)));
    }
    moves.push(...(await this.sweepAt(() => this.clock.now(), null)));
    return moves;
  }

  private async sweepAt(nowOf: () => Date, scope: { organizationId: string; mode: 'test' | 'live' } | null): Promise<ClockMove[]> {
    const moves: ClockMove[] = [];
    for (;;) {
      const now = nowOf();
      const batch = await this.tx.run(async (m) => {
        const due = await this.repo.lockDue(m, now, this.monitoringMinutes, SWEEP_BATCH, this.app.WORKER_ORG_BATCH, scope);
        const applied: ClockMove[] = [];
        for (const invoice of due) {
          const { move } = await this.applyDue(m, invoice, now);
          if (move) applied.push(move);
        }
        return { more: due.length >= SWEEP_BATCH || someOrganizationFull(due, this.app.WORKER_ORG_BATCH), applied };
      });
      moves.push(...batch.applied);
      // Another batch while this one was full (or an organization's share of it was) and moved something.
      if (!batch.more || !batch.applied.length) return moves;
    }
  }

  /** Starts with the service's background work (after the migrations; never in the CLI). */
  onApplicationBootstrap(): void {
    this.work.whenReady(
      'invoice-sweeper',
      () => this.start(),
      () => this.task.runNow(),
    );
  }

  /** Sweeps every INVOICE_SWEEP_SECONDS (0: never); one pass at a time per process. */
  start(): void {
    this.task.start(this.config.INVOICE_SWEEP_SECONDS);
  }

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }
}
