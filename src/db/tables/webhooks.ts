import type { ColumnType, Generated } from 'kysely';

/** Table types of the events and webhooks migrations (0500..0599). Kept by hand beside the SQL they describe. */
type Timestamp = ColumnType<Date, Date, Date>;

export interface EventsTable {
  id: string;
  workspace_id: string;
  type: string;
  data: ColumnType<unknown, string, string>;
  created_at: Timestamp;
}

export interface WebhookEndpointsTable {
  id: string;
  workspace_id: string;
  url: string;
  description: string | null;
  event_types: string[];
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Timestamp | null;
  is_active: Generated<boolean>;
  disabled_reason: 'gone' | 'failing' | null;
  consecutive_failures: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AttemptLogEntry {
  at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

export interface WebhookDeliveriesTable {
  id: string;
  workspace_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  status: Generated<'pending' | 'succeeded' | 'failed'>;
  attempts: Generated<number>;
  next_attempt_at: Timestamp | null;
  last_status_code: number | null;
  last_error: string | null;
  attempt_log: ColumnType<AttemptLogEntry[], string | undefined, string>;
  created_at: Timestamp;
  succeeded_at: Timestamp | null;
}

export interface WebhooksTables {
  events: EventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}
