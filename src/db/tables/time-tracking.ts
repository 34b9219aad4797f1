import type { ColumnType } from 'kysely';

/** Table types of migration 1000 (planning and time tracking). */
type Timestamp = ColumnType<Date, Date, Date>;

export interface WorklogsTable {
  id: string;
  workspace_id: string;
  issue_id: string;
  /** The issue's project (issues never change project): the timesheet reads worklogs alone. */
  project_id: string;
  user_id: string;
  started_at: Timestamp;
  duration_minutes: number;
  note: ColumnType<string, string | undefined, string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One running timer per member of a workspace. */
export interface TimersTable {
  workspace_id: string;
  user_id: string;
  issue_id: string;
  started_at: Timestamp;
}

export interface TimeTrackingTables {
  worklogs: WorklogsTable;
  timers: TimersTable;
}
