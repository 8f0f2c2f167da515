import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { Currency } from '../../../../shared/money/currency';

/** `description`: what the line charges, in words, stored on the item (a subscription's period invoice writes one). */
export type CreateItemInput = (
  { type: 'PRODUCT'; product_id: string; billing_schema_id: string; quantity: number } | { type: 'PAYMENT_INTENT'; currency: Currency; price: string }
) & { description?: string | null };

export interface CreateInvoiceInput {
  items: CreateItemInput[];
  currency: Currency | null;
  customerEmail: string | null;
  metadata: Record<string, string>;
  redirectUrl: string | null;
  /** Default INVOICE_EXPIRY_MINUTES. */
  expiresInMinutes?: number | null;
  /**
   * A subscription's period invoice (sent by the subscriptions module): stored on the invoice and
   * unique per subscription and period start. Creating it again answers the existing invoice's id
   * (with `created` false) instead of a second invoice.
   */
  subscription?: SubscriptionPeriodInput | null;
}

export interface SubscriptionPeriodInput {
  subscriptionId: string;
  periodStart: Date;
  periodEnd: Date;
}

/** Prices the items (CalculatePricesQuery) and writes the invoice, its items and calculation lines at once. */
export class CreateInvoiceCommand extends Command<{ id: string; created?: boolean }> {
  constructor(
    readonly scope: Scope,
    readonly input: CreateInvoiceInput,
  ) {
    super();
  }
}
