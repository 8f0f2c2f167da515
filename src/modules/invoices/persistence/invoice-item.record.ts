import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Mode } from '../../../shared/auth/request-context';
import type { Currency } from '../../../shared/money/currency';
import type { Amount } from '../../../shared/money/money';
import { MONEY_COLUMN } from '../../../shared/money/money.transformer';

export type InvoiceItemType = 'PRODUCT' | 'PAYMENT_INTENT';

@Entity({ name: 'invoice_items' })
export class InvoiceItemRecord {
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text', name: 'organization_id' }) organizationId: string;
  @Column({ type: 'text' }) mode: Mode;
  @Column({ type: 'text', name: 'invoice_id' }) invoiceId: string;
  @Column({ type: 'text' }) type: InvoiceItemType;
  @Column({ type: 'text' }) currency: Currency;
  @Column({ type: 'text', name: 'product_id', nullable: true }) productId: string | null;
  @Column({ type: 'text', name: 'billing_schema_id', nullable: true }) billingSchemaId: string | null;
  @Column({ type: 'text', name: 'payment_intent_id', nullable: true }) paymentIntentId: string | null;
  /** The given price of a PAYMENT_INTENT item; null for PRODUCT items (priced by their schema). */
  @Column({ ...MONEY_COLUMN, nullable: true }) price: Amount | null;
  @Column({ type: 'integer' }) quantity: number;
  /** Order of the item in the creating request. */
  @Column({ type: 'integer' }) position: number;
  @Column({ type: 'text' }) status: string;
  @Column({ type: 'text', name: 'exclude_reason', nullable: true }) excludeReason: string | null;
  /** What the line charges, in words, where the service wrote one (a subscription's period invoice); null otherwise. */
  @Column({ type: 'text', nullable: true }) description: string | null;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'updated_at', nullable: true }) updatedAt: Date | null;
}
