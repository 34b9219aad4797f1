import type { Executor } from '../../db/database.js';
import type { Actor } from '../../kernel/actor.js';
import { AppError, invalid, notFound } from '../../kernel/errors.js';
import { pageOf, type PageQuery } from '../../kernel/pagination.js';
import type { NotificationKind } from '../../kernel/notices.js';
import type { NotificationsDeps } from './notifications.deps.js';
import { createNotifier } from './notifications.notifier.js';
import { notificationView, watcherView } from './notifications.views.js';

export type NotificationsService = ReturnType<typeof createNotificationsService>;

export type InboxQuery = PageQuery & { unread?: boolean; archived?: boolean; workspace?: string; kind?: NotificationKind };

/**
 * Watchers (contract 26.1) and the inbox (26.2), and who is told what (`notifications.notifier.ts`). The inbox spans
 * every workspace the caller is a member of now: a user who left one no longer sees its notifications.
 */
export function createNotificationsService(deps: NotificationsDeps) {
  const { db, repo, clock, identity, workItems } = deps;
  const told = createNotifier(deps);

  /** The issue of the path, readable by the caller, or 404. */
  async function issueFor(actor: Actor, slug: string, projectId: string, issueId: string) {
    const ws = await identity.access(actor, slug, 'read');
    const issue = await workItems.findIssue(db, ws.workspaceId, issueId.toLowerCase());
    if (issue.project_id !== projectId.toLowerCase()) throw notFound('Issue');
    return { ws, issue };
  }

  /** Whose inbox, over which workspaces: all the caller's, or (`workspace`) one of them (404 if not a member). */
  async function scope(actor: Actor, workspace?: string, tx: Executor = db) {
    const now = clock.now();
    if (workspace !== undefined) {
      const ws = await identity.access(actor, workspace, 'read', tx);
      return { userId: actor.userId, workspaceIds: [ws.workspaceId], now, only: ws.workspaceId };
    }
    const rows = await repo.memberWorkspaces(tx, actor.userId);
    return { userId: actor.userId, workspaceIds: rows.map((r) => r.workspace_id), now, only: null };
  }

  async function viewOf(tx: Executor, actor: Actor, workspaceIds: string[], id: string) {
    const row = await repo.readOne(tx, { userId: actor.userId, workspaceIds }, id);
    if (!row) throw notFound('Notification');
    return notificationView(row);
  }

  /** Archive, unarchive or snooze one of the caller's notifications; 404 for another user's. */
  async function change(actor: Actor, id: string, patch: { archived_at?: Date | null; snoozed_until?: Date | null }) {
    const notificationId = id.toLowerCase();
    return db.transaction().execute(async (tx) => {
      const s = await scope(actor, undefined, tx);
      if (!(await repo.updateOne(tx, s, notificationId, patch))) throw notFound('Notification');
      return viewOf(tx, actor, s.workspaceIds, notificationId);
    });
  }

  return {
    ...told,

    /** `watching` of the issue lists and answers (registered into work items): one query per page. */
    watchingOf: (tx: Executor, workspaceId: string, userId: string, issueIds: string[]) => repo.watchedAmong(tx, workspaceId, userId, issueIds),

    // ---- watchers -------------------------------------------------------------------------------------------------

    async watch(actor: Actor, slug: string, projectId: string, issueId: string) {
      const { ws, issue } = await issueFor(actor, slug, projectId, issueId);
      await repo.addWatchers(db, [{ workspace_id: ws.workspaceId, issue_id: issue.id, user_id: actor.userId, source: 'manual', created_at: clock.now() }]);
      return { watching: true };
    },

    async unwatch(actor: Actor, slug: string, projectId: string, issueId: string) {
      const { ws, issue } = await issueFor(actor, slug, projectId, issueId);
      await repo.unwatch(db, ws.workspaceId, issue.id, actor.userId, clock.now());
    },

    async listWatchers(actor: Actor, slug: string, projectId: string, issueId: string) {
      const { ws, issue } = await issueFor(actor, slug, projectId, issueId);
      return (await repo.listWatchers(db, ws.workspaceId, issue.id)).map(watcherView);
    },

    // ---- the inbox ------------------------------------------------------------------------------------------------

    /** The inbox (default) or the archive (`archived=true`), newest first, with `total` and `unread_count`. */
    async list(actor: Actor, query: InboxQuery) {
      const s = await scope(actor, query.workspace);
      const filter = { ...s, archived: query.archived === true, ...(query.unread === true && { unread: true }), ...(query.kind && { kind: query.kind }) };
      const [rows, total, unread] = [await repo.listInbox(db, filter, query), await repo.countInbox(db, filter), await repo.countUnread(db, s)];
      return { ...pageOf(rows.map(notificationView), total, query), unread_count: unread };
    },

    async unreadCount(actor: Actor, workspace?: string) {
      const s = await scope(actor, workspace);
      return { unread: await repo.countUnread(db, s) };
    },

    /** `{ids}` (the caller's; others are ignored) or `{all: true, workspace?}`: marks them read; answers how many. */
    async markRead(actor: Actor, body: { ids?: string[]; all?: boolean; workspace?: string }) {
      const hasIds = body.ids !== undefined;
      if (hasIds === (body.all === true)) throw invalid('/', 'give either `ids` or `all: true`');
      if (hasIds && body.workspace !== undefined) throw invalid('/workspace', 'goes with `all: true` only');
      const s = await scope(actor, body.workspace);
      const updated = await repo.markRead(db, s, hasIds ? [...new Set(body.ids!.map((id) => id.toLowerCase()))] : null);
      return { updated };
    },

    archive: (actor: Actor, id: string) => change(actor, id, { archived_at: clock.now() }),
    unarchive: (actor: Actor, id: string) => change(actor, id, { archived_at: null }),

    /** Hidden (and unread) until `until`, which must be in the future; null wakes it now. */
    async snooze(actor: Actor, id: string, until: string | null) {
      if (until === null) return change(actor, id, { snoozed_until: null });
      const at = new Date(until);
      if (!(at.getTime() > clock.now().getTime())) {
        throw new AppError('validation_failed', '/until must be in the future', [{ path: '/until', message: 'must be in the future' }]);
      }
      return change(actor, id, { snoozed_until: at });
    },
  };
}
