import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../../shared/auth/request-context';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import type { PendingEvent } from '../../../../shared/events/outbox';
import { InvalidStateTransitionError, NotFoundError, ValidationFailedError } from '../../../../shared/errors/domain-error';
import { newId } from '../../../../shared/ids/ids';
import { Clock } from '../../../../shared/time/clock';
import { ClockMoveFirst, isFinalInvoiceStatus, PayableInvoice, PayableInvoices, type PaymentTotals } from '../../../invoices';
import { findCatalogProvider, paymentKindOf } from '../../../providers';
import { KeepRatesSnapshotCommand, RatesSnapshotGoneError } from '../../../rates';
import { agreedRatesSnapshot, ValueAtAgreedRates } from '../../domain/agreed-rates';
import { applyConfirmations, MAX_CONFIRMATIONS } from '../../domain/confirmations';
import { INITIAL_PAYMENT_STATUSES, initialPaymentStatus, movePayment, movePaymentOnChain, PaymentStatus } from '../../domain/payment-status';
import { settle, unitValueUsd } from '../../domain/settlement';
import { type Amount, sumAmounts, ZERO } from '../../../../shared/money/money';
import type { PaymentRecord } from '../../persistence/payment.record';
import { PaymentsRepository, SettlingPayment } from '../../persistence/payments.repository';
import { PaymentEvents } from '../payment-events';
import { PaymentReports, PricedReport } from './payment-reports';
import {
  DueChanged,
  NewPaymentReport,
  PaymentChainReport,
  PaymentConfirmationsReport,
  PaymentStatusReport,
  RecordedPayment,
  RecordProviderPaymentCommand,
} from './record-provider-payment.command';

/** One payment write under its invoice's lock. */
interface PaymentWrite {
  payment: PaymentRecord;
  /** Null when this write created the payment. */
  previousStatus: PaymentStatus | null;
  created: boolean;
  statusChanged: boolean;
  confirmationsChanged: boolean;
  previousConfirmations: number;
  /** A chain report moved the payment (a reorg reversal or reinstatement): the invoice's settlement says so. */
  chainMove?: boolean;
}

/** What a payment write hands the invoice's settlement: the write, and the totals when they may have moved. */
interface Written {
  result: PaymentWrite & { changed: boolean };
  totals: PaymentTotals | null;
}

