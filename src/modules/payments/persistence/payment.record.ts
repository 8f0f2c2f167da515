import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Mode } from '../../../shared/auth/request-context';
import type { Currency } from '../../../shared/money/currency';
import type { Amount } from '../../../shared/money/money';
import { MONEY_COLUMN } from '../../../shared/money/money.transformer';
import type { PaymentStatus } from '../domain/payment-status';

@Entity({ name: 'payments' })
export class PaymentRecord {
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text', name: 'organization_id' }) organizationId: string;
  @Column({ type: 'text' }) mode: Mode;
  @Column({ type: 'text', name: 'provider_id' }) providerId: string;
  @Column({ type: 'text', name: 'invoice_id', nullable: true }) invoiceId: string | null;
  @Column({ type: 'text' }) currency: Currency;
  @Column({ ...MONEY_COLUMN }) price: Amount;
  @Column({ ...MONEY_COLUMN, name: 'price_usd' }) priceUsd: Amount;
  @Column({ type: 'text', name: 'rates_snapshot_id' }) ratesSnapshotId: string;
  @Column({ type: 'text' }) status: PaymentStatus;
  @Column({ type: 'text', name: 'idempotency_key', nullable: true }) idempotencyKey: string | null;
  /** Blocks the payment is buried under, as last reported (never decreases). */
  @Column({ type: 'integer' }) confirmations: number;
  /** Confirmations it needs to count (fixed when first reported; 0 for fiat). */
  @Column({ type: 'integer', name: 'required_confirmations' }) requiredConfirmations: number;
  @Column({ type: 'timestamptz', name: 'happened_at' }) happenedAt: Date;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'updated_at' }) updatedAt: Date;
}
