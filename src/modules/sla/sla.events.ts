import type { Db, Tx } from '../../db/database.js';
import type { Clock } from '../../kernel/clock.js';
import { invalid } from '../../kernel/errors.js';
import type { EventBus, EventOf } from '../../kernel/events.js';
import { newId } from '../../kernel/ids.js';
import type { Outbox, OutboxEvent } from '../../kernel/outbox.js';
import type { HistoryKind } from '../../db/tables/sla.js';
import { RESOLVED_GROUPS, RESPONDED_GROUPS } from './sla.domain.js';
import type { SlaRepository } from './sla.repository.js';
import type { SentFlags } from './sla.trackers.repository.js';
import type { Retargeter } from './sla.retarget.js';
import { trackerListItem } from './sla.views.js';

/**
 * The SLA module's side of the work-item events (history and trackers, in the transaction of the change), and the
 * SLA events scanner (contract 11.4).
 */
export interface SlaEventsDeps {
  db: Db;
  repo: SlaRepository;
  clock: Clock;
  retargeter: Retargeter;
  outbox: Outbox<Tx>;
}

const CLAIM = 200;

/** A threshold crossed, as the SLA event that records it names it: told to the listeners (notifications) in its transaction. */
export interface SlaCrossing {
  workspaceId: string;
  issueId: string;
  projectId: string;
  type: 'sla.at_risk' | 'sla.breached';
  target: 'response' | 'resolution';
  /** When the target is (or was) due. */
  dueAt: Date;
}

export type SlaCrossingListener = (tx: Tx, crossings: SlaCrossing[]) => Promise<void>;

