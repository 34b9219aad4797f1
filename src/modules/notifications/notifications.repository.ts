import { type ExpressionBuilder, sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { WatchSource } from '../../db/tables/notifications.js';
import type { NotificationKind } from '../../kernel/notices.js';

export type NotificationsRepository = ReturnType<typeof notificationsRepository>;

/** A notification as written. */
export interface StoredNotification {
  id: string;
  workspace_id: string;
  user_id: string;
  issue_id: string | null;
  kind: NotificationKind;
  actor_id: string | null;
  data: Record<string, unknown>;
  created_at: Date;
}

export type NotificationToWrite = StoredNotification;

/** What the inbox reads of a user's notifications, across the workspaces they are a member of. */
export interface InboxFilter {
  userId: string;
  /** The workspaces the user is a member of now (a former member's notifications are hidden). */
  workspaceIds: string[];
  now: Date;
  unread?: boolean;
  archived: boolean;
  /** One kind only. */
  kind?: NotificationKind;
}

export interface WatcherToAdd {
  workspace_id: string;
  issue_id: string;
  user_id: string;
  source: WatchSource;
  created_at: Date;
}

/** Sources that bring back a user who stopped watching by hand (docs/decisions/notifications.md). */
const OVERRIDES_UNWATCH: WatchSource[] = ['assignee', 'mentioned', 'manual'];

type N = ExpressionBuilder<Database & { n: Database['notifications'] }, 'n'>;

/** The user's: of a workspace they are a member of now (or an invitation, which precedes membership). */
function owned(eb: N, f: Pick<InboxFilter, 'userId' | 'workspaceIds'>) {
  const member = f.workspaceIds.length ? eb('n.workspace_id', 'in', f.workspaceIds) : eb.val(false);
  return eb.and([eb('n.user_id', '=', f.userId), eb.or([member, eb('n.kind', '=', 'invited')])]);
}

/** Visible in the inbox: the user's, and not snoozed (a snooze ends at `snoozed_until`, read against the clock). */
function visible(eb: N, f: Pick<InboxFilter, 'userId' | 'workspaceIds' | 'now'>) {
  return eb.and([owned(eb, f), eb.or([eb('n.snoozed_until', 'is', null), eb('n.snoozed_until', '<=', f.now)])]);
}

/** Notifications with what the inbox shows beside them: the workspace's slug, the issue and its key, the actor's name. */
function inboxRows(tx: Executor) {
  return tx
    .selectFrom('notifications as n')
    .innerJoin('workspaces as w', 'w.id', 'n.workspace_id')
    .leftJoin('issues as i', (j) => j.onRef('i.workspace_id', '=', 'n.workspace_id').onRef('i.id', '=', 'n.issue_id'))
    .leftJoin('projects as p', (j) => j.onRef('p.workspace_id', '=', 'i.workspace_id').onRef('p.id', '=', 'i.project_id'))
    .leftJoin('users as a', 'a.id', 'n.actor_id')
    .select([
      'n.id',
      'n.workspace_id',
      'n.user_id',
      'n.issue_id',
      'n.kind',
      'n.actor_id',
      'n.data',
      'n.created_at',
      'n.read_at',
      'n.archived_at',
      'n.snoozed_until',
      'w.slug as workspace_slug',
      'i.name as issue_name',
      'i.sequence_id as issue_sequence_id',
      'p.identifier as project_identifier',
      'a.display_name as actor_name',
    ]);
}

/** The SQL of watchers and of the inbox (contract 26.1, 26.2). */
export function notificationsRepository() {
  return {
    // ---- writing ------------------------------------------------------------------------------------------------

    /**
     * Writes the notifications in one statement, dropping those whose recipient is not a member of the workspace
     * (an invitation excepted: it is written before the membership exists). Answers the rows written.
     */
    async insertNotifications(tx: Executor, rows: NotificationToWrite[]): Promise<StoredNotification[]> {
      if (!rows.length) return [];
      const col = <K extends keyof NotificationToWrite>(key: K) => rows.map((r) => r[key]);
      const { rows: written } = await sql<StoredNotification>`
        INSERT INTO notifications (id, workspace_id, user_id, issue_id, kind, actor_id, data, created_at)
        SELECT v.id, v.workspace_id, v.user_id, v.issue_id, v.kind, v.actor_id, v.data::jsonb, v.created_at
        FROM unnest(${col('id')}::uuid[], ${col('workspace_id')}::uuid[], ${col('user_id')}::uuid[], ${col('issue_id')}::uuid[],
                    ${col('kind')}::text[], ${col('actor_id')}::uuid[], ${rows.map((r) => JSON.stringify(r.data))}::text[],
                    ${rows.map((r) => r.created_at.toISOString())}::timestamptz[])
          AS v (id, workspace_id, user_id, issue_id, kind, actor_id, data, created_at)
        WHERE v.kind = 'invited'
           OR EXISTS (SELECT 1 FROM workspace_members m WHERE m.workspace_id = v.workspace_id AND m.user_id = v.user_id)
        RETURNING id, workspace_id, user_id, issue_id, kind, actor_id, data, created_at`.execute(tx);
      return written;
    },

    /** The notifications of a deleted issue. */
    async deleteOfIssue(tx: Executor, workspaceId: string, issueId: string): Promise<void> {
      await tx.deleteFrom('notifications').where('workspace_id', '=', workspaceId).where('issue_id', '=', issueId).execute();
    },

    // ---- watchers -------------------------------------------------------------------------------------------------

    /**
     * Adds watchers in one statement. A user already watching keeps their row; one who stopped watching by hand comes
     * back only through an assignment, a mention or watching again.
     *
     * A row already there is left unlocked unless it is turned back on: `ON CONFLICT DO UPDATE ... WHERE` locks the
     * conflicting row even when its condition is false, until the transaction ends, and each comment adds its author as
     * a watcher. The comments of one author on one issue then waited on one another from this statement to their
     * commits (issue 37's write bench: most samples of its comment phase waited there).
     */
    async addWatchers(tx: Executor, rows: WatcherToAdd[]): Promise<void> {
      if (!rows.length) return;
      const unique = [...new Map(rows.map((r) => [`${r.workspace_id}|${r.issue_id}|${r.user_id}`, r])).values()];
      const insert = (db: Pick<Executor, 'insertInto'>) =>
        db
          .insertInto('issue_watchers')
          .values(unique)
          .onConflict((oc) => oc.columns(['workspace_id', 'issue_id', 'user_id']).doNothing());
      const overriding = unique.filter((r) => OVERRIDES_UNWATCH.includes(r.source));
      if (!overriding.length) {
        await insert(tx).execute();
        return;
      }
      // The rows this statement inserts are not seen by its UPDATE (one snapshot): they are new and watching already.
      await tx
        .with('added', (db) => insert(db))
        .updateTable('issue_watchers')
        .set({ unwatched: false })
        .where('unwatched', '=', true)
        .where((eb) => eb.or(overriding.map((r) => eb.and({ workspace_id: r.workspace_id, issue_id: r.issue_id, user_id: r.user_id }))))
        .execute();
    },

    /** The user stops watching by hand (kept as a row, so that automatic watching does not bring them back). */
    async unwatch(tx: Executor, workspaceId: string, issueId: string, userId: string, at: Date): Promise<void> {
      await tx
        .insertInto('issue_watchers')
        .values({ workspace_id: workspaceId, issue_id: issueId, user_id: userId, source: 'manual', unwatched: true, created_at: at })
        .onConflict((oc) => oc.columns(['workspace_id', 'issue_id', 'user_id']).doUpdateSet({ unwatched: true }))
        .execute();
    },

    /** Which of these issues the user watches. */
    async watchedAmong(tx: Executor, workspaceId: string, userId: string, issueIds: string[]): Promise<Set<string>> {
      if (!issueIds.length) return new Set();
      const rows = await tx
        .selectFrom('issue_watchers')
        .select('issue_id')
        .where('workspace_id', '=', workspaceId)
        .where('user_id', '=', userId)
        .where('issue_id', 'in', issueIds)
        .where('unwatched', '=', false)
        .execute();
      return new Set(rows.map((r) => r.issue_id));
    },

    /** The watchers of these issues. */
    async watchersOf(tx: Executor, workspaceId: string, issueIds: string[]) {
      if (!issueIds.length) return [];
      return tx
        .selectFrom('issue_watchers')
        .select(['issue_id', 'user_id'])
        .where('workspace_id', '=', workspaceId)
        .where('issue_id', 'in', issueIds)
        .where('unwatched', '=', false)
        .execute();
    },

    /** The watchers of an issue who are members now, as users, by name. */
    async listWatchers(tx: Executor, workspaceId: string, issueId: string) {
      return tx
        .selectFrom('issue_watchers as w')
        .innerJoin('workspace_members as m', (j) => j.onRef('m.workspace_id', '=', 'w.workspace_id').onRef('m.user_id', '=', 'w.user_id'))
        .innerJoin('users as u', 'u.id', 'w.user_id')
        .select(['u.id', 'u.display_name', 'u.email'])
        .where('w.workspace_id', '=', workspaceId)
        .where('w.issue_id', '=', issueId)
        .where('w.unwatched', '=', false)
        .orderBy('u.display_name')
        .orderBy('u.id')
        .execute();
    },

    /** Members of the workspace among these e-mails (lower case): e-mail → user id. */
    async membersByEmail(tx: Executor, workspaceId: string, emails: string[]): Promise<Map<string, string>> {
      if (!emails.length) return new Map();
      const rows = await tx
        .selectFrom('workspace_members as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select(['u.id', 'u.email'])
        .where('m.workspace_id', '=', workspaceId)
        .where(sql<string>`lower(u.email)`, 'in', emails)
        .execute();
      return new Map(rows.map((r) => [r.email.toLowerCase(), r.id]));
    },

    /** The assignees of these issues (SLA notifications), each named by its workspace. */
    async assigneesOf(tx: Executor, issues: { workspaceId: string; issueId: string }[]) {
      if (!issues.length) return [];
      return tx
        .selectFrom('issues')
        .select(['workspace_id', 'id', 'assignee_ids'])
        .where((eb) => eb.or(issues.map((i) => eb.and([eb('workspace_id', '=', i.workspaceId), eb('id', '=', i.issueId)]))))
        .execute();
    },

    /** The admins of these workspaces and their owners (creators) who are still members. */
    async adminsOf(tx: Executor, workspaceIds: string[]) {
      if (!workspaceIds.length) return [];
      return tx
        .selectFrom('workspace_members as m')
        .innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
        .select(['m.workspace_id', 'm.user_id'])
        .where('m.workspace_id', 'in', workspaceIds)
        .where((eb) => eb.or([eb('m.role', '=', 'admin'), eb('m.user_id', '=', eb.ref('w.created_by'))]))
        .execute();
    },

    // ---- the inbox ------------------------------------------------------------------------------------------------

    /** The workspaces the user is a member of now (the inbox spans them). */
    async memberWorkspaces(tx: Executor, userId: string) {
      return tx.selectFrom('workspace_members').select('workspace_id').where('user_id', '=', userId).execute();
    },

    /** A page of the inbox (or the archive), newest first, with the issue, its key, the actor and the workspace slug. */
    async listInbox(tx: Executor, f: InboxFilter, page: { offset: number; per_page: number }) {
      let query = inboxRows(tx)
        .where((eb) => visible(eb as unknown as N, f))
        .where('n.archived_at', f.archived ? 'is not' : 'is', null);
      if (f.unread) query = query.where('n.read_at', 'is', null);
      if (f.kind) query = query.where('n.kind', '=', f.kind);
      return query.orderBy('n.created_at', 'desc').orderBy('n.id', 'desc').limit(page.per_page).offset(page.offset).execute();
    },

    /** One of the user's notifications (snoozed too), as the inbox shows it. */
    async readOne(tx: Executor, f: Pick<InboxFilter, 'userId' | 'workspaceIds'>, id: string) {
      return inboxRows(tx)
        .where('n.id', '=', id)
        .where((eb) => owned(eb as unknown as N, f))
        .executeTakeFirst();
    },

    /** How many notifications the same filter shows (for `total`). */
    async countInbox(tx: Executor, f: InboxFilter): Promise<number> {
      let query = tx
        .selectFrom('notifications as n')
        .select(sql<number>`count(*)::int`.as('n'))
        .where((eb) => visible(eb as unknown as N, f))
        .where('n.archived_at', f.archived ? 'is not' : 'is', null);
      if (f.unread) query = query.where('n.read_at', 'is', null);
      if (f.kind) query = query.where('n.kind', '=', f.kind);
      return (await query.executeTakeFirstOrThrow()).n;
    },

    /** Unread, not archived, not snoozed (the bell); reads only the partial index of unread notifications. */
    async countUnread(tx: Executor, f: Pick<InboxFilter, 'userId' | 'workspaceIds' | 'now'>): Promise<number> {
      const row = await tx
        .selectFrom('notifications as n')
        .select(sql<number>`count(*)::int`.as('n'))
        .where((eb) => visible(eb as unknown as N, f))
        .where('n.read_at', 'is', null)
        .where('n.archived_at', 'is', null)
        .executeTakeFirstOrThrow();
      return row.n;
    },

    /** Marks these (visible, unread) notifications read; answers how many changed. */
    async markRead(tx: Executor, f: Pick<InboxFilter, 'userId' | 'workspaceIds' | 'now'>, ids: string[] | null): Promise<number> {
      if (ids !== null && !ids.length) return 0;
      let query = tx
        .updateTable('notifications as n')
        .set({ read_at: f.now })
        .where((eb) => visible(eb as unknown as N, f))
        .where('n.read_at', 'is', null);
      if (ids !== null) query = query.where('n.id', 'in', ids);
      const result = await query.executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /** Sets (or clears) `archived_at` / `snoozed_until` of one of the user's notifications (snoozed too); its id or undefined. */
    async updateOne(
      tx: Executor,
      f: Pick<InboxFilter, 'userId' | 'workspaceIds' | 'now'>,
      id: string,
      patch: { archived_at?: Date | null; snoozed_until?: Date | null },
    ): Promise<string | undefined> {
      const row = await tx
        .updateTable('notifications as n')
        .set(patch)
        .where('n.id', '=', id)
        .where((eb) => owned(eb as unknown as N, f))
        .returning('n.id')
        .executeTakeFirst();
      return row?.id;
    },
  };
}

export type InboxRow = Awaited<ReturnType<NotificationsRepository['listInbox']>>[number];
