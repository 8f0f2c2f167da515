import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Mode } from '../../../shared/auth/request-context';
import type { Currency } from '../../../shared/money/currency';
import type { Amount } from '../../../shared/money/money';
import { MONEY_COLUMN } from '../../../shared/money/money.transformer';

@Entity({ name: 'invoice_calculations' })
export class InvoiceCalculationRecord {
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text', name: 'organization_id' }) organizationId: string;
  @Column({ type: 'text' }) mode: Mode;
  @Column({ type: 'text', name: 'invoice_id' }) invoiceId: string;
  /** Null for the TOTAL and TOTAL_USD lines. */
  @Column({ type: 'text', name: 'invoice_item_id', nullable: true }) invoiceItemId: string | null;
  @Column({ type: 'text' }) title: string;
  @Column({ type: 'text', name: 'calculation_type' }) calculationType: string;
  @Column({ type: 'integer' }) idx: number;
  /** Read order: items in request order and their steps by idx, then the totals. */
  @Column({ type: 'integer' }) position: number;
  @Column({ type: 'text' }) currency: Currency;
  @Column({ ...MONEY_COLUMN, name: 'initial_price' }) initialPrice: Amount;
  @Column({ ...MONEY_COLUMN, name: 'price_delta' }) priceDelta: Amount;
  @Column({ ...MONEY_COLUMN }) price: Amount;
  @Column({ type: 'jsonb' }) details: object;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'updated_at', nullable: true }) updatedAt: Date | null;
}