@CommandHandler(RecordProviderPaymentCommand)
export class RecordProviderPaymentHandler implements ICommandHandler<RecordProviderPaymentCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(PaymentsRepository) private readonly repo: PaymentsRepository,
    @Inject(PayableInvoices) private readonly invoices: PayableInvoices,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(PaymentEvents) private readonly paymentEvents: PaymentEvents,
    @Inject(PaymentReports) private readonly reports: PaymentReports,
    @Inject(CommandBus) private readonly commands: CommandBus,
  ) {}

  async execute({ scope, report }: RecordProviderPaymentCommand): Promise<RecordedPayment> {
    return report.kind === 'payment'
      ? this.reportPayment(scope, report)
      : report.kind === 'status'
        ? this.recordStatus(scope, report)
        : report.kind === 'chain'
          ? this.recordChain(scope, report)
          : this.recordConfirmations(scope, report);
  }

  /**
   * A reported payment, valued at the rates in force when it happened. Rates whose day of history went
   * between their choice and the payment's transaction (RatesSnapshotGoneError: nothing was written) are
   * chosen again, from what the history still holds, and the payment written with them.
   */
  private async reportPayment(scope: Scope, report: NewPaymentReport): Promise<RecordedPayment> {
    for (let attempt = 1; ; attempt++) {
      const priced = await this.reports.price(scope, report);
      try {
        return await this.recordPayment(scope, priced);
      } catch (e) {
        if (!(e instanceof RatesSnapshotGoneError) || attempt >= 3) throw e;
      }
    }
  }

  /**
   * A reported payment. Without an idempotency key, and when nothing about the report itself is
   * refused (the provider enabled, a status a payment may start in), the payment is written whatever
   * the invoice then says: its insert, with its event and the settlement's read of the invoice's
   * payments, goes out right behind the invoice's lock (`ahead`), one round trip fewer. A missing
   * invoice rolls it back (404 as before); an invoice with a clock move due (ClockMoveFirst) is
   * settled again the ordered way, so the move's events come before the payment's.
   */
  private async recordPayment(scope: Scope, priced: PricedReport, sendAhead = true): Promise<RecordedPayment> {
    const report = { ...priced.report, providerId: priced.providerId };
    const key = report.idempotencyKey ?? null;
    const ahead = sendAhead && key === null && !report.whileDue && priced.providerEnabled && INITIAL_PAYMENT_STATUSES.includes(priced.status);
    try {
      return await this.tx.run(async (m) => {
        // First, before any lock of the payment's: rates valued from a day of history that may go soon are kept
        // with the payment (no statement for any other: the rates of today and of the last weeks).
        await this.commands.execute(new KeepRatesSnapshotCommand(m, priced.ratesSnapshotId));
        const now = await this.clock.nowFor(scope, m);
        const reported = report.confirmations ?? null;
        const initial = applyConfirmations({ requested: priced.status, reported, current: 0, required: priced.requiredConfirmations });
        // Made when the payment is written, so its event follows any clock move's events of the invoice.
        const fresh = (): { record: PaymentRecord; created: PaymentWrite } => {
          const record: PaymentRecord = {
            id: newId('payment'),
            organizationId: scope.organizationId,
            mode: scope.mode,
            providerId: report.providerId,
            // The id the invoice's lock looks up: the invoice found has it.
            invoiceId: report.invoiceId,
            currency: priced.currency,
            price: priced.price,
            priceUsd: priced.priceUsd,
            ratesSnapshotId: priced.ratesSnapshotId,
            status: initial.status,
            idempotencyKey: key,
            confirmations: initial.confirmations,
            requiredConfirmations: priced.requiredConfirmations,
            happenedAt: priced.happenedAt,
            createdAt: now,
            updatedAt: now,
          };
          const created: PaymentWrite = {
            payment: record,
            previousStatus: null,
            created: true,
            statusChanged: true,
            confirmationsChanged: false,
            previousConfirmations: record.confirmations,
          };
          return { record, created };
        };
        /** The payment.created event of a payment the insert writes with it (a report without an idempotency key). */
        const withEvent = (p: { record: PaymentRecord; created: PaymentWrite }) => ({ ...p, event: this.paymentEvents.created(scope, p.record) });
        // Sent ahead: the payment is made (and its insert sent) before the invoice's lock is answered.
        const early = ahead ? withEvent(fresh()) : null;
        const insert = (p: { record: PaymentRecord; event: PendingEvent }) => this.repo.insertForSettling(m, p.record, p.event);
        return this.settleInvoice(
          m,
          scope,
          report.invoiceId,
          now,
          async (invoice, inserted) => {
            // Valued at the invoice's own rates while its rate lock holds: when those are not the rates it was
            // valued at, nothing is written (the insert sent ahead rolls back) and it is valued again.
            const agreed = agreedRatesSnapshot(invoice, priced.valuedAt);
            if (agreed !== null && agreed !== priced.ratesSnapshotId && agreed !== priced.agreedTried) throw new ValueAtAgreedRates(agreed);
            if (early && inserted) return this.written(m, scope, invoice, early.created, { event: early.event, settling: await inserted });
            const { record, created } = fresh();
            const existing = key === null ? null : await this.repo.lockByIdempotencyKey(m, scope, key);
            if (!existing) {
              if (!priced.providerEnabled) throw new ValidationFailedError({ provider_id: `provider ${report.providerId} is disabled for this organization` });
              initialPaymentStatus(priced.status);
              if (report.whileDue) await this.stillDue(m, scope, invoice, report.whileDue);
            }
            if (key === null) {
              // Nothing to conflict with: the payment, its payment.created event and the settlement's read of
              // the invoice's payments are one statement.
              const { event } = withEvent({ record, created });
              return this.written(m, scope, invoice, created, { event, settling: await insert({ record, event }) });
            }
            if (!existing && (await this.repo.insertIfAbsent(m, record))) return this.written(m, scope, invoice, created);
            // Reported before (or by a concurrent report that just committed): the same payment.
            const payment = existing ?? (await this.repo.lockByIdempotencyKey(m, scope, key));
            if (!payment) throw new Error('idempotent payment vanished');
            if (payment.invoiceId !== invoice.id || payment.providerId !== report.providerId || !payment.price.eq(priced.price)) {
              throw new ValidationFailedError({
                idempotency_key: 'was already used for a different payment (invoice, provider or price differ)',
              });
            }
            // The first report sent again after the payment was settled (a provider's retry, a client resending its
            // request): a PENDING report, with its count or without, tells nothing a settled payment does not show
            // (counts go on through the confirmations report); answered as it is.
            if (priced.status === 'PENDING' && (payment.status === 'COMPLETED' || payment.status === 'FAILED' || payment.status === 'CANCELLED')) {
              return this.moveExisting(m, scope, invoice, payment, payment.status, payment.confirmations, now);
            }
            const next = applyConfirmations({ requested: priced.status, reported, current: payment.confirmations, required: payment.requiredConfirmations });
            return this.moveExisting(m, scope, invoice, payment, next.status, next.confirmations, now);
          },
          early ? () => insert(early) : undefined,
        );
      });
    } catch (e) {
      if (e instanceof ClockMoveFirst) return this.recordPayment(scope, priced, false);
      if (e instanceof ValueAtAgreedRates) return this.recordPayment(scope, await this.reports.atRates(priced, e.snapshotId), false);
      throw e;
    }
  }

  /**
   * A simulated payment's check under the invoice's lock (the list of its payments is complete then): the
   * invoice still takes payments, something is still due, and what is due is what the payment was priced
   * from. Two simulated payments sent at once thus pay the invoice once, as they would one after the other.
   */
  private async stillDue(m: EntityManager, scope: Scope, invoice: PayableInvoice, seen: { priceUsd: Amount; seenUsd: Amount }): Promise<void> {
    if (isFinalInvoiceStatus(invoice.status)) {
      throw new ValidationFailedError({ id: `the invoice is ${invoice.status}; it takes no new payments` }, undefined, 'invoice_final');
    }
    const seenUsd = sumAmounts(
      (await this.repo.settling(m, scope, invoice.id)).filter((p) => p.status === 'COMPLETED' || p.status === 'PENDING').map((p) => p.priceUsd),
    );
    if (seenUsd.gte(invoice.priceUsd)) {
      throw new ValidationFailedError({ id: 'nothing is due: the payments seen already cover the invoice' }, undefined, 'nothing_due');
    }
    if (!seenUsd.eq(seen.seenUsd) || !invoice.priceUsd.eq(seen.priceUsd)) throw new DueChanged();
  }

  /** Moves a locked payment to `status` with `confirmations`. */
  private async moveExisting(
    m: EntityManager,
    scope: Scope,
    invoice: PayableInvoice,
    payment: PaymentRecord,
    status: PaymentStatus,
    confirmations: number,
    now: Date,
    chainMove = false,
  ): Promise<Written> {
    const move = chainMove ? movePaymentOnChain(payment.status, status) : movePayment(payment.status, status);
    const confirmationsChanged = confirmations !== payment.confirmations;
    if (move.changed || confirmationsChanged) await this.repo.updateStatus(m, payment, move.status, now, confirmations);
    return this.written(m, scope, invoice, {
      payment: { ...payment, status: move.status, confirmations },
      previousStatus: payment.status,
      created: false,
      statusChanged: move.changed,
      confirmationsChanged,
      previousConfirmations: payment.confirmations,
      chainMove,
    });
  }

  /** A chain rail's report after a reorg (PaymentChainReport): off the chain, or on it again with a count. */
  private recordChain(scope: Scope, report: PaymentChainReport): Promise<RecordedPayment> {
    const count = report.confirmations;
    if (count !== null && (!Number.isSafeInteger(count) || count < 0 || count > MAX_CONFIRMATIONS)) {
      throw new ValidationFailedError({ confirmations: `must be null or a whole number from 0 to ${MAX_CONFIRMATIONS}` });
    }
    return this.changeKnown(scope, report.paymentId, async (m, invoice, payment, now) => {
      if (payment.requiredConfirmations === 0) {
        throw new ValidationFailedError({ confirmations: 'this payment has no confirmations to track (fiat, or recorded before confirmations were tracked)' });
      }
      if (count === null) {
        if (payment.status === 'CANCELLED' || payment.status === 'FAILED')
          return this.moveExisting(m, scope, invoice, payment, payment.status, payment.confirmations, now);
        await this.repo.setOffChain(m, payment, now);
        return this.moveExisting(m, scope, invoice, payment, 'CANCELLED', payment.confirmations, now, true);
      }
      if (payment.status === 'COMPLETED' || payment.status === 'FAILED') {
        // Mined again after completing: it stays COMPLETED (its count is not taken back); FAILED stays FAILED.
        return this.moveExisting(m, scope, invoice, payment, payment.status, payment.confirmations, now);
      }
      if (payment.status === 'CANCELLED') {
        if (!(await this.repo.offChainAt(m, payment))) throw new InvalidStateTransitionError('payment', 'CANCELLED', 'PENDING', []);
        await this.repo.setOffChain(m, payment, null);
      }
      // The count restarts from the block the transaction is in now.
      const next = applyConfirmations({ requested: 'PENDING', reported: count, current: 0, required: payment.requiredConfirmations });
      return this.moveExisting(m, scope, invoice, payment, next.status, next.confirmations, now, true);
    });
  }

  private recordConfirmations(scope: Scope, report: PaymentConfirmationsReport): Promise<RecordedPayment> {
    const count = report.confirmations;
    if (!Number.isSafeInteger(count) || count < 0 || count > MAX_CONFIRMATIONS) {
      throw new ValidationFailedError({ confirmations: `must be a whole number from 0 to ${MAX_CONFIRMATIONS}` });
    }
    return this.changeKnown(scope, report.paymentId, (m, invoice, payment, now) => {
      if (payment.requiredConfirmations === 0) {
        throw new ValidationFailedError({ confirmations: 'this payment has no confirmations to track (fiat, or recorded before confirmations were tracked)' });
      }
      if (payment.status === 'FAILED' || payment.status === 'CANCELLED') {
        throw new ValidationFailedError({ confirmations: `cannot change: the payment is ${payment.status}` }, undefined, 'invalid_state_transition');
      }
      if (count < payment.confirmations) {
        throw new ValidationFailedError({ confirmations: `must not be lower than the current ${payment.confirmations}` });
      }
      const next = applyConfirmations({ requested: payment.status, reported: count, current: payment.confirmations, required: payment.requiredConfirmations });
      return this.moveExisting(m, scope, invoice, payment, next.status, next.confirmations, now);
    });
  }

  private recordStatus(scope: Scope, report: PaymentStatusReport): Promise<RecordedPayment> {
    return this.changeKnown(scope, report.paymentId, (m, invoice, payment, now) => {
      const next = applyConfirmations({ requested: report.status, reported: null, current: payment.confirmations, required: payment.requiredConfirmations });
      return this.moveExisting(m, scope, invoice, payment, next.status, next.confirmations, now);
    });
  }

  /** A report about a payment recorded before: locks its invoice, then the payment (always in this order), then runs `change`. */
  private changeKnown(
    scope: Scope,
    paymentId: string,
    change: (m: EntityManager, invoice: PayableInvoice, payment: PaymentRecord, now: Date) => Promise<Written>,
  ): Promise<RecordedPayment> {
    return this.tx.run(async (m) => {
      const now = await this.clock.nowFor(scope, m);
      const seen = await this.repo.find(m, scope, paymentId);
      if (!seen) throw new NotFoundError('payment');
      if (!seen.invoiceId) throw new NotFoundError('invoice');
      return this.settleInvoice(m, scope, seen.invoiceId, now, async (invoice) => {
        const payment = await this.repo.lock(m, scope, paymentId);
        if (!payment) throw new NotFoundError('payment');
        return change(m, invoice, payment, now);
      });
    });
  }

  /**
   * The one call into invoices per settlement: the invoice is locked (and its due clock moves
   * written) before `work` writes the payment, and moved afterwards to the state all its payments
   * call for, in this transaction.
   */
  private async settleInvoice<A = undefined>(
    m: EntityManager,
    scope: Scope,
    invoiceId: string,
    now: Date,
    work: (invoice: PayableInvoice, ahead: Promise<A> | undefined) => Promise<Written>,
    ahead?: () => Promise<A>,
  ): Promise<RecordedPayment> {
    const settled = await this.invoices.settle(m, scope, invoiceId, now, work, ahead);
    if (!settled) throw new NotFoundError('invoice');
    const {
      invoice,
      result: { payment, previousStatus, created, changed },
      change,
    } = settled;
    const before = { status: invoice.status, substatus: invoice.substatus };
    const after = change ? { status: change.status, substatus: change.substatus } : before;
    return {
      paymentId: payment.id,
      invoiceId: invoice.id,
      status: payment.status,
      previousStatus,
      confirmations: payment.confirmations,
      requiredConfirmations: payment.requiredConfirmations,
      created,
      changed,
      invoice: {
        status: after.status,
        substatus: after.substatus,
        previousStatus: before.status,
        previousSubstatus: before.substatus,
        changed: after.status !== before.status || after.substatus !== before.substatus,
      },
    };
  }

  /**
   * After a payment write, under the invoice's lock: payment.created / payment.updated when the
   * payment changed (recorded before the invoice's own events), and, when its status changed, the
   * settlement of the invoice from all its payments (domain/settlement.ts) for invoices to apply.
   */
  private async written(
    m: EntityManager,
    scope: Scope,
    invoice: PayableInvoice,
    w: PaymentWrite,
    inserted: { event: PendingEvent; settling: SettlingPayment[] } | null = null,
  ): Promise<Written> {
    const changed = w.created || w.statusChanged || w.confirmationsChanged;
    // `inserted`: the event's row was written with the payment's, and the invoice's payments read (insertForSettling).
    if (inserted) await this.paymentEvents.written(m, inserted.event);
    else if (changed) await this.paymentEvents.recorded(m, scope, w.payment, w.previousStatus, w.created, w.previousConfirmations);
    let totals: PaymentTotals | null = null;
    if (w.created || w.statusChanged) {
      const payments = inserted?.settling ?? (await this.repo.settling(m, scope, invoice.id));
      totals = settle(
        payments.map((p) => {
          const provider = findCatalogProvider(p.providerId);
          return {
            ...p,
            providerKind: provider ? paymentKindOf(provider) : null,
            unitUsd: provider ? unitValueUsd(p.price, p.priceUsd, provider.decimals) : ZERO,
          };
        }),
        invoice.expiresAt,
      );
      if (w.chainMove) totals = { ...totals, chainMove: true };
    }
    return { result: { ...w, changed }, totals };
  }
}
