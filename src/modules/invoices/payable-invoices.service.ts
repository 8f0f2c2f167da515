import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { InvoicesConfig } from './invoices.config';
import type { Amount } from '../../shared/money/money';
import { Money } from '../../shared/money/money';
import type { Scope } from '../../shared/auth/request-context';
import { InvoiceEvents } from './commands/invoice-events';
import { isFinal, nextStatusForPayments, StatusChange } from './domain/invoice-status';
import { paymentWindowEndsAt, reorgHold } from './domain/invoice-timing';
import { grownProviders, type PaymentTotals } from './domain/payment-totals';
import type { InvoiceRecord } from './persistence/invoice.record';
import { InvoiceAccess, InvoicesRepository, LockedInvoice } from './persistence/invoices.repository';
import { InvoiceClocks } from './invoice-clocks.service';
import type { PayableInvoice } from './queries/get-payable-invoice/get-payable-invoice.query';

export interface InvoiceStateChange extends StatusChange {
  previousStatus: PayableInvoice['status'];
  previousSubstatus: PayableInvoice['substatus'];
}

/**
 * Thrown by `settle` when statements were sent ahead of the invoice's lock but a clock move is due:
 * the move (and its events) must come before the payment's write, so the caller's transaction rolls
 * back and runs again without sending ahead. Only an invoice past its expiry takes this path.
 */
export class ClockMoveFirst extends Error {
  constructor() {
    super('a clock move is due before the payment: settle again without statements sent ahead');
  }
}

