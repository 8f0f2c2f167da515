import { Inject } from '@nestjs/common';
import { CommandHandler, EventBus, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../../shared/auth/request-context';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError, ValidationFailedError } from '../../../../shared/errors/domain-error';
import { newId } from '../../../../shared/ids/ids';
import { AMOUNT_PROBLEM_MESSAGES, amountProblem, Amount, parseAmount, roundMoney } from '../../../../shared/money/money';
import { EventOutbox } from '../../../../shared/events/outbox';
import { Clock } from '../../../../shared/time/clock';
import type { PayableInvoice } from '../../../invoices/queries/get-payable-invoice/get-payable-invoice.query';
import { PayableInvoices } from '../../../invoices/payable-invoices.service';
import { findCatalogProvider, paymentKindOf } from '../../../providers/domain/catalog';
import { GetProvidersQuery } from '../../../providers/queries/get-providers/get-providers.query';
import { RatesAsOfQuery } from '../../../rates/queries/rates-as-of/rates-as-of.query';
import { applyConfirmations, MAX_CONFIRMATIONS } from '../../domain/confirmations';
import { initialPaymentStatus, isPaymentStatus, movePayment, PaymentStatus } from '../../domain/payment-status';
import { paymentView } from '../../dto/payment.views';
import { PaymentRecordedEvent } from '../../events/payment-recorded.event';
import type { PaymentRecord } from '../../persistence/payment.record';
import { PaymentsRepository } from '../../persistence/payments.repository';
import { NewPaymentReport, PaymentConfirmationsReport, PaymentStatusReport, RecordedPayment, RecordProviderPaymentCommand } from './record-provider-payment.command';

/** A provider's clock may run a little ahead of ours. */
const FUTURE_SKEW_MS = 5 * 60 * 1000;

interface PricedReport {
  report: NewPaymentReport;
  /** The catalog id (prov_...), whichever spelling the report used. */
  providerId: string;
  /** A disabled provider takes no new payments; later reports of a payment it already has still apply. */
  providerEnabled: boolean;
  price: Amount;
  priceUsd: Amount;
  ratesSnapshotId: string;
  happenedAt: Date;
  status: PaymentStatus;
  currency: PaymentRecord['currency'];
  /** Confirmations the payment needs (the organization's setting for the provider; 0 for fiat). */
  requiredConfirmations: number;
}

@CommandHandler(RecordProviderPaymentCommand)
export class RecordProviderPaymentHandler implements ICommandHandler<RecordProviderPaymentCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(EventBus) private readonly events: EventBus,
    @Inject(PaymentsRepository) private readonly repo: PaymentsRepository,
    @Inject(PayableInvoices) private readonly invoices: PayableInvoices,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(EventOutbox) private readonly outbox: EventOutbox,
  ) {}

  async execute({ scope, report }: RecordProviderPaymentCommand): Promise<RecordedPayment> {
    const recorded = report.kind === 'payment'
      ? await this.recordPayment(scope, await this.price(scope, report))
      : report.kind === 'status'
        ? await this.recordStatus(scope, report)
        : await this.recordConfirmations(scope, report);
    if (recorded.changed) this.events.publish(new PaymentRecordedEvent(scope, recorded, this.clock.now()));
    return recorded;
  }

  /** Checks the report and values it in USD at the rates in force when it happened (outside the transaction). */
  private async price(scope: Scope, report: NewPaymentReport): Promise<PricedReport> {
    const errors: Record<string, string> = {};
    const [provider] = await this.queries.execute(new GetProvidersQuery(scope, [report.providerId]));
    if (!provider) errors.provider_id = `unknown provider "${report.providerId}"`;

    const problem = amountProblem(report.price);
    if (problem) errors.price = AMOUNT_PROBLEM_MESSAGES[problem];
    else if (parseAmount(report.price).isZero()) errors.price = 'must be greater than 0';
    else if (provider && parseAmount(report.price).decimalPlaces() > provider.catalog.decimals) {
      errors.price = `must have at most ${provider.catalog.decimals} fractional digits for ${provider.catalog.id} (${provider.catalog.currency})`;
    }

    const now = await this.clock.nowFor(scope);
    const happenedAt = report.happenedAt ?? now;
    if (happenedAt.getTime() > now.getTime() + FUTURE_SKEW_MS) errors.happened_at = 'must not be in the future';

    const key = report.idempotencyKey ?? null;
    if (key !== null && (key.length < 1 || key.length > 200)) errors.idempotency_key = 'must be 1 to 200 characters';

    const confirmations = report.confirmations ?? null;
    if (confirmations !== null) {
      if (!Number.isSafeInteger(confirmations) || confirmations < 0 || confirmations > MAX_CONFIRMATIONS) {
        errors.confirmations = `must be a whole number from 0 to ${MAX_CONFIRMATIONS}`;
      } else if (provider && paymentKindOf(provider.catalog) === 'fiat') {
        errors.confirmations = `${provider.catalog.id} is a fiat provider; its payments have no confirmations`;
      }
    }

    const status: PaymentStatus = report.status ?? 'PENDING';
    if (!isPaymentStatus(status)) errors.status = 'must be one of PENDING, COMPLETED, FAILED, CANCELLED';
    if (Object.keys(errors).length) throw new ValidationFailedError(errors);

    const catalog = provider!.catalog;
    const price = parseAmount(report.price);
    const rates = await this.queries.execute(new RatesAsOfQuery(happenedAt));
    return {
      report, providerId: catalog.id, providerEnabled: provider!.view.enabled, price, status, happenedAt, currency: catalog.currency,
      requiredConfirmations: paymentKindOf(catalog) === 'crypto' ? provider!.view.required_confirmations : 0,
      priceUsd: roundMoney(price.mul(rates.usd[catalog.currency])),
      ratesSnapshotId: rates.snapshotId,
    };
  }

  private recordPayment(scope: Scope, priced: PricedReport): Promise<RecordedPayment> {
    const report = { ...priced.report, providerId: priced.providerId };
    const key = report.idempotencyKey ?? null;
    return this.tx.run(async (m) => {
      const now = await this.clock.nowFor(scope);
      const invoice = await this.invoices.lockForPayment(m, scope, report.invoiceId, now);
      if (!invoice) throw new NotFoundError('invoice');

      const reported = report.confirmations ?? null;
      const initial = applyConfirmations({ requested: priced.status, reported, current: 0, required: priced.requiredConfirmations });
      const fresh: PaymentRecord = {
        id: newId('payment'), organizationId: scope.organizationId, mode: scope.mode, providerId: report.providerId,
        invoiceId: invoice.id, currency: priced.currency, price: priced.price, priceUsd: priced.priceUsd,
        ratesSnapshotId: priced.ratesSnapshotId, status: initial.status, idempotencyKey: key,
        confirmations: initial.confirmations, requiredConfirmations: priced.requiredConfirmations,
        happenedAt: priced.happenedAt, createdAt: now, updatedAt: now,
      };
      const existing = key === null ? null : await this.repo.lockByIdempotencyKey(m, scope, key);
      if (!existing) {
        if (!priced.providerEnabled) throw new ValidationFailedError({ provider_id: `provider ${report.providerId} is disabled for this organization` });
        initialPaymentStatus(priced.status);
      }
      if (!existing && (await this.repo.insertIfAbsent(m, fresh))) {
        return this.settle(m, scope, invoice, fresh, null, true, now);
      }
      // Reported before (or by a concurrent report that just committed): the same payment.
      const payment = existing ?? (await this.repo.lockByIdempotencyKey(m, scope, key!));
      if (!payment) throw new Error('idempotent payment vanished');
      if (payment.invoiceId !== invoice.id || payment.providerId !== report.providerId || !payment.price.eq(priced.price)) {
        throw new ValidationFailedError({
          idempotency_key: 'was already used for a different payment (invoice, provider or price differ)',
        });
      }
      const next = applyConfirmations({ requested: priced.status, reported, current: payment.confirmations, required: payment.requiredConfirmations });
      return this.moveExisting(m, scope, invoice, payment, next.status, next.confirmations, now);
    });
  }

  /** Moves a locked payment to `status` with `confirmations`, then recomputes its invoice. */
  private async moveExisting(
    m: EntityManager, scope: Scope, invoice: PayableInvoice, payment: PaymentRecord, status: PaymentStatus, confirmations: number, now: Date,
  ): Promise<RecordedPayment> {
    const move = movePayment(payment.status, status);
    const confirmationsChanged = confirmations !== payment.confirmations;
    if (move.changed || confirmationsChanged) await this.repo.updateStatus(m, payment, move.status, now, confirmations);
    return this.settle(
      m, scope, invoice, { ...payment, status: move.status, confirmations }, payment.status, false, now, move.changed, confirmationsChanged, payment.confirmations,
    );
  }

  private recordConfirmations(scope: Scope, report: PaymentConfirmationsReport): Promise<RecordedPayment> {
    const count = report.confirmations;
    if (!Number.isSafeInteger(count) || count < 0 || count > MAX_CONFIRMATIONS) {
      throw new ValidationFailedError({ confirmations: `must be a whole number from 0 to ${MAX_CONFIRMATIONS}` });
    }
    return this.tx.run(async (m) => {
      const now = await this.clock.nowFor(scope);
      const { invoice, payment } = await this.lockPayment(m, scope, report.paymentId, now);
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

  /** Locks the payment's invoice, then the payment (always in this order). */
  private async lockPayment(m: EntityManager, scope: Scope, paymentId: string, now: Date): Promise<{ invoice: PayableInvoice; payment: PaymentRecord }> {
    const seen = await this.repo.find(m, scope, paymentId);
    if (!seen) throw new NotFoundError('payment');
    const invoice = seen.invoiceId ? await this.invoices.lockForPayment(m, scope, seen.invoiceId, now) : null;
    if (!invoice) throw new NotFoundError('invoice');
    const payment = await this.repo.lock(m, scope, paymentId);
    if (!payment) throw new NotFoundError('payment');
    return { invoice, payment };
  }

  private recordStatus(scope: Scope, report: PaymentStatusReport): Promise<RecordedPayment> {
    return this.tx.run(async (m) => {
      const now = await this.clock.nowFor(scope);
      const { invoice, payment } = await this.lockPayment(m, scope, report.paymentId, now);
      const next = applyConfirmations({ requested: report.status, reported: null, current: payment.confirmations, required: payment.requiredConfirmations });
      return this.moveExisting(m, scope, invoice, payment, next.status, next.confirmations, now);
    });
  }

  /**
   * payment.created, or payment.updated with the earlier values of the changed fields; recorded
   * before the invoice's own events, which the state recomputation below records.
   */
  private async recordPaymentEvent(
    m: EntityManager, scope: Scope, payment: PaymentRecord, previousStatus: PaymentStatus | null, created: boolean, previousConfirmations: number,
  ): Promise<void> {
    const stored = await this.repo.find(m, scope, payment.id);
    if (!stored) throw new Error(`payment ${payment.id} vanished inside its own transaction`);
    const after = paymentView(stored, false);
    if (created) {
      await this.outbox.record(m, scope, 'payment.created', after);
      return;
    }
    const before = paymentView({ ...payment, status: previousStatus ?? payment.status, confirmations: previousConfirmations }, false) as unknown as Record<string, unknown>;
    const previous: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(before)) {
      if (JSON.stringify(value) !== JSON.stringify((after as unknown as Record<string, unknown>)[key])) previous[key] = value;
    }
    await this.outbox.record(m, scope, 'payment.updated', after, { previousAttributes: previous });
  }

  /** Recomputes the locked invoice's state from all its payments, inside the same transaction. */
  private async settle(
    m: EntityManager, scope: Scope, invoice: PayableInvoice, payment: PaymentRecord, previousStatus: PaymentStatus | null,
    created: boolean, now: Date, statusChanged = true, confirmationsChanged = false, previousConfirmations: number = payment.confirmations,
  ): Promise<RecordedPayment> {
    const changed = created || statusChanged || confirmationsChanged;
    const before = { status: invoice.status, substatus: invoice.substatus };
    let after = before;
    // payment.created / payment.updated (a status or confirmations change), in the same transaction.
    if (changed) await this.recordPaymentEvent(m, scope, payment, previousStatus, created, previousConfirmations);
    if (created || statusChanged) {
      const completedUsd = await this.repo.completedUsd(m, scope, invoice.id);
      const pendingProvider = await this.repo.newestPendingProvider(m, scope, invoice.id);
      const pending = pendingProvider ? findCatalogProvider(pendingProvider) : undefined;
      const paidLate = invoice.expiresAt ? await this.repo.hasCompletedAfter(m, scope, invoice.id, invoice.expiresAt) : false;
      const move = await this.invoices.applyPayments(m, invoice, { completedUsd, pendingKind: pending ? paymentKindOf(pending) : null, paidLate }, now);
      if (move) after = { status: move.status, substatus: move.substatus };
    }
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
        status: after.status, substatus: after.substatus, previousStatus: before.status, previousSubstatus: before.substatus,
        changed: after.status !== before.status || after.substatus !== before.substatus,
      },
    };
  }
}
