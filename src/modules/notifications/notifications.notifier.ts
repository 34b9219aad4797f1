import type { Executor, Tx } from '../../db/database.js';
import type { EventBus, EventOf, IssueFacts } from '../../kernel/events.js';
import { newId } from '../../kernel/ids.js';
import type { NotificationCreated, NotificationInput, NotificationKind, NotificationListener, Notifier } from '../../kernel/notices.js';
import type { NotificationsDeps } from './notifications.deps.js';
import type { WatcherToAdd } from './notifications.repository.js';
import { excerptOf, mentionCandidates, mentionedMembers, selectNotifications } from './notifications.rules.js';

/** A threshold crossed (the SLA module's `SlaCrossing`, by shape). */
export interface SlaCrossingInput {
  workspaceId: string;
  issueId: string;
  projectId: string;
  type: 'sla.at_risk' | 'sla.breached';
  target: 'response' | 'resolution';
  dueAt: Date;
}

export type NotificationsNotifier = ReturnType<typeof createNotifier>;

/**
 * Who is told what (contract 26.2), in the transaction of the change: the `Notifier` port (the inbox), the work-item
 * events (assigned, mentioned, commented, state/priority/due date changed, and the watchers they add) and the SLA
 * crossings. Every handler works on its whole change in a fixed number of statements, however many issues it has.
 */
