import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import { EventOutbox } from '../../../shared/events/outbox';
import { refundView } from '../dto/refund.views';
import { type RefundEventType, REFUND_EVENTS } from '../events/refund.events';
import type { RefundRow } from '../persistence/refunds.repository';

/**
 * The refunds' events, recorded in the writer's transaction with the refund as the merchant's API
 * renders it: refund.created; refund.updated for every later change (destination given, payout
 * reported, confirmations, expiry), with the earlier values of the changed fields; refund.completed
 * and refund.canceled for those two moves.
 */
@Injectable()
export class RefundEvents {
  constructor(@Inject(EventOutbox) private readonly outbox: EventOutbox) {}

  async created(m: EntityManager, refund: RefundRow): Promise<void> {
    await this.outbox.record(m, scopeOfRow(refund), REFUND_EVENTS['refund.created'], refundView(refund));
  }

  async changed(m: EntityManager, before: RefundRow, after: RefundRow): Promise<void> {
    const type: RefundEventType =
      after.status !== before.status && after.status === 'COMPLETED'
        ? 'refund.completed'
        : after.status !== before.status && after.status === 'CANCELED'
          ? 'refund.canceled'
          : 'refund.updated';
    const was = refundView(before) as unknown as Record<string, unknown>;
    const view = refundView(after);
    const now = view as unknown as Record<string, unknown>;
    const previous: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(was)) if (JSON.stringify(value) !== JSON.stringify(now[key])) previous[key] = value;
    await this.outbox.record(m, scopeOfRow(after), REFUND_EVENTS[type], view, { previousAttributes: previous });
  }
}

export function scopeOfRow(r: RefundRow): Scope {
  return { organizationId: r.organization_id as Scope['organizationId'], mode: r.mode };
}
