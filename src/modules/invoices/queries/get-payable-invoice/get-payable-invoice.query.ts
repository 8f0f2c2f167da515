import { Query } from '@nestjs/cqrs';
import type { Mode } from '../../../../shared/auth/request-context';
import type { Currency } from '../../../../shared/money/currency';
import type { Amount } from '../../../../shared/money/money';
import type { InvoiceStatus, InvoiceSubstatus } from '../../domain/invoice-status';
import type { InvoiceAccess } from '../../persistence/invoices.repository';

/** The facts about an invoice that paying it needs, with its own scope (organization and mode). */
export interface PayableInvoice {
  id: string;
  organizationId: string;
  mode: Mode;
  status: InvoiceStatus;
  substatus: InvoiceSubstatus | null;
  currency: Currency;
  price: Amount;
  priceUsd: Amount;
  /** Until when the quoted rates hold and a payment is expected (null: never expires). */
  expiresAt: Date | null;
  /** Until when a payment is still watched for after expiry (null: never expires). */
  monitoringUntil: Date | null;
  /** When the calculation's rates were taken (the rates a payment up to expiresAt is valued at). */
  ratesTakenAt: Date | null;
  /** The rates snapshot of the calculations. */
  ratesSnapshotId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * An invoice as payments and providers see it. `access` null = a payer without a key: the id alone
 * finds it (decisions §3). Null when it is not there (callers answer 404).
 */
export class GetPayableInvoiceQuery extends Query<PayableInvoice | null> {
  constructor(
    readonly access: InvoiceAccess,
    readonly invoiceId: string,
  ) {
    super();
  }
}