export function payableOf(r: InvoiceRecord, monitoringMinutes: number): PayableInvoice {
  return {
    id: r.id,
    organizationId: r.organizationId,
    mode: r.mode,
    status: r.status,
    substatus: r.substatus,
    currency: r.currency,
    price: r.price,
    priceUsd: r.priceUsd,
    expiresAt: r.expiresAt,
    monitoringUntil: paymentWindowEndsAt(r, monitoringMinutes),
    ratesTakenAt: r.ratesTakenAt,
    ratesSnapshotId: r.ratesSnapshotId,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/**
 * What the invoices module offers the payments module inside the payment's own transaction: the
 * invoice row lock, and the payment-driven state move (decisions §8, the lifecycle table in
 * domain/invoice-status.ts). Every payment write for an invoice first takes `lockForPayment`, so
 * concurrent payments of one invoice are serialized and each recomputation sees all the others.
 */
@Injectable()
export class PayableInvoices {
  private readonly tolerance: Amount;

  constructor(
    @Inject(InvoicesRepository) private readonly repo: InvoicesRepository,
    @Inject(InvoicesConfig) config: InvoicesConfig,
    @Inject(InvoiceClocks) private readonly clocks: InvoiceClocks,
    @Inject(InvoiceEvents) private readonly events: InvoiceEvents,
  ) {
    this.tolerance = new Money(config.PAYMENT_TOLERANCE ?? '0');
  }

  /**
   * Settles one invoice inside the caller's (the payment's) transaction, in one call: locks the
   * invoice FOR UPDATE until the transaction ends and writes a due clock move first (expiry, end of
   * the monitoring window); runs `work` with the invoice as it then stands (the caller writes its
   * payment there, under the invoice's lock); then moves the invoice to the state its payments call
   * for when `work` returns totals (null totals: no payment changed in a way that counts). Every
   * payment write for an invoice goes through here, so concurrent payments of one invoice are
   * serialized and each settlement sees all the others. Null when the invoice is not in `access`.
   *
   * `ahead` sends statements right behind the lock, before its answer (the transaction's connection
   * pipelines: pipelined-transaction.ts): PostgreSQL runs them after the lock is granted, and they
   * cost no round trip of their own. `work` gets what they answer. When the invoice is not in
   * `access` they are rolled back with the caller's transaction; when a clock move is due, settle
   * throws ClockMoveFirst (the caller runs its transaction again without `ahead`).
   */
  async settle<T, A = undefined>(
    m: EntityManager,
    access: InvoiceAccess,
    invoiceId: string,
    now: Date,
    work: (invoice: PayableInvoice, ahead: Promise<A> | undefined) => Promise<{ result: T; totals: PaymentTotals | null }>,
    ahead?: () => Promise<A>,
  ): Promise<{ invoice: PayableInvoice; result: T; change: InvoiceStateChange | null } | null> {
    const lock = this.repo.lock(m, access, invoiceId);
    const sentAhead = ahead?.();
    // Until `work` takes it, its failure (the invoice missing, say) must not count as unhandled.
    sentAhead?.catch(() => undefined);
    const locked = await lock;
    if (!locked) return null;
    if (sentAhead && this.clocks.moveDue(locked, now)) throw new ClockMoveFirst();
    // The locked row with any due clock move written: what a read of it in this transaction returns.
    const current = (await this.clocks.applyDue(m, locked, now)).invoice;
    const invoice = payableOf(current, this.clocks.monitoringMinutes);
    const { result, totals } = await work(invoice, sentAhead);
    const change = totals ? await this.applyPayments(m, current, totals, now) : null;
    return { invoice, result, change };
  }

  /**
   * Moves the (locked) invoice to the state its payments call for, or leaves it (null). COMPLETED
   * and VOIDED invoices never change status: a payment for them is still recorded by the caller (a
   * chain reorg reversing a payment of a COMPLETED invoice only changes its substatus).
   */
  private async applyPayments(m: EntityManager, current: LockedInvoice, reported: PaymentTotals, at: Date): Promise<InvoiceStateChange | null> {
    // Payments do not see refunds: the invoice's own column completes the summary.
    const totals: PaymentTotals = current.refundedUsd ? { ...reported, refunded: current.refundedUsd } : reported;
    const invoice = payableOf(current, this.clocks.monitoringMinutes);
    const next = nextStatusForPayments(
      { current: invoice.status, currentSubstatus: invoice.substatus, priceUsd: invoice.priceUsd, tolerance: this.tolerance },
      totals,
    );
    // The list's read model: the providers the invoice's payments went through, written only when it grew.
    const providers = grownProviders(current.paymentProviderIds, totals.providers);
    // An invoice falling back to PENDING (its payment failed) meets its clocks at once (with their own events),
    // unless a reorg took the payment off the chain: its transaction may be mined again, so the window is held
    // open for another monitoring window from now (the rail watches the invoice's addresses as long; reorgHold
    // caps it). Also when a reorg's cancellation leaves the status as it was (a fiat payment still pending):
    // should that one fail later, the invoice falls back into the hold.
    const held = totals.chainMove && (next ? next.status === 'PENDING' : !isFinal(invoice.status));
    const hold = held ? reorgHold(current, at, this.clocks.monitoringMinutes) : null;
    if (!next) {
      await this.repo.settlePayments(m, invoice, null, providers);
      if (hold) await this.repo.holdClock(m, invoice, hold);
      return null;
    }
    const scope: Scope = { organizationId: invoice.organizationId as Scope['organizationId'], mode: invoice.mode };
    const moved = { ...current, status: next.status, substatus: next.substatus, clockHeldUntil: hold ?? current.clockHeldUntil, updatedAt: at };
    // invoice.updated (and invoice.completed), in the payment's transaction: the row is locked, so
    // its state after the update is the locked record with the columns the update writes, and the
    // first event's row is written by the update's own statement. A hold shows in monitoring_until.
    const [first, ...more] = hold ? this.events.changes(scope, this.events.view(current), moved) : this.events.statusMoved(scope, current, moved);
    await this.repo.settlePayments(m, invoice, { status: next.status, substatus: next.substatus, at, event: first ?? null }, providers);
    if (hold) await this.repo.holdClock(m, invoice, hold);
    for (const event of more) await this.events.insert(m, event);
    for (const event of first ? [first, ...more] : []) await this.events.written(m, event);
    const { invoice: after } = await this.clocks.applyDue(m, moved, at);
    return { status: after.status, substatus: after.substatus, previousStatus: invoice.status, previousSubstatus: invoice.substatus };
  }
}