export function createSlaEvents({ db, repo, clock, retargeter, outbox }: SlaEventsDeps) {
  const crossingListeners: SlaCrossingListener[] = [];
  const stateRef = (stateId: string, group: string, pauses: Map<string, boolean>) => ({ state_id: stateId, group, pauses_sla: pauses.get(stateId) ?? false });
  const entry = (workspaceId: string, issueId: string, at: Date, actorId: string | null, kind: HistoryKind, from: unknown, to: unknown) => ({
    id: newId(),
    workspace_id: workspaceId,
    issue_id: issueId,
    at,
    actor_id: actorId,
    kind,
    from,
    to,
  });

  async function onIssueCreated(tx: Tx, e: EventOf<'issue.created'>) {
    const { issue } = e;
    await repo.lockShared(tx, issue.workspaceId);
    const pauses = await repo.statePauses(tx, issue.workspaceId, [issue.stateId]);
    await repo.appendHistory(tx, [
      entry(issue.workspaceId, issue.id, e.at, issue.createdBy, 'created', null, {
        ...stateRef(issue.stateId, issue.stateGroup, pauses),
        priority: issue.priority,
      }),
    ]);
    // Created straight into a started/completed/cancelled state: that is its response (and resolution) at creation.
    await repo.insertTrackerRow(tx, {
      id: newId(),
      workspace_id: issue.workspaceId,
      issue_id: issue.id,
      responded_at: RESPONDED_GROUPS.has(issue.stateGroup) ? e.at : null,
      resolved_at: RESOLVED_GROUPS.has(issue.stateGroup) ? e.at : null,
      pauses: pauses.get(issue.stateId) ? [[e.at.getTime(), null]] : [],
      created_at: e.at,
    });
    await retargeter.retarget(tx, issue.workspaceId, { kind: 'issue', issueId: issue.id }, e.at);
  }

  /** History, pauses, response and resolution of a set of changed issues, then one re-targeting of them all. */
  async function onIssuesUpdated(tx: Tx, e: EventOf<'issues.updated'>) {
    const ws = e.workspaceId;
    const actorId = e.actorId ?? null;
    await repo.lockShared(tx, ws);
    const moved = e.changes.filter((c) => c.before.stateId !== c.after.stateId);
    const pauses = moved.length ? await repo.statePauses(tx, ws, [...new Set(moved.flatMap((c) => [c.before.stateId, c.after.stateId]))]) : new Map();
    const entries = [];
    const pauseOpens: string[] = [];
    const pauseCloses: string[] = [];
    const responded: string[] = [];
    const resolved: string[] = [];
    const reopened: string[] = [];
    for (const { before, after } of e.changes) {
      if (before.stateId !== after.stateId) {
        entries.push(
          entry(ws, after.id, e.at, actorId, 'state', stateRef(before.stateId, before.stateGroup, pauses), stateRef(after.stateId, after.stateGroup, pauses)),
        );
        const was = pauses.get(before.stateId) ?? false;
        const is = pauses.get(after.stateId) ?? false;
        if (was !== is) (is ? pauseOpens : pauseCloses).push(after.id);
      }
      if (before.priority !== after.priority) entries.push(entry(ws, after.id, e.at, actorId, 'priority', before.priority, after.priority));
      if (before.stateGroup !== after.stateGroup) {
        if (RESPONDED_GROUPS.has(after.stateGroup)) responded.push(after.id);
        // Reopening clears the resolution (its target runs again); resolving keeps the first moment.
        (RESOLVED_GROUPS.has(after.stateGroup) ? resolved : reopened).push(after.id);
      }
    }
    await repo.appendHistory(tx, entries);
    if (pauseOpens.length) await repo.movePause(tx, ws, { issueIds: pauseOpens }, 'open', e.at);
    if (pauseCloses.length) await repo.movePause(tx, ws, { issueIds: pauseCloses }, 'close', e.at);
    if (responded.length) await repo.markResponded(tx, ws, responded, e.at);
    if (reopened.length) await repo.setResolved(tx, ws, reopened, null, e.at);
    if (resolved.length) await repo.setResolved(tx, ws, resolved, e.at, e.at);
    // One re-targeting with every fact of the change: a priority sent together with a resolution applies to it.
    await retargeter.retarget(tx, ws, { kind: 'issues', issueIds: e.changes.map((c) => c.after.id) }, e.at);
  }

  async function onCommentCreated(tx: Tx, e: EventOf<'comment.created'>) {
    // Only a member other than the issue's creator responds (commenting needs membership).
    if (e.authorId === e.issue.createdBy) return;
    const ws = e.issue.workspaceId;
    await repo.lockShared(tx, ws);
    await repo.appendHistory(tx, [entry(ws, e.issue.id, e.at, e.authorId, 'comment', null, { comment_id: e.commentId })]);
    await repo.markResponded(tx, ws, [e.issue.id], e.at);
    await retargeter.retarget(tx, ws, { kind: 'issue', issueId: e.issue.id }, e.at);
  }

  async function onProjectPolicyChanged(tx: Tx, e: EventOf<'project.sla_policy_changed'>) {
    if (e.policyId !== null && !(await repo.policyExists(tx, e.workspaceId, e.policyId))) {
      throw invalid('/sla_policy_id', 'is not an SLA policy of this workspace');
    }
    await repo.lockExclusive(tx, e.workspaceId);
    if (e.previousPolicyId !== undefined) {
      await repo.appendProjectPolicyHistory(tx, {
        workspaceId: e.workspaceId,
        projectId: e.projectId,
        at: e.at,
        actorId: e.actorId ?? null,
        from: e.previousPolicyId,
        to: e.policyId,
      });
    }
    await retargeter.retarget(tx, e.workspaceId, { kind: 'project', projectId: e.projectId }, e.at);
  }

  /** A state starts or stops pausing: the issues in it pause or resume now, in their history too. */
  async function onStatePausesChanged(tx: Tx, e: EventOf<'state.pauses_changed'>) {
    await repo.lockExclusive(tx, e.workspaceId);
    await repo.appendPausesChangedHistory(tx, {
      workspaceId: e.workspaceId,
      stateId: e.stateId,
      group: e.group,
      at: e.at,
      actorId: e.actorId ?? null,
      from: !e.pausesSla,
      to: e.pausesSla,
    });
    await repo.movePause(tx, e.workspaceId, { stateId: e.stateId }, e.pausesSla ? 'open' : 'close', e.at);
    await retargeter.retarget(tx, e.workspaceId, { kind: 'state', stateId: e.stateId }, e.at);
  }

  /** Workspaces left to re-target after the upgrade to the working-time clock (one per transaction). */
  async function catchUp() {
    for (;;) {
      const done = await db.transaction().execute(async (tx) => {
        const workspaceId = await repo.claimPendingRetarget(tx);
        if (!workspaceId) return false;
        await repo.lockExclusive(tx, workspaceId);
        await retargeter.retarget(tx, workspaceId, { kind: 'workspace' }, clock.now(), { catchUp: true });
        return true;
      });
      if (!done) return;
    }
  }

  return {
    subscribe(events: EventBus<Tx>) {
      events.subscribe('issue.created', onIssueCreated);
      events.subscribe('issues.updated', onIssuesUpdated);
      events.subscribe('comment.created', onCommentCreated);
      events.subscribe('project.sla_policy_changed', onProjectPolicyChanged);
      events.subscribe('state.pauses_changed', onStatePausesChanged);
      // issue.deleted: the tracker row and the history go with the issue (ON DELETE CASCADE).
    },

    catchUp,

    /** Listens to the thresholds crossed, in the transaction that records their events (notifications, 26.2). */
    onCrossings(listener: SlaCrossingListener) {
      crossingListeners.push(listener);
    },

    /**
     * Records `sla.at_risk` / `sla.breached` for every threshold crossed before now whose event is not recorded yet:
     * each tracker is claimed by one instance (SKIP LOCKED) and marked sent in the transaction of its events, so each
     * crossing is recorded exactly once, also after downtime. Returns how many events were recorded.
     */
    async run(): Promise<number> {
      await catchUp();
      let recorded = 0;
      for (;;) {
        const claimed = await db.transaction().execute(async (tx) => {
          const now = clock.now();
          const at = now.getTime();
          const rows = await repo.claimCrossings(tx, now, CLAIM);
          const calendars = await retargeter.calendarsOf(
            tx,
            rows,
            rows.map((r) => r.workspace_id),
          );
          const events: OutboxEvent[] = [];
          const crossings: SlaCrossing[] = [];
          const sent: SentFlags[] = [];
          for (const row of rows) {
            const crossed = (instant: Date | null, done: boolean) => !done && instant !== null && instant.getTime() < at;
            const due: ['response' | 'resolution', 'sla.at_risk' | 'sla.breached'][] = [];
            if (crossed(row.response_risk_at, row.response_risk_sent)) due.push(['response', 'sla.at_risk']);
            if (crossed(row.response_breach_at, row.response_breach_sent)) due.push(['response', 'sla.breached']);
            if (crossed(row.resolution_risk_at, row.resolution_risk_sent)) due.push(['resolution', 'sla.at_risk']);
            if (crossed(row.resolution_breach_at, row.resolution_breach_sent)) due.push(['resolution', 'sla.breached']);
            if (!due.length) continue;
            const tracker = trackerListItem(row, row.calendar_id ? (calendars.get(row.calendar_id) ?? null) : null, now);
            for (const [target, type] of due) {
              events.push({ workspaceId: row.workspace_id, type, data: { target, tracker } });
              crossings.push({
                workspaceId: row.workspace_id,
                issueId: row.issue_id,
                projectId: row.issue_project_id,
                type,
                target,
                dueAt: target === 'response' ? row.response_due_at : row.resolution_due_at,
              });
            }
            sent.push({
              workspace_id: row.workspace_id,
              id: row.id,
              response_risk_sent: row.response_risk_sent || crossed(row.response_risk_at, false),
              response_breach_sent: row.response_breach_sent || crossed(row.response_breach_at, false),
              resolution_risk_sent: row.resolution_risk_sent || crossed(row.resolution_risk_at, false),
              resolution_breach_sent: row.resolution_breach_sent || crossed(row.resolution_breach_at, false),
            });
          }
          // The whole batch in three statements (events, their deliveries, the flags), not three per tracker: the
          // embedded database is one connection, and every request waits while this transaction holds it.
          await outbox.recordMany(tx, events);
          await repo.markSent(tx, sent);
          if (crossings.length) for (const listener of crossingListeners) await listener(tx, crossings);
          recorded += events.length;
          return rows.length;
        });
        if (claimed < CLAIM) return recorded;
      }
    },
  };
}
