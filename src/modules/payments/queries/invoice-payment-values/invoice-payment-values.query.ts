import { Query } from '@nestjs/cqrs';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../../shared/auth/request-context';
import type { Currency } from '../../../../shared/money/currency';
import type { Amount } from '../../../../shared/money/money';
import type { PaymentStatus } from '../../domain/payment-status';

/** What one payment of an invoice is worth and at which rates it was valued. */
export interface PaymentValue {
  status: PaymentStatus;
  /** What it was paid in. */
  currency: Currency;
  priceUsd: Amount;
  /** The rates snapshot its `price_usd` was computed at. */
  ratesSnapshotId: string;
  happenedAt: Date;
}

/**
 * The values of an invoice's payments, oldest first, in the caller's scope (an unknown invoice has
 * none): what a refund measures against. `unitOfWork`: the caller's transaction, so the read sees what
 * its locks hold and takes no second connection from the pool.
 */
export class InvoicePaymentValuesQuery extends Query<PaymentValue[]> {
  constructor(
    readonly scope: Scope,
    readonly invoiceId: string,
    readonly unitOfWork?: EntityManager,
  ) {
    super();
  }
}
