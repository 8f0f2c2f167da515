import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Mode } from '../../../shared/auth/request-context';
import type { Currency } from '../../../shared/money/currency';
import { MONEY_COLUMN } from '../../../shared/money/money.transformer';
import type { Amount } from '../../../shared/money/money';
import type { BillingType, IntervalType, PaymentType, RenewType, SchemaType } from '../domain/catalog-rules';

@Entity({ name: 'billing_schemas' })
export class BillingSchemaRecord {
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text', name: 'organization_id' }) organizationId: string;
  @Column({ type: 'text' }) mode: Mode;
  @Column({ type: 'text', name: 'product_id' }) productId: string;
  @Column({ type: 'text', name: 'version_group_id' }) versionGroupId: string;
  @Column({ type: 'boolean', name: 'is_active' }) isActive: boolean;
  @Column({ type: 'integer' }) position: number;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text' }) description: string;
  @Column({ type: 'text' }) type: SchemaType;
  @Column({ type: 'text' }) currency: Currency;
  @Column({ ...MONEY_COLUMN, name: 'base_price' }) basePrice: Amount;
  @Column({ type: 'text', name: 'interval_type', nullable: true }) intervalType: IntervalType | null;
  @Column({ type: 'integer', name: 'interval_count', nullable: true }) intervalCount: number | null;
  @Column({ type: 'text', name: 'payment_type', nullable: true }) paymentType: PaymentType | null;
  @Column({ type: 'text', name: 'renew_type', nullable: true }) renewType: RenewType | null;
  @Column({ type: 'text', name: 'billing_type', nullable: true }) billingType: BillingType | null;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'updated_at', nullable: true }) updatedAt: Date | null;
}
