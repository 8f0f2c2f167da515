import type { Amount } from '../../../../shared/money/money';
import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { InvoiceStatus, InvoiceSubstatus } from '../../../invoices';
import type { PaymentStatus } from '../../domain/payment-status';

/** A provider reports a payment it has seen (first report, or a repeat with the same idempotency key). */
export interface NewPaymentReport {
  kind: 'payment';
  invoiceId: string;
  providerId: string;
  /** Decimal text in the provider's currency (validated: > 0, at most 30 fractional digits). */
  price: string;
  /** PENDING (seen, not final) or COMPLETED; default PENDING. */
  status?: PaymentStatus;
  /** The provider's own reference (e.g. tx hash + output index); unique per organization and mode. */
  idempotencyKey?: string | null;
  /** When the payment happened (default now); its USD value uses the rates in force then. */
  happenedAt?: Date | null;
  /**
   * Confirmations of a crypto payment so far. With a count, the service decides: COMPLETED once it
   * reaches the provider's requirement, PENDING below it (even when the provider says COMPLETED).
   */
  confirmations?: number | null;
  /**
   * A simulated payment (test mode) priced from what was due: recorded only if, under the invoice's lock,
   * the invoice still takes payments and its price and the payments seen (COMPLETED or PENDING, in USD)
   * are still these; else nothing is written (invoice_final, nothing_due, or DueChanged to price it again).
   */
  whileDue?: { priceUsd: Amount; seenUsd: Amount } | null;
}

/** A simulated payment's invoice changed between its pricing and its lock (another payment, a currency change). */
export class DueChanged extends Error {
  constructor() {
    super('what the invoice has due changed while the payment was priced');
  }
}

/** A provider reports how many confirmations a crypto payment it reported before now has. */
export interface PaymentConfirmationsReport {
  kind: 'confirmations';
  paymentId: string;
  confirmations: number;
}

/** A provider reports a new status for a payment it reported before. */
export interface PaymentStatusReport {
  kind: 'status';
  paymentId: string;
  status: PaymentStatus;
}

/**
 * A chain rail reports where a crypto payment's transaction stands on its chain after a reorg, or
 * when the rescan finds it again: `confirmations` null when the transaction is in no block of the
 * canonical chain, else its confirmations in the block it is in now (fewer than before when it was
 * mined again in a later block; the count restarts there), 0 when its block was taken back and it
 * waits in the mempool again. The one report that may move a payment
 * out of a final status (docs/payments.md, "Chain reversals"):
 * - off the chain: PENDING or COMPLETED -> CANCELLED (a COMPLETED one is a reversal: the money is gone);
 * - on the chain again: a payment CANCELLED by an earlier off-chain report -> PENDING, or COMPLETED
 *   when the count reaches the requirement; a PENDING one restarts its count from the new block;
 *   a COMPLETED one stays as it is.
 * A payment cancelled for another reason is not reinstated (400 invalid_state_transition); FAILED stays FAILED.
 */
export interface PaymentChainReport {
  kind: 'chain';
  paymentId: string;
  confirmations: number | null;
}

export type ProviderPaymentReport = NewPaymentReport | PaymentStatusReport | PaymentConfirmationsReport | PaymentChainReport;

export interface RecordedPayment {
  paymentId: string;
  invoiceId: string;
  status: PaymentStatus;
  /** Null when this report created the payment. */
  previousStatus: PaymentStatus | null;
  confirmations: number;
  requiredConfirmations: number;
  /** This report created the payment (false for a repeat of a known idempotency key). */
  created: boolean;
  /** The payment was created or its status or confirmations changed. */
  changed: boolean;
  invoice: {
    status: InvoiceStatus;
    substatus: InvoiceSubstatus | null;
    previousStatus: InvoiceStatus;
    previousSubstatus: InvoiceSubstatus | null;
    changed: boolean;
  };
}

/**
 * The one way payments enter and change (provider notifications, test-mode simulation). In one
 * transaction: locks the invoice, creates the payment (idempotent on idempotency_key) or moves its
 * status through the payment lifecycle (a crypto payment completes when its confirmations reach the
 * requirement, domain/confirmations.ts), then recomputes the invoice's state from all its payments.
 * Errors: NotFoundError (invoice / payment, 404), ValidationFailedError (provider_id, price,
 * idempotency_key, happened_at; 400), InvalidStateTransitionError (validator.status; 400).
 * Other modules learn of it from the payment.created / payment.updated and invoice events recorded
 * in that transaction (the outbox), not from an in-process event.
 */
export class RecordProviderPaymentCommand extends Command<RecordedPayment> {
  constructor(
    readonly scope: Scope,
    readonly report: ProviderPaymentReport,
  ) {
    super();
  }
}
