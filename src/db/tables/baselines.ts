import type { ColumnType, Generated } from 'kysely';
import type { Priority, StateGroup } from '../../kernel/work-items.js';

/** Table types of the baselines migration (0300). Kept by hand beside the SQL they describe. */
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
}

export interface BaselinesTables {
  baseline_schedules: BaselineSchedulesTable;
  baselines: BaselinesTable;
  baseline_items: BaselineItemsTable;
}
