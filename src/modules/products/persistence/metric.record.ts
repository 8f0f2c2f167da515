import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Mode } from '../../../shared/auth/request-context';
import type { AggregationType } from '../domain/catalog-rules';

/** A usage metric of an organization and mode, found by its metric_key. */
@Entity({ name: 'metrics' })
export class MetricRecord {
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text', name: 'organization_id' }) organizationId: string;
  @Column({ type: 'text' }) mode: Mode;
  @Column({ type: 'text', name: 'metric_key' }) metricKey: string;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text', name: 'aggregation_type' }) aggregationType: AggregationType;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'updated_at', nullable: true }) updatedAt: Date | null;
}