export function createNotifier(deps: Pick<NotificationsDeps, 'repo' | 'clock'>) {
  const { repo, clock } = deps;
  const listeners: NotificationListener<Tx>[] = [];

  const notifier: Notifier<Tx> = {
    async notify(tx, inputs) {
      const selected = selectNotifications(inputs);
      if (!selected.length) return [];
      const now = clock.now();
      const written = await repo.insertNotifications(
        tx,
        selected.map((n) => ({
          id: newId(),
          workspace_id: n.workspaceId,
          user_id: n.userId,
          issue_id: n.issueId,
          kind: n.kind,
          actor_id: n.actorId,
          data: n.data,
          created_at: now,
        })),
      );
      const created: NotificationCreated[] = written.map((r) => ({
        id: r.id,
        workspaceId: r.workspace_id,
        userId: r.user_id,
        issueId: r.issue_id,
        kind: r.kind,
        actorId: r.actor_id,
        data: r.data,
        createdAt: r.created_at,
      }));
      if (created.length) for (const listener of listeners) await listener(tx, created);
      return created;
    },
  };

  /** Members of the workspace these texts mention (one query, and none for texts without `@`). */
  async function membersMentioned(tx: Executor, workspaceId: string, texts: string[]) {
    const candidates = new Set<string>();
    for (const text of texts) for (const email of mentionCandidates(text)) candidates.add(email);
    return repo.membersByEmail(tx, workspaceId, [...candidates]);
  }

  async function onIssueCreated(tx: Tx, e: EventOf<'issue.created'>) {
    const { issue } = e;
    const description = e.description ?? '';
    const assignees = e.assigneeIds ?? [];
    const members = await membersMentioned(tx, issue.workspaceId, [description]);
    const mentioned = mentionedMembers(description, members);
    const watcher = (userId: string, source: WatcherToAdd['source']): WatcherToAdd => ({
      workspace_id: issue.workspaceId,
      issue_id: issue.id,
      user_id: userId,
      source,
      created_at: e.at,
    });
    await repo.addWatchers(tx, [
      watcher(issue.createdBy, 'creator'),
      ...assignees.map((id) => watcher(id, 'assignee')),
      ...[...mentioned].map((id) => watcher(id, 'mentioned')),
    ]);
    const base = { workspaceId: issue.workspaceId, issueId: issue.id, actorId: issue.createdBy };
    await notifier.notify(tx, [
      ...assignees.map((userId) => ({ ...base, userId, kind: 'assigned' as const, data: { project_id: issue.projectId } })),
      ...[...mentioned].map((userId) => ({
        ...base,
        userId,
        kind: 'mentioned' as const,
        data: { project_id: issue.projectId, excerpt: excerptOf(description) },
      })),
    ]);
  }

  async function onIssuesChanged(tx: Tx, e: EventOf<'issues.changed'>) {
    const { workspaceId, actorId, states } = e;
    const described = e.changes.filter((c) => c.before.description !== c.after.description);
    const members = await membersMentioned(
      tx,
      workspaceId,
      described.map((c) => c.after.description),
    );
    const stateOf = (f: IssueFacts) => ({ id: f.stateId, name: states[f.stateId]?.name ?? null, group: f.stateGroup });
    const watchers: WatcherToAdd[] = [];
    const direct: NotificationInput[] = [];
    const toWatchers: { issueId: string; kind: NotificationKind; data: Record<string, unknown> }[] = [];
    for (const { before, after } of e.changes) {
      const base = { workspaceId, issueId: after.id, actorId };
      const project = { project_id: after.projectId };
      const had = new Set(before.assigneeIds);
      for (const userId of after.assigneeIds.filter((id) => !had.has(id))) {
        watchers.push({ workspace_id: workspaceId, issue_id: after.id, user_id: userId, source: 'assignee', created_at: e.at });
        direct.push({ ...base, userId, kind: 'assigned', data: project });
      }
      if (before.description !== after.description) {
        // Only mentions the edit added: a user mentioned before is not told again of every later edit.
        const known = mentionedMembers(before.description, members);
        for (const userId of mentionedMembers(after.description, members)) {
          if (known.has(userId)) continue;
          watchers.push({ workspace_id: workspaceId, issue_id: after.id, user_id: userId, source: 'mentioned', created_at: e.at });
          direct.push({ ...base, userId, kind: 'mentioned', data: { ...project, excerpt: excerptOf(after.description) } });
        }
      }
      if (before.stateId !== after.stateId)
        toWatchers.push({ issueId: after.id, kind: 'state_changed', data: { ...project, from: stateOf(before), to: stateOf(after) } });
      if (before.priority !== after.priority)
        toWatchers.push({ issueId: after.id, kind: 'priority_changed', data: { ...project, from: before.priority, to: after.priority } });
      if (before.targetDate !== after.targetDate) {
        toWatchers.push({ issueId: after.id, kind: 'due_date_changed', data: { ...project, from: before.targetDate, to: after.targetDate } });
      }
    }
    await repo.addWatchers(tx, watchers);
    const watching = await repo.watchersOf(tx, workspaceId, [...new Set(toWatchers.map((c) => c.issueId))]);
    const byIssue = new Map<string, string[]>();
    for (const w of watching) byIssue.set(w.issue_id, [...(byIssue.get(w.issue_id) ?? []), w.user_id]);
    const told = toWatchers.flatMap((c) =>
      (byIssue.get(c.issueId) ?? []).map((userId) => ({ workspaceId, issueId: c.issueId, actorId, userId, kind: c.kind, data: c.data })),
    );
    await notifier.notify(tx, [...direct, ...told]);
  }

  async function onCommentCreated(tx: Tx, e: EventOf<'comment.created'>) {
    const { issue } = e;
    const body = e.body ?? '';
    const members = await membersMentioned(tx, issue.workspaceId, [body]);
    const mentioned = mentionedMembers(body, members);
    const watcher = (userId: string, source: WatcherToAdd['source']): WatcherToAdd => ({
      workspace_id: issue.workspaceId,
      issue_id: issue.id,
      user_id: userId,
      source,
      created_at: e.at,
    });
    await repo.addWatchers(tx, [watcher(e.authorId, 'commenter'), ...[...mentioned].map((id) => watcher(id, 'mentioned'))]);
    const watching = await repo.watchersOf(tx, issue.workspaceId, [issue.id]);
    const data = { project_id: issue.projectId, comment_id: e.commentId, excerpt: excerptOf(body) };
    const base = { workspaceId: issue.workspaceId, issueId: issue.id, actorId: e.authorId, data };
    await notifier.notify(tx, [
      ...[...mentioned].map((userId) => ({ ...base, userId, kind: 'mentioned' as const })),
      ...watching.map((w) => ({ ...base, userId: w.user_id, kind: 'commented' as const })),
    ]);
  }

  /**
   * `sla_at_risk` / `sla_breached` (contract 26.2): to the issue's assignees, or the workspace's admins (and owner)
   * when it has none; in the transaction of the SLA events (three statements for the whole batch).
   */
  async function onSlaCrossings(tx: Tx, crossings: SlaCrossingInput[]) {
    if (!crossings.length) return;
    const issues = await repo.assigneesOf(
      tx,
      crossings.map((c) => ({ workspaceId: c.workspaceId, issueId: c.issueId })),
    );
    const assignees = new Map(issues.map((i) => [`${i.workspace_id}|${i.id}`, i.assignee_ids]));
    const unassigned = [...new Set(crossings.filter((c) => !assignees.get(`${c.workspaceId}|${c.issueId}`)?.length).map((c) => c.workspaceId))];
    const admins = new Map<string, string[]>();
    for (const a of await repo.adminsOf(tx, unassigned)) admins.set(a.workspace_id, [...(admins.get(a.workspace_id) ?? []), a.user_id]);
    const inputs: NotificationInput[] = crossings.flatMap((c) => {
      const assigned = assignees.get(`${c.workspaceId}|${c.issueId}`) ?? [];
      const recipients = assigned.length ? assigned : [...new Set(admins.get(c.workspaceId) ?? [])];
      const kind = c.type === 'sla.at_risk' ? ('sla_at_risk' as const) : ('sla_breached' as const);
      const data = { project_id: c.projectId, metric: c.target, due_at: c.dueAt.toISOString() };
      return recipients.map((userId) => ({ workspaceId: c.workspaceId, issueId: c.issueId, userId, kind, actorId: null, data }));
    });
    await notifier.notify(tx, inputs);
  }

  return {
    notifier,

    /** Listens to the notifications written (the mail module), in their transaction. */
    onCreated(listener: NotificationListener<Tx>) {
      listeners.push(listener);
    },

    subscribe(events: EventBus<Tx>) {
      events.subscribe('issue.created', onIssueCreated);
      events.subscribe('issues.changed', onIssuesChanged);
      events.subscribe('comment.created', onCommentCreated);
      // Its notifications go with a deleted issue (no foreign key: migration 1095).
      events.subscribe('issue.deleted', (tx, e) => repo.deleteOfIssue(tx, e.issue.workspaceId, e.issue.id));
    },

    onSlaCrossings,
  };
}
