import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Mode } from '../../../shared/auth/request-context';

@Entity({ name: 'api_keys' })
export class ApiKeyRecord {
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text', name: 'organization_id' }) organizationId: string;
  @Column({ type: 'text' }) mode: Mode;
  @Column({ type: 'text', name: 'key_hash' }) keyHash: string;
  @Column({ type: 'text' }) prefix: string;
  @Column({ type: 'boolean', name: 'read_only' }) readOnly: boolean;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'revoked_at', nullable: true }) revokedAt: Date | null;
  /** A label people give the key (empty when none). */
  @Column({ type: 'text' }) name: string;
  /** Set by a roll: the end of the old key's grace period, after which it is refused. */
  @Column({ type: 'timestamptz', name: 'expires_at', nullable: true }) expiresAt: Date | null;
  /** Set by a roll: the key that replaced this one. */
  @Column({ type: 'text', name: 'rolled_to', nullable: true }) rolledTo: string | null;
}
