import { Injectable } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import type { FileType } from '../domain/file-kind';
import { likePattern } from '../domain/file-name';
import { FileRecord } from './file.record';

export interface FileFilters {
  search?: string;
  type?: FileType;
}

@Injectable()
export class FilesRepository {
  async insert(m: EntityManager, file: FileRecord): Promise<void> {
    await m.insert(FileRecord, file);
  }

  find(m: EntityManager, scope: Scope, id: string, lock = false): Promise<FileRecord | null> {
    return m.findOne(FileRecord, {
      where: { id, organizationId: scope.organizationId, mode: scope.mode },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
  }

  /** `share`: inside a transaction, keeps the files from being deleted until it ends. */
  findMany(m: EntityManager, scope: Scope, ids: readonly string[], share = false): Promise<FileRecord[]> {
    return m.find(FileRecord, {
      where: { id: In([...ids]), organizationId: scope.organizationId, mode: scope.mode },
      ...(share ? { lock: { mode: 'pessimistic_read' as const } } : {}),
    });
  }

  async remove(m: EntityManager, scope: Scope, id: string): Promise<void> {
    await m.delete(FileRecord, { id, organizationId: scope.organizationId, mode: scope.mode });
  }

  async list(m: EntityManager, scope: Scope, filters: FileFilters, limit: number, offset: number): Promise<{ items: FileRecord[]; total: number }> {
    const qb = m.createQueryBuilder(FileRecord, 'f').where('f.organization_id = :org AND f.mode = :mode', { org: scope.organizationId, mode: scope.mode });
    if (filters.search) qb.andWhere(`f.name ILIKE :pattern ESCAPE '\\'`, { pattern: likePattern(filters.search) });
    if (filters.type) qb.andWhere('f.type = :type', { type: filters.type });
    const total = await qb.getCount();
    const items = total > offset ? await qb.orderBy('f.created_at', 'DESC').addOrderBy('f.id', 'DESC').limit(limit).offset(offset).getMany() : [];
    return { items, total };
  }
}
