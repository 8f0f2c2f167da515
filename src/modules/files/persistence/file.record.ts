import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Mode } from '../../../shared/auth/request-context';
import type { FileType } from '../domain/file-kind';

/** File sizes fit a JS number exactly (well below 2^53); PostgreSQL returns bigint as text. */
const BIGINT_SIZE = { to: (v: number) => v, from: (v: string | number) => Number(v) };

@Entity({ name: 'files' })
export class FileRecord {
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text', name: 'organization_id' }) organizationId: string;
  @Column({ type: 'text' }) mode: Mode;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text' }) type: FileType;
  @Column({ type: 'text', name: 'mime_type' }) mimeType: string;
  @Column({ type: 'bigint', transformer: BIGINT_SIZE }) size: number;
  @Column({ type: 'text' }) sha256: string;
  @Column({ type: 'text', name: 'storage_driver' }) storageDriver: 'local' | 's3';
  @Column({ type: 'text', name: 'storage_key' }) storageKey: string;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt: Date;
}
