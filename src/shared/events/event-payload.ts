import type { Mode } from '../auth/request-context';
import { formatTimestamp } from '../time/time';

/** An event as stored by the outbox. */
export interface StoredEvent {
  id: string;
  organization_id: string;
  mode: Mode;
  type: string;
  data: { object: unknown; previous_attributes?: Record<string, unknown> };
  created_at: Date;
}

/**
 * The one wire format of an event: the body of every webhook delivery and the entries of
 * `POST /events`. `data.object` is the resource as of the event; `data.previous_attributes`
 * holds the changed fields' earlier values on updates.
 */
export interface EventPayload {
  id: string;
  type: string;
  created_at: string;
  organization_id: string;
  mode: Mode;
  data: { object: unknown; previous_attributes?: Record<string, unknown> };
}

export function renderEvent(event: StoredEvent): EventPayload {
  const data: EventPayload['data'] = { object: event.data.object };
  if (event.data.previous_attributes) data.previous_attributes = event.data.previous_attributes;
  return {
    id: event.id,
    type: event.type,
    created_at: formatTimestamp(event.created_at),
    organization_id: event.organization_id,
    mode: event.mode,
    data,
  };
}
