import type { AttemptLogEntry } from '../../db/tables/webhooks.js';
import { iso, isoOrNull } from '../../kernel/time.js';

/** Row -> API record mappers of the webhooks module (the routes answer with these, nothing else). */

export interface EndpointRow {
  id: string;
  workspace_id: string;
  url: string;
  description: string | null;
  event_types: string[];
  is_active: boolean;
  disabled_reason: 'gone' | 'failing' | null;
  created_at: Date;
  updated_at: Date;
}

export const endpointView = (e: EndpointRow) => ({
  id: e.id,
  workspace_id: e.workspace_id,
  url: e.url,
  description: e.description,
  event_types: e.event_types,
  is_active: e.is_active,
  disabled_reason: e.disabled_reason,
  created_at: iso(e.created_at),
  updated_at: iso(e.updated_at),
});

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  succeeded_at: Date | null;
}

export const deliveryView = (d: DeliveryRow) => ({
  id: d.id,
  webhook_id: d.webhook_id,
  event_id: d.event_id,
  event_type: d.event_type,
  status: d.status,
  attempts: d.attempts,
  next_attempt_at: isoOrNull(d.next_attempt_at),
  last_status_code: d.last_status_code,
  last_error: d.last_error,
  created_at: iso(d.created_at),
  succeeded_at: isoOrNull(d.succeeded_at),
});

/** The body of every attempt of an event: the same bytes each time, so retries and redeliveries verify alike. */
export function eventBody(event: { id: string; type: string; created_at: Date; workspace_id: string; data: unknown }): string {
  return JSON.stringify({ id: event.id, type: event.type, timestamp: iso(event.created_at), workspace_id: event.workspace_id, data: event.data });
}

export const deliveryDetailView = (d: DeliveryRow & { workspace_id: string; attempt_log: AttemptLogEntry[]; event_data: unknown; event_created_at: Date }) => ({
  ...deliveryView(d),
  payload: JSON.parse(
    eventBody({ id: d.event_id, type: d.event_type, created_at: d.event_created_at, workspace_id: d.workspace_id, data: d.event_data }),
  ) as unknown,
  attempt_log: d.attempt_log,
});
