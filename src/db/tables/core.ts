import type { ColumnType, Generated } from 'kysely';
import type { Priority, StateGroup } from '../../kernel/work-items.js';

/** Table types of the core migration (0001). Kept by hand beside the SQL they describe. */
type Timestamp = ColumnType<Date, Date, Date>;

export interface UsersTable {
  id: string;
  email: string;
  display_name: string;
  password_hash: string;
  is_instance_admin: Generated<boolean>;
  /** Migration 1096: IANA time zone (the mail digest's hour is read in it). */
  time_zone: Generated<string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ApiTokensTable {
  id: string;
  user_id: string;
  kind: 'session' | 'personal';
  name: string;
  token_hash: string;
  prefix: string;
  created_at: Timestamp;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export interface WorkspacesTable {
  id: string;
  slug: string;
  name: string;
  created_by: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Migration 1000: IANA zone of "today" and every day boundary of planning and timesheets. */
  time_zone: Generated<string>;
  /** Migration 1092: the text search language of the workspace's search (contract 23.1). */
  search_language: Generated<string>;
  /** Migration 1092: the language every search document of the workspace is built in (the `search.reindex` duty). */
  search_language_built: Generated<string>;
}

export interface WorkspaceMembersTable {
  workspace_id: string;
  user_id: string;
  role: 'admin' | 'member' | 'guest';
  created_at: Timestamp;
}

export interface ProjectsTable {
  id: string;
  workspace_id: string;
  name: string;
  identifier: string;
  description: Generated<string>;
  sla_policy_id: string | null;
  issue_seq: Generated<number>;
  /** Migration 1070: the project's issues, kept by triggers on issues (the issue list's unfiltered total). */
  issue_count: ColumnType<number, never, never>;
  created_by: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface StatesTable {
  id: string;
  workspace_id: string;
  project_id: string;
  name: string;
  group: StateGroup;
  color: string;
  sequence: number;
  is_default: Generated<boolean>;
  /** Migration 0600 (SLA): the SLA clock stops while an issue is in this state. */
  pauses_sla: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface IssuesTable {
  id: string;
  workspace_id: string;
  project_id: string;
  /** Migration 1103: taken from the project's counter by a trigger when an insert gives none. */
  sequence_id: Generated<number>;
  name: string;
  description: Generated<string>;
  state_id: string;
  state_group: StateGroup;
  priority: Priority;
  assignee_ids: ColumnType<string[], string[] | undefined, string[]>;
  created_by: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  completed_at: Date | null;
  /** Migration 1000 (planning): dates are `YYYY-MM-DD` strings (the DATE type parser of database.ts). */
  start_date: ColumnType<string | null, string | null | undefined, string | null>;
  target_date: ColumnType<string | null, string | null | undefined, string | null>;
  estimate_minutes: ColumnType<number | null, number | null | undefined, number | null>;
  /** Stored as the user set it; null reads as max(0, estimate - spent). */
  remaining_minutes: ColumnType<number | null, number | null | undefined, number | null>;
  /** The sum of the issue's worklogs, kept by the time-tracking module in the transaction of each worklog write. */
  time_spent_minutes: Generated<number>;
  /** Migration 1080 (contract 24): the issue's labels, sorted; its parent (same project), or null. */
  label_ids: ColumnType<string[], string[] | undefined, string[]>;
  parent_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Migration 1080: labels of a project (contract 24.1). */
export interface LabelsTable {
  id: string;
  workspace_id: string;
  project_id: string;
  name: string;
  /** The name folded for uniqueness ignoring case (`nameKey`). */
  name_key: string;
  color: string;
  description: Generated<string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Migration 1080: +1/-1 per change of an issue's labels, written by triggers; summed per label, folded by a job. */
export interface LabelIssueCountsTable {
  label_id: string;
  n: ColumnType<number, number, never>;
}

/**
 * Migration 1090 (contract 23.2): how many issues each combination of project, state, priority and creator holds
 * (`by_assignee` false, `assignee_id` the nil UUID), and how many of them each member is assigned to (`by_assignee`
 * true; the nil UUID: no assignee). Written only by the `issues.counts` job, from `issue_count_changes`.
 */
export interface IssueCountsTable {
  workspace_id: string;
  by_assignee: boolean;
  assignee_id: string;
  project_id: string;
  state_id: string;
  state_group: StateGroup;
  priority: Priority;
  created_by: string;
  n: number;
}

/** Migration 1090: the +1/-1 rows of each change to those counts, appended by triggers on issues. */
export interface IssueCountChangesTable {
  workspace_id: string;
  by_assignee: boolean;
  assignee_id: string;
  project_id: string;
  state_id: string;
  state_group: StateGroup;
  priority: Priority;
  created_by: string;
  n: ColumnType<number, number, never>;
}

/** Migration 1080: a relation stored once, `issue_id <type> related_issue_id` (contract 24.3). */
export interface IssueRelationsTable {
  id: string;
  workspace_id: string;
  issue_id: string;
  related_issue_id: string;
  type: 'blocks' | 'duplicate_of' | 'relates_to';
  created_by: string | null;
  created_at: Timestamp;
}

export interface CommentsTable {
  id: string;
  workspace_id: string;
  issue_id: string;
  author_id: string;
  body: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Migration 1093: set when the author edits the comment (contract 25.1); null on one never edited. */
  edited_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface CoreTables {
  users: UsersTable;
  api_tokens: ApiTokensTable;
  workspaces: WorkspacesTable;
  workspace_members: WorkspaceMembersTable;
  projects: ProjectsTable;
  states: StatesTable;
  issues: IssuesTable;
  comments: CommentsTable;
  labels: LabelsTable;
  label_issue_counts: LabelIssueCountsTable;
  issue_counts: IssueCountsTable;
  issue_count_changes: IssueCountChangesTable;
  issue_relations: IssueRelationsTable;
}
