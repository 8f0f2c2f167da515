import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Mode } from '../../../shared/auth/request-context';

/** An organization's choice for one catalog provider in one mode; no row means enabled. */
@Entity({ name: 'provider_settings' })
export class ProviderSettingRecord {
  @PrimaryColumn({ type: 'text', name: 'organization_id' }) organizationId: string;
  @PrimaryColumn({ type: 'text' }) mode: Mode;
  @PrimaryColumn({ type: 'text', name: 'provider_id' }) providerId: string;
  @Column({ type: 'boolean' }) enabled: boolean;
  /** Override of the catalog's required confirmations; null = the catalog's. */
  @Column({ type: 'integer', name: 'required_confirmations', nullable: true }) requiredConfirmations: number | null;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'updated_at' }) updatedAt: Date;
}
