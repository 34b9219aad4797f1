import type { ColumnType } from 'kysely';
import type { NotificationKind } from '../../kernel/notices.js';

type Timestamp = ColumnType<Date, Date, Date>;

export type WatchSource = 'creator' | 'assignee' | 'commenter' | 'mentioned' | 'manual';

/** Migration 1095: who watches an issue (contract 26.1); `unwatched`: the user stopped watching by hand. */
export interface IssueWatchersTable {
  workspace_id: string;
  issue_id: string;
  user_id: string;
  source: WatchSource;
  unwatched: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Timestamp;
}

/** Migration 1095: a user's inbox (contract 26.2). */
export interface NotificationsTable {
  id: string;
  workspace_id: string;
  user_id: string;
  issue_id: string | null;
  kind: NotificationKind;
  actor_id: string | null;
  data: ColumnType<Record<string, unknown>, string, string>;
  created_at: Timestamp;
  read_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  archived_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  snoozed_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface NotificationsTables {
  issue_watchers: IssueWatchersTable;
  notifications: NotificationsTable;
}
