import type { Tx } from '../../db/database.js';
import type { Actor } from '../../kernel/actor.js';
import { AppError, conflict, forbidden, invalid, notFound } from '../../kernel/errors.js';
import type { EventBus, EventOf } from '../../kernel/events.js';
import { newId } from '../../kernel/ids.js';
import { pageOf, type PageQuery } from '../../kernel/pagination.js';
import { isLocalDate } from '../../kernel/time.js';
import { issueView } from '../work-items/index.js';
import type { TimeTrackingDeps } from './time-tracking.deps.js';
import type { TimesheetGroup } from './time-tracking.repository.js';
import { daysBetween, dayStarts, MAX_TIMESHEET_DAYS, timesheetCsv, timesheetRows } from './time-tracking.timesheet.js';
import { timerView, worklogView } from './time-tracking.views.js';

const MINUTE_MS = 60_000;
export const MAX_WORKLOG_MINUTES = 1440;
/** A worklog may start at most this far ahead (a plan for tomorrow morning, not next month). */
const MAX_AHEAD_MS = 24 * 60 * MINUTE_MS;

export type TimeTrackingService = ReturnType<typeof createTimeTrackingService>;

/**
 * Worklogs, the timer and the timesheet (contract 18.2, 18.3), and the planning entries of the issue history (18.1).
 * Every worklog write keeps the issue's stored `time_spent_minutes` in the same transaction.
 */
