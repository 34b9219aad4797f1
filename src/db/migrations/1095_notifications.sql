-- Notifications (contract 26.1, 26.2): who watches an issue, and each user's inbox.

-- A watcher of an issue. `source` says how the user came to watch it (the first way; kept for the record);
-- `unwatched` is an explicit "stop watching" by the user: the row stays so that a later comment or edit does not
-- bring them back, while being assigned or mentioned does (docs/decisions/notifications.md).
CREATE TABLE issue_watchers (
  workspace_id uuid NOT NULL,
  issue_id     uuid NOT NULL,
  user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  source       text NOT NULL CHECK (source IN ('creator', 'assignee', 'commenter', 'mentioned', 'manual')),
  unwatched    boolean NOT NULL DEFAULT false,
  created_at   timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, issue_id, user_id),
  FOREIGN KEY (workspace_id, issue_id) REFERENCES issues (workspace_id, id) ON DELETE CASCADE
);
-- `watching` of a page of issues for one user.
CREATE INDEX issue_watchers_user_idx ON issue_watchers (workspace_id, user_id, issue_id) WHERE NOT unwatched;

-- One notification: one recipient, one change. An issue's notifications go with it (ON DELETE CASCADE): the inbox
-- cannot show or link an issue that is gone. `actor_id` null: the system (SLA).
-- No foreign keys to `users` and `workspaces`: each would take a KEY SHARE lock on the recipients', the actor's and
-- the workspace's rows in every writing transaction, so that concurrent changes of one workspace (20 watchers each)
-- queue on the same few rows (measured: a third of the PATCH throughput on PostgreSQL). The writer inserts only
-- current members (the same statement reads workspace_members), and the inbox joins users and workspaces, so a row of
-- a deleted account or workspace is never shown. No foreign key to `issues` either: its check is one more statement per
-- notification row (20 per change of an issue with 20 watchers); the notifications of a deleted issue are deleted by
-- the notifications module in the transaction of the deletion (the `issue.deleted` event).
CREATE TABLE notifications (
  id            uuid PRIMARY KEY,
  workspace_id  uuid NOT NULL,
  user_id       uuid NOT NULL,
  issue_id      uuid,
  kind          text NOT NULL CHECK (kind IN ('assigned', 'mentioned', 'commented', 'state_changed', 'priority_changed',
                                              'due_date_changed', 'sla_at_risk', 'sla_breached', 'invited')),
  actor_id      uuid,
  data          jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at    timestamptz NOT NULL,
  read_at       timestamptz,
  archived_at   timestamptz,
  snoozed_until timestamptz
);
-- The inbox (not archived, the default) and the archive, newest first, for one user.
CREATE INDEX notifications_inbox_idx ON notifications (user_id, created_at DESC, id DESC) WHERE archived_at IS NULL;
CREATE INDEX notifications_archive_idx ON notifications (user_id, created_at DESC, id DESC) WHERE archived_at IS NOT NULL;
-- The unread count (the bell): only unread, unarchived rows, with what the count filters on, so that it reads as
-- many index entries as there are unread notifications, not as many as the user ever had.
CREATE INDEX notifications_unread_idx ON notifications (user_id, workspace_id, snoozed_until) WHERE read_at IS NULL AND archived_at IS NULL;
-- Deleting a workspace's issue or a user's account finds their rows.
CREATE INDEX notifications_issue_idx ON notifications (workspace_id, issue_id) WHERE issue_id IS NOT NULL;

-- Existing issues gain their watchers as if they had been watched from the start: creator, assignees, commenters.
INSERT INTO issue_watchers (workspace_id, issue_id, user_id, source, created_at)
SELECT DISTINCT ON (w.workspace_id, w.issue_id, w.user_id) w.workspace_id, w.issue_id, w.user_id, w.source, w.created_at
FROM (
  SELECT i.workspace_id, i.id AS issue_id, i.created_by AS user_id, 'creator' AS source, i.created_at, 0 AS rank
  FROM issues i
  UNION ALL
  SELECT i.workspace_id, i.id, a.user_id, 'assignee', i.updated_at, 1
  FROM issues i CROSS JOIN LATERAL unnest(i.assignee_ids) AS a (user_id)
  UNION ALL
  SELECT c.workspace_id, c.issue_id, c.author_id, 'commenter', c.created_at, 2
  FROM comments c
) w
JOIN users u ON u.id = w.user_id
ORDER BY w.workspace_id, w.issue_id, w.user_id, w.rank, w.created_at;
