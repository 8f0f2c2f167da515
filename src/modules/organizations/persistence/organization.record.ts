import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'organizations' })
export class OrganizationRecord {
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text', name: 'image_url', nullable: true }) imageUrl: string | null;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt: Date;
}
