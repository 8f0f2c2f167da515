import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Mode } from '../../../shared/auth/request-context';
import type { Currency } from '../../../shared/money/currency';
import type { Amount } from '../../../shared/money/money';
import { MONEY_COLUMN } from '../../../shared/money/money.transformer';
import type { InvoiceStatus, InvoiceSubstatus } from '../domain/invoice-status';

@Entity({ name: 'invoices' })
export class InvoiceRecord {
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text', name: 'organization_id' }) organizationId: string;
  @Column({ type: 'text' }) mode: Mode;
  @Column({ type: 'text' }) status: InvoiceStatus;
  @Column({ type: 'text', nullable: true }) substatus: InvoiceSubstatus | null;
  @Column({ type: 'text' }) currency: Currency;
  @Column({ ...MONEY_COLUMN }) price: Amount;
  @Column({ ...MONEY_COLUMN, name: 'price_usd' }) priceUsd: Amount;
  /** USD value of the invoice's COMPLETED refunds, kept by SetInvoiceRefundedCommand (the refunds module); absent on an invoice not read back yet: 0. */
  @Column({ ...MONEY_COLUMN, name: 'refunded_usd' }) refundedUsd?: Amount;
  @Column({ type: 'text', name: 'customer_email', nullable: true }) customerEmail: string | null;
  @Column({ type: 'jsonb' }) metadata: Record<string, string>;
  @Column({ type: 'text', name: 'redirect_url', nullable: true }) redirectUrl: string | null;
  @Column({ type: 'text', name: 'rates_snapshot_id', nullable: true }) ratesSnapshotId: string | null;
  @Column({ type: 'timestamptz', name: 'rates_taken_at', nullable: true }) ratesTakenAt: Date | null;
  /** Until when the quoted rates hold and a payment is expected; null (older invoices) never expires. */
  @Column({ type: 'timestamptz', name: 'expires_at', nullable: true }) expiresAt: Date | null;
  /**
   * Set when a chain reorg took a payment off the chain and the invoice fell back to PENDING: the clock does not void
   * it before this instant (the transaction may be mined again). Null (or absent) otherwise.
   */
  @Column({ type: 'timestamptz', name: 'clock_held_until', nullable: true }) clockHeldUntil?: Date | null;
  /** A subscription's period invoice (decisions §20): the subscription and the period it bills; null (or absent) on other invoices. */
  @Column({ type: 'text', name: 'subscription_id', nullable: true }) subscriptionId?: string | null;
  @Column({ type: 'timestamptz', name: 'period_start', nullable: true }) periodStart?: Date | null;
  @Column({ type: 'timestamptz', name: 'period_end', nullable: true }) periodEnd?: Date | null;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'updated_at' }) updatedAt: Date;
}
