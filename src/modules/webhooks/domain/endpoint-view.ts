import { formatTimestamp } from '../../../shared/time/time';

/** A webhook endpoint as the API shows it (the secret only on creation and rotation). */
export interface EndpointView {
  id: string;
  url: string;
  description: string | null;
  event_types: string[];
  enabled: boolean;
  disabled_reason: string | null;
  consecutive_failures: number;
  created_at: string;
  updated_at: string;
}

export interface EndpointWithSecret extends EndpointView {
  secret: string;
}

export function renderEndpoint(row: {
  id: string;
  url: string;
  description: string | null;
  event_types: string[];
  enabled: boolean;
  disabled_reason: string | null;
  consecutive_failures: number;
  created_at: Date;
  updated_at: Date;
}): EndpointView {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: [...row.event_types],
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    consecutive_failures: row.consecutive_failures,
    created_at: formatTimestamp(row.created_at),
    updated_at: formatTimestamp(row.updated_at),
  };
}

export interface AttemptViewOut {
  id: string;
  delivery_id: string;
  event_id: string;
  event_type: string;
  attempt_number: number;
  url: string;
  succeeded: boolean;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number;
  next_attempt_at: string | null;
  created_at: string;
}

export function renderAttempt(row: {
  id: string;
  delivery_id: string;
  event_id: string;
  event_type: string;
  attempt_number: number;
  url: string;
  succeeded: boolean;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number;
  next_attempt_at: Date | null;
  created_at: Date;
}): AttemptViewOut {
  return {
    id: row.id,
    delivery_id: row.delivery_id,
    event_id: row.event_id,
    event_type: row.event_type,
    attempt_number: row.attempt_number,
    url: row.url,
    succeeded: row.succeeded,
    response_status: row.response_status,
    response_body: row.response_body,
    error: row.error,
    duration_ms: row.duration_ms,
    next_attempt_at: formatTimestamp(row.next_attempt_at),
    created_at: formatTimestamp(row.created_at),
  };
}
