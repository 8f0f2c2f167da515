import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import { EventOutbox, PendingEvent } from '../../../shared/events/outbox';
import type { PaymentStatus } from '../domain/payment-status';
import { paymentView } from '../dto/payment.views';
import type { PaymentRecord } from '../persistence/payment.record';
import { PaymentsRepository } from '../persistence/payments.repository';
import { PAYMENT_EVENTS } from '../events/payment.events';

/** Records the payments' events in the writer's transaction, with the payment as the API renders it to the merchant. */
@Injectable()
export class PaymentEvents {
  constructor(
    @Inject(PaymentsRepository) private readonly repo: PaymentsRepository,
    @Inject(EventOutbox) private readonly outbox: EventOutbox,
  ) {}

  /** payment.created for a payment about to be inserted, its row written by the payment's own insert (`PaymentsRepository.insertWithEvent`). */
  created(scope: Scope, payment: PaymentRecord): PendingEvent {
    return this.outbox.prepare(scope, PAYMENT_EVENTS['payment.created'], paymentView(payment, false));
  }

  /** After the statement that wrote a prepared event's row: the outbox's subscribers, with the same manager. */
  async written(m: EntityManager, event: PendingEvent): Promise<void> {
    await this.outbox.written(m, event);
  }

  /**
   * payment.created, or payment.updated with the earlier values of the changed fields; recorded
   * before the invoice's own events, which the settlement records.
   */
  async recorded(
    m: EntityManager,
    scope: Scope,
    payment: PaymentRecord,
    previousStatus: PaymentStatus | null,
    created: boolean,
    previousConfirmations: number,
  ): Promise<void> {
    if (created) {
      // The record just inserted is the row as stored (every column written, amounts at the stored scale).
      await this.outbox.record(m, scope, PAYMENT_EVENTS['payment.created'], paymentView(payment, false));
      return;
    }
    const stored = await this.repo.find(m, scope, payment.id);
    if (!stored) throw new Error(`payment ${payment.id} vanished inside its own transaction`);
    const after = paymentView(stored, false);
    const before = paymentView({ ...payment, status: previousStatus ?? payment.status, confirmations: previousConfirmations }, false) as unknown as Record<
      string,
      unknown
    >;
    const previous: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(before)) {
      if (JSON.stringify(value) !== JSON.stringify((after as unknown as Record<string, unknown>)[key])) previous[key] = value;
    }
    await this.outbox.record(m, scope, PAYMENT_EVENTS['payment.updated'], after, { previousAttributes: previous });
  }
}
