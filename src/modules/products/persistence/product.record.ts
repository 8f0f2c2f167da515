import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Mode } from '../../../shared/auth/request-context';

@Entity({ name: 'products' })
export class ProductRecord {
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text', name: 'organization_id' }) organizationId: string;
  @Column({ type: 'text' }) mode: Mode;
  @Column({ type: 'text', name: 'version_group_id' }) versionGroupId: string;
  @Column({ type: 'integer' }) version: number;
  @Column({ type: 'boolean', name: 'is_active' }) isActive: boolean;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text' }) description: string;
  @Column({ type: 'text', name: 'image_id', nullable: true }) imageId: string | null;
  @Column({ type: 'jsonb' }) metadata: Record<string, string>;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'updated_at', nullable: true }) updatedAt: Date | null;
}
