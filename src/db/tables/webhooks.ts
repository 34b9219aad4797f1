import type { ColumnType } from 'kysely';

/** Table types of the events and webhooks migrations (0500..0599). Kept by hand beside the SQL they describe. */
type Timestamp = ColumnType<Date, Date, Date>;

export interface EventsTable {
  id: string;
  workspace_id: string;
  type: string;
  data: ColumnType<unknown, string, string>;
  created_at: Timestamp;
}

export interface WebhooksTables {
  events: EventsTable;
}