export function createTimeTrackingService(deps: TimeTrackingDeps) {
  const { db, repo, clock, identity, workItems, planGate, outbox } = deps;

  /** The issue of the project, or 404 (another project's or workspace's issue looks absent). */
  async function issueIn(tx: Tx | typeof db, workspaceId: string, projectId: string, issueId: string) {
    const issue = await workItems.findIssue(tx, workspaceId, issueId);
    if (issue.project_id !== projectId) throw notFound('Issue');
    return issue;
  }

  function startedAt(raw: string | undefined, duration: number, now: Date): Date {
    const at = raw === undefined ? new Date(now.getTime() - duration * MINUTE_MS) : new Date(raw);
    if (Number.isNaN(at.getTime())) throw invalid('/started_at', 'is not a timestamp');
    if (at.getTime() > now.getTime() + MAX_AHEAD_MS) throw invalid('/started_at', 'is more than 24 hours in the future');
    return at;
  }

  /** Inserts a worklog, adds its minutes to the issue and records `worklog.created`; answers the worklog view. */
  async function log(tx: Tx, w: { workspaceId: string; issueId: string; projectId: string; userId: string; startedAt: Date; minutes: number; note: string }) {
    const now = clock.now();
    const row = await repo.insertWorklog(tx, {
      id: newId(),
      workspace_id: w.workspaceId,
      issue_id: w.issueId,
      project_id: w.projectId,
      user_id: w.userId,
      started_at: w.startedAt,
      duration_minutes: w.minutes,
      note: w.note,
      created_at: now,
      updated_at: now,
    });
    const issue = await repo.addTimeSpent(tx, w.workspaceId, w.issueId, w.minutes);
    const worklog = worklogView(row);
    await outbox.record(tx, { workspaceId: w.workspaceId, type: 'worklog.created', data: { worklog, issue: issueView(issue) } });
    return worklog;
  }

  /** Stops the caller's running timer, if any: its run becomes worklogs of at most 1440 minutes each. */
  async function stopTimer(tx: Tx, workspaceId: string, userId: string) {
    const timer = await repo.takeTimer(tx, workspaceId, userId);
    if (!timer) return null;
    const now = clock.now();
    // Whole minutes, at least one: a timer stopped at once still logged the moment it ran.
    let left = Math.max(1, Math.floor((now.getTime() - timer.started_at.getTime()) / MINUTE_MS));
    const issue = await workItems.findIssue(tx, workspaceId, timer.issue_id);
    let at = timer.started_at.getTime();
    let last = null;
    while (left > 0) {
      const minutes = Math.min(left, MAX_WORKLOG_MINUTES);
      last = await log(tx, { workspaceId, issueId: issue.id, projectId: issue.project_id, userId, startedAt: new Date(at), minutes, note: '' });
      at += minutes * MINUTE_MS;
      left -= minutes;
    }
    return last;
  }

  /** History kinds `dates` and `estimate` (contract 18.1): from/to as stored, null included. */
  async function onPlanningChanged(tx: Tx, e: EventOf<'issue.planning_changed'>) {
    const { before, after } = e;
    const entry = (kind: 'dates' | 'estimate', from: unknown, to: unknown) => ({
      id: newId(),
      workspace_id: e.workspaceId,
      issue_id: e.issueId,
      at: e.at,
      actor_id: e.actorId ?? null,
      kind,
      from,
      to,
    });
    const entries = [];
    if (before.start_date !== after.start_date || before.target_date !== after.target_date) {
      entries.push(
        entry('dates', { start_date: before.start_date, target_date: before.target_date }, { start_date: after.start_date, target_date: after.target_date }),
      );
    }
    if (before.estimate_minutes !== after.estimate_minutes || before.remaining_minutes !== after.remaining_minutes) {
      entries.push(
        entry(
          'estimate',
          { estimate_minutes: before.estimate_minutes, remaining_minutes: before.remaining_minutes },
          { estimate_minutes: after.estimate_minutes, remaining_minutes: after.remaining_minutes },
        ),
      );
    }
    await repo.appendHistory(tx, entries);
  }

  return {
    subscribe(events: EventBus<Tx>) {
      events.subscribe('issue.planning_changed', onPlanningChanged);
    },

    async listWorklogs(actor: Actor, slug: string, projectId: string, issueId: string, page: PageQuery) {
      const ws = await identity.access(actor, slug, 'read');
      await issueIn(db, ws.workspaceId, projectId, issueId);
      const { rows, total } = await repo.listWorklogs(db, ws.workspaceId, issueId, page);
      return pageOf(rows.map(worklogView), total, page);
    },

    async createWorklog(
      actor: Actor,
      slug: string,
      projectId: string,
      issueId: string,
      input: { duration_minutes: number; started_at?: string; note?: string; user_id?: string },
    ) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'write_items', tx);
        const userId = input.user_id ?? actor.userId;
        if (userId !== actor.userId) {
          if (ws.role !== 'admin') throw forbidden('Only an admin logs time for another member');
          await identity.assertMembers(tx, ws.workspaceId, [userId], '/user_id');
        }
        await planGate.assertFeature(tx, ws.workspaceId, 'time_tracking');
        const issue = await issueIn(tx, ws.workspaceId, projectId, issueId);
        const at = startedAt(input.started_at, input.duration_minutes, clock.now());
        return log(tx, {
          workspaceId: ws.workspaceId,
          issueId: issue.id,
          projectId,
          userId,
          startedAt: at,
          minutes: input.duration_minutes,
          note: input.note ?? '',
        });
      });
    },

    async updateWorklog(
      actor: Actor,
      slug: string,
      projectId: string,
      issueId: string,
      worklogId: string,
      input: { duration_minutes?: number; started_at?: string; note?: string },
    ) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'write_items', tx);
        await issueIn(tx, ws.workspaceId, projectId, issueId);
        const before = await repo.findWorklog(tx, ws.workspaceId, issueId, worklogId, true);
        if (!before) throw notFound('Worklog');
        if (before.user_id !== actor.userId && ws.role !== 'admin') throw forbidden('Only its author or an admin edits a worklog');
        await planGate.assertFeature(tx, ws.workspaceId, 'time_tracking');
        const now = clock.now();
        const duration = input.duration_minutes ?? before.duration_minutes;
        const row = await repo.updateWorklog(tx, ws.workspaceId, worklogId, {
          ...(input.duration_minutes !== undefined && { duration_minutes: input.duration_minutes }),
          ...(input.started_at !== undefined && { started_at: startedAt(input.started_at, duration, now) }),
          ...(input.note !== undefined && { note: input.note }),
          updated_at: now,
        });
        const issue = await repo.addTimeSpent(tx, ws.workspaceId, issueId, row.duration_minutes - before.duration_minutes);
        const worklog = worklogView(row);
        await outbox.record(tx, { workspaceId: ws.workspaceId, type: 'worklog.updated', data: { worklog, issue: issueView(issue) } });
        return worklog;
      });
    },

    async deleteWorklog(actor: Actor, slug: string, projectId: string, issueId: string, worklogId: string) {
      await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'write_items', tx);
        await issueIn(tx, ws.workspaceId, projectId, issueId);
        const row = await repo.findWorklog(tx, ws.workspaceId, issueId, worklogId, true);
        if (!row) throw notFound('Worklog');
        if (row.user_id !== actor.userId && ws.role !== 'admin') throw forbidden('Only its author or an admin deletes a worklog');
        await planGate.assertFeature(tx, ws.workspaceId, 'time_tracking');
        await repo.deleteWorklog(tx, ws.workspaceId, worklogId);
        const issue = await repo.addTimeSpent(tx, ws.workspaceId, issueId, -row.duration_minutes);
        await outbox.record(tx, { workspaceId: ws.workspaceId, type: 'worklog.deleted', data: { worklog: worklogView(row), issue: issueView(issue) } });
      });
    },

    async getTimer(actor: Actor, slug: string) {
      const ws = await identity.access(actor, slug, 'read');
      const timer = await repo.findTimer(db, ws.workspaceId, actor.userId);
      return timer ? timerView(timer) : null;
    },

    async startTimer(actor: Actor, slug: string, input: { issue_id: string }) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'write_items', tx);
        await planGate.assertFeature(tx, ws.workspaceId, 'time_tracking');
        const issue = await workItems.findIssue(tx, ws.workspaceId, input.issue_id);
        await stopTimer(tx, ws.workspaceId, actor.userId);
        const timer = await repo.insertTimer(tx, { workspace_id: ws.workspaceId, user_id: actor.userId, issue_id: issue.id, started_at: clock.now() });
        return timerView(timer);
      });
    },

    async stopTimer(actor: Actor, slug: string) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'write_items', tx);
        await planGate.assertFeature(tx, ws.workspaceId, 'time_tracking');
        const worklog = await stopTimer(tx, ws.workspaceId, actor.userId);
        if (!worklog) throw conflict('No timer is running');
        return worklog;
      });
    },

    async timesheet(actor: Actor, slug: string, query: { from: string; to: string; group_by: TimesheetGroup; user_id?: string; project_id?: string }) {
      // Admins and members: a guest reads work items, not how long colleagues worked.
      const ws = await identity.access(actor, slug, 'write_items');
      const errors = [];
      for (const key of ['from', 'to'] as const)
        if (!isLocalDate(query[key])) errors.push({ path: `/querystring/${key}`, message: 'is not a date (YYYY-MM-DD)' });
      if (!errors.length && query.from > query.to) errors.push({ path: '/querystring/to', message: 'is before from' });
      const span = errors.length ? 0 : (Date.parse(query.to) - Date.parse(query.from)) / 86_400_000 + 1;
      if (span > MAX_TIMESHEET_DAYS) errors.push({ path: '/querystring/to', message: `the range is over ${MAX_TIMESHEET_DAYS} days` });
      if (errors.length) throw new AppError('validation_failed', `${errors[0]!.path} ${errors[0]!.message}`, errors);

      const days = daysBetween(query.from, query.to);
      const timeZone = await repo.workspaceTimeZone(db, ws.workspaceId);
      const starts = dayStarts(query.from, query.to, timeZone);
      const range = { from: starts[0]!, to: starts[starts.length - 1]! };
      const cells = await repo.timesheetCells(db, {
        workspaceId: ws.workspaceId,
        days,
        dayStarts: starts,
        groupBy: query.group_by,
        ...(query.user_id !== undefined && { userId: query.user_id }),
        ...(query.project_id !== undefined && { projectId: query.project_id }),
      });
      const keys = [...new Set(cells.map((c) => c.key))];
      const labelRows =
        query.group_by === 'user'
          ? await repo.userLabels(db, ws.workspaceId, keys, range)
          : query.group_by === 'project'
            ? await repo.projectLabels(db, ws.workspaceId, keys)
            : await repo.issueLabels(db, ws.workspaceId, keys);
      const rows = timesheetRows(cells, new Map(labelRows.map((r) => [r.id, r.label])));
      return {
        from: query.from,
        to: query.to,
        time_zone: timeZone,
        group_by: query.group_by,
        total_minutes: rows.reduce((sum, r) => sum + r.minutes, 0),
        days,
        rows,
      };
    },

    timesheetCsv,
  };
}
