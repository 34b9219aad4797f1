import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date, Date>;

/** Migration 1091: saved views (contract 23.3). `filters` maps a list filter to its values. */
export interface SavedViewsTable {
  id: string;
  workspace_id: string;
  project_id: string | null;
  owner_id: string;
  name: string;
  filters: ColumnType<Record<string, string[]>, string, string>;
  order_by: string | null;
  shared: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SavedViewsTables {
  saved_views: SavedViewsTable;
}
