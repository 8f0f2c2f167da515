import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Mode } from '../../../shared/auth/request-context';
import type { Currency } from '../../../shared/money/currency';
import type { Amount } from '../../../shared/money/money';
import { MONEY_COLUMN } from '../../../shared/money/money.transformer';
import type { SubscriptionStatus } from '../domain/billing';
import type { BillingType, IntervalType, PaymentType, RenewType } from '../domain/periods';

/** A subscription with the recurring terms of its schema, copied at creation. */
@Entity({ name: 'subscriptions' })
export class SubscriptionRecord {
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text', name: 'organization_id' }) organizationId: string;
  @Column({ type: 'text' }) mode: Mode;
  @Column({ type: 'text', name: 'product_id' }) productId: string;
  @Column({ type: 'text', name: 'billing_schema_id' }) billingSchemaId: string;
  @Column({ type: 'text', name: 'customer_email' }) customerEmail: string;
  @Column({ type: 'text', name: 'customer_name', nullable: true }) customerName: string | null;
  @Column({ type: 'integer' }) quantity: number;
  @Column({ type: 'jsonb' }) metadata: Record<string, string>;
  @Column({ type: 'text' }) status: SubscriptionStatus;
  @Column({ type: 'text' }) currency: Currency;
  @Column({ ...MONEY_COLUMN, name: 'base_price' }) basePrice: Amount;
  @Column({ type: 'text', name: 'interval_type' }) intervalType: IntervalType;
  @Column({ type: 'integer', name: 'interval_count' }) intervalCount: number;
  @Column({ type: 'text', name: 'payment_type' }) paymentType: PaymentType;
  @Column({ type: 'text', name: 'renew_type' }) renewType: RenewType;
  @Column({ type: 'text', name: 'billing_type' }) billingType: BillingType;
  @Column({ type: 'timestamptz', name: 'starts_at' }) startsAt: Date;
  @Column({ type: 'integer', name: 'current_period_index' }) currentPeriodIndex: number;
  @Column({ type: 'timestamptz', name: 'current_period_start' }) currentPeriodStart: Date;
  @Column({ type: 'timestamptz', name: 'current_period_end' }) currentPeriodEnd: Date;
  /** The next period invoice to issue and when it is due (null: nothing more to bill). */
  @Column({ type: 'integer', name: 'next_invoice_index' }) nextInvoiceIndex: number;
  @Column({ type: 'timestamptz', name: 'next_invoice_at', nullable: true }) nextInvoiceAt: Date | null;
  /** The last period invoice issued (null before the first). */
  @Column({ type: 'text', name: 'latest_invoice_id', nullable: true }) latestInvoiceId: string | null;
  @Column({ type: 'boolean', name: 'cancel_at_period_end' }) cancelAtPeriodEnd: boolean;
  @Column({ type: 'timestamptz', name: 'canceled_at', nullable: true }) canceledAt: Date | null;
  @Column({ type: 'integer', name: 'unpaid_periods' }) unpaidPeriods: number;
  @Column({ type: 'integer', name: 'last_unpaid_index' }) lastUnpaidIndex: number;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'updated_at' }) updatedAt: Date;
}

/**
 * A period whose invoice fell due: the invoice once issued (null until then; a period whose invoice
 * could not be made yet is tried again from `retryAt`), and once decided, its outcome.
 */
@Entity({ name: 'subscription_invoices' })
export class SubscriptionInvoiceRecord {
  @PrimaryColumn({ type: 'text', name: 'subscription_id' }) subscriptionId: string;
  @PrimaryColumn({ type: 'timestamptz', name: 'period_start' }) periodStart: Date;
  @Column({ type: 'timestamptz', name: 'period_end' }) periodEnd: Date;
  @Column({ type: 'integer', name: 'period_index' }) periodIndex: number;
  @Column({ type: 'text', name: 'organization_id' }) organizationId: string;
  @Column({ type: 'text' }) mode: Mode;
  @Column({ type: 'text', name: 'invoice_id', nullable: true }) invoiceId: string | null;
  @Column({ type: 'text', nullable: true }) outcome: 'paid' | 'unpaid' | null;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt: Date;
  @Column({ type: 'integer' }) attempts: number;
  @Column({ type: 'text', name: 'last_error', nullable: true }) lastError: string | null;
  @Column({ type: 'timestamptz', name: 'retry_at', nullable: true }) retryAt: Date | null;
  /** The final usage invoice of an ADVANCE subscription canceled at period end (domain/billing.ts `finalUsagePlan`). */
  @Column({ type: 'boolean', name: 'final_usage', default: false }) finalUsage: boolean;
}
