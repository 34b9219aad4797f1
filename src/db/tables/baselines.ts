import type { ColumnType, Generated } from 'kysely';
import type { Priority, StateGroup } from '../../kernel/work-items.js';

/** Table types of the baselines migrations (0300, 0810, 1010). Kept by hand beside the SQL they describe. */
type Timestamp = ColumnType<Date, Date, Date>;
type Count = Generated<number>;

export interface BaselinesTable {
  id: string;
  workspace_id: string;
  project_id: string;
  name: string;
  total_issues: Count;
  completed_issues: Count;
  state_backlog: Count;
  state_unstarted: Count;
  state_started: Count;
  state_completed: Count;
  state_cancelled: Count;
  priority_urgent: Count;
  priority_high: Count;
  priority_medium: Count;
  priority_low: Count;
  priority_none: Count;
  snapshot_at: Timestamp;
  created_by: string;
  created_at: Timestamp;
  schedule_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Migration 1010: null on a baseline written before it (figures not recorded), else set by the snapshot. */
  planned_finish: ColumnType<string | null, string | null | undefined, string | null>;
  total_estimate_minutes: ColumnType<number | null, number | null | undefined, number | null>;
  total_time_spent_minutes: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface BaselineSchedulesTable {
  id: string;
  workspace_id: string;
  project_id: string;
  name_prefix: string;
  every: 'day' | 'week';
  weekday: 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun' | null;
  at: string;
  time_zone: string;
  keep_last: number;
  next_run_at: Timestamp;
  created_by: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One row per issue of the project at snapshot time (no foreign key to issues: removed issues stay described). */
export interface BaselineItemsTable {
  workspace_id: string;
  baseline_id: string;
  issue_id: string;
  sequence_id: number;
  name: string;
  state_group: StateGroup;
  priority: Priority;
  /** Migration 1010 (`YYYY-MM-DD`); time_spent_minutes is null only on items written before it. */
  start_date: ColumnType<string | null, string | null | undefined, never>;
  target_date: ColumnType<string | null, string | null | undefined, never>;
  estimate_minutes: ColumnType<number | null, number | null | undefined, never>;
  time_spent_minutes: ColumnType<number | null, number | null | undefined, never>;
}

export interface BaselinesTables {
  baseline_schedules: BaselineSchedulesTable;
  baselines: BaselinesTable;
  baseline_items: BaselineItemsTable;
}
