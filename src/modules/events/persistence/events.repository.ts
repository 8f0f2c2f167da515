import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import type { EventCursor } from '../../../shared/events/durable-handlers';
import type { StoredEvent } from '../../../shared/events/event-payload';

export interface EventFilter {
  types?: string[];
  createdFrom?: Date;
  createdTo?: Date;
  objectIds?: string[];
  limit: number;
  offset: number;
}

const COLUMNS = 'id, organization_id, mode, type, data, created_at';

/** Reads the events the outbox wrote; every query is scoped by organization and mode. */
@Injectable()
export class EventsRepository {
  async list(m: EntityManager, scope: Scope, filter: EventFilter): Promise<{ items: StoredEvent[]; total: number }> {
    const where = ['organization_id = $1', 'mode = $2'];
    const params: unknown[] = [scope.organizationId, scope.mode];
    if (filter.types?.length) {
      params.push(filter.types);
      where.push(`type = ANY($${params.length}::text[])`);
    }
    if (filter.objectIds) {
      params.push(filter.objectIds);
      where.push(`(data -> 'object' ->> 'id') = ANY($${params.length}::text[])`);
    }
    if (filter.createdFrom) {
      params.push(filter.createdFrom);
      where.push(`created_at >= $${params.length}`);
    }
    if (filter.createdTo) {
      params.push(filter.createdTo);
      where.push(`created_at <= $${params.length}`);
    }
    const condition = where.join(' AND ');
    const [{ total }] = await m.query(`SELECT count(*)::int AS total FROM events WHERE ${condition}`, params);
    const items: StoredEvent[] = await m.query(
      `SELECT ${COLUMNS} FROM events WHERE ${condition}
        ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, filter.limit, filter.offset],
    );
    return { items, total };
  }

  async find(m: EntityManager, scope: Scope, id: string): Promise<StoredEvent | null> {
    const rows: StoredEvent[] = await m.query(`SELECT ${COLUMNS} FROM events WHERE organization_id = $1 AND mode = $2 AND id = $3`, [
      scope.organizationId,
      scope.mode,
      id,
    ]);
    return rows[0] ?? null;
  }

  /**
   * An event with an id in [lower, upper) at or after `cursor` in commit order (one a durable handler has
   * not read yet), or null: the retention job's check before a month goes (one partition, its commit-order index).
   */
  async firstAfter(m: EntityManager, lower: string, upper: string, cursor: EventCursor): Promise<string | null> {
    const rows: Array<{ id: string }> = await m.query(
      `SELECT id FROM events WHERE id >= $1 AND id < $2 AND (transaction_id, position) > ($3::xid8, $4::bigint) ORDER BY transaction_id, position LIMIT 1`,
      [lower, upper, cursor.transactionId, cursor.position],
    );
    return rows[0]?.id ?? null;
  }
}
