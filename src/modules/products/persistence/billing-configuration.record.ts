import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Mode } from '../../../shared/auth/request-context';
import { MONEY_COLUMN } from '../../../shared/money/money.transformer';
import type { Amount } from '../../../shared/money/money';

/** A usage tier of a billing schema: price per unit of a metric between starts_at and ends_at. */
@Entity({ name: 'billing_configurations' })
export class BillingConfigurationRecord {
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text', name: 'organization_id' }) organizationId: string;
  @Column({ type: 'text' }) mode: Mode;
  @Column({ type: 'text', name: 'schema_id' }) schemaId: string;
  @Column({ type: 'text', name: 'version_group_id' }) versionGroupId: string;
  @Column({ type: 'boolean', name: 'is_active' }) isActive: boolean;
  @Column({ type: 'integer' }) position: number;
  @Column({ ...MONEY_COLUMN, name: 'starts_at' }) startsAt: Amount;
  @Column({ ...MONEY_COLUMN, name: 'ends_at', nullable: true }) endsAt: Amount | null;
  @Column({ ...MONEY_COLUMN, name: 'price_per_unit' }) pricePerUnit: Amount;
  @Column({ type: 'text', name: 'metric_id' }) metricId: string;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'updated_at', nullable: true }) updatedAt: Date | null;
}
