import type { Db, Executor, Tx } from '../../db/database.js';
import type { Actor } from '../../kernel/actor.js';
import type { Clock } from '../../kernel/clock.js';
import { AppError, conflict, invalid, notFound } from '../../kernel/errors.js';
import type { EventBus, EventOf } from '../../kernel/events.js';
import { newId } from '../../kernel/ids.js';
import { pageOf, type PageQuery } from '../../kernel/pagination.js';
import { iso, isoOrNull } from '../../kernel/time.js';
import type { IdentityService } from '../identity/index.js';
import {
  breachFlags,
  RESOLVED_GROUPS,
  RESPONDED_GROUPS,
  type RuleInput,
  type RulePriority,
  sortRules,
  targetMs,
  validateRules,
} from './sla.domain.js';
import type { HistoryKind, Holiday, WorkingHours } from '../../db/tables/sla.js';
import { sortWorkingHours, validateCalendar } from './sla.calendar.js';
import type { RuleRow, SlaRepository } from './sla.repository.js';

export interface SlaDeps {
  db: Db;
  repo: SlaRepository;
  clock: Clock;
  identity: Pick<IdentityService, 'access'>;
}

export type SlaService = ReturnType<typeof createSlaService>;

type PolicyRow = Awaited<ReturnType<SlaRepository['insertPolicy']>>;
type RuleView = { priority: RulePriority; response_time_h: number; resolution_time_h: number };

export interface PolicyInput {
  name?: string;
  description?: string;
  is_default?: boolean;
  calendar_id?: string | null;
  at_risk_percent?: number | null;
  rules?: RuleInput[];
}

export interface CalendarInput {
  name?: string;
  description?: string;
  time_zone?: string;
  working_hours?: WorkingHours[];
  holidays?: { date: string; name?: string; recurring?: boolean }[];
}

type CalendarRow = Awaited<ReturnType<SlaRepository['insertCalendar']>>;

const calendarView = (c: CalendarRow) => ({
  id: c.id,
  workspace_id: c.workspace_id,
  name: c.name,
  description: c.description,
  time_zone: c.time_zone,
  working_hours: sortWorkingHours(c.working_hours),
  holidays: c.holidays,
  created_at: iso(c.created_at),
  updated_at: iso(c.updated_at),
});

const holidayRows = (holidays: NonNullable<CalendarInput['holidays']>): Holiday[] =>
  holidays.map((h) => ({ date: h.date, name: h.name ?? '', recurring: h.recurring ?? false }));

function assertCalendar(input: CalendarInput): void {
  const errors = validateCalendar({ ...input, holidays: input.holidays && holidayRows(input.holidays) });
  if (errors.length) throw new AppError('validation_failed', `${errors[0]!.path} ${errors[0]!.message}`, errors);
}

const policyView = (p: PolicyRow, rules: RuleView[]) => ({
  id: p.id,
  workspace_id: p.workspace_id,
  name: p.name,
  description: p.description,
  is_default: p.is_default,
  calendar_id: p.calendar_id,
  at_risk_percent: p.at_risk_percent,
  rules: sortRules(rules).map((r) => ({ priority: r.priority, response_time_h: r.response_time_h, resolution_time_h: r.resolution_time_h })),
  created_at: iso(p.created_at),
  updated_at: iso(p.updated_at),
});

interface TrackerRow {
  id: string;
  issue_id: string;
  policy_id: string;
  priority: RulePriority;
  response_due_at: Date;
  resolution_due_at: Date;
  responded_at: Date | null;
  resolved_at: Date | null;
}

const trackerView = (t: TrackerRow, now: Date) => ({
  id: t.id,
  issue_id: t.issue_id,
  policy_id: t.policy_id,
  priority: t.priority,
  response_due_at: iso(t.response_due_at),
  resolution_due_at: iso(t.resolution_due_at),
  responded_at: isoOrNull(t.responded_at),
  resolved_at: isoOrNull(t.resolved_at),
  ...breachFlags(t, now),
});

const ruleRows = (rules: RuleInput[]): RuleRow[] =>
  rules.map((r) => ({
    priority: r.priority,
    response_time_h: r.response_time_h,
    resolution_time_h: r.resolution_time_h,
    response_ms: targetMs(r.response_time_h),
    resolution_ms: targetMs(r.resolution_time_h),
  }));

function assertRules(rules: RuleInput[] | undefined): void {
  if (!rules) return;
  const errors = validateRules(rules);
  if (errors.length) throw new AppError('validation_failed', `${errors[0]!.path} ${errors[0]!.message}`, errors);
}

export function createSlaService(deps: SlaDeps) {
  const { db, repo, clock, identity } = deps;

  async function withRules(workspaceId: string, policies: PolicyRow[], tx: Executor = db) {
    const rules = await repo.listRules(
      workspaceId,
      policies.map((p) => p.id),
      tx,
    );
    return policies.map((p) => policyView(p, rules.filter((r) => r.policy_id === p.id)));
  }

  async function assertCalendarRef(tx: Executor, workspaceId: string, calendarId: string | null | undefined) {
    if (calendarId && !(await repo.findCalendar(workspaceId, calendarId, tx))) {
      throw invalid('/calendar_id', 'is not an SLA calendar of this workspace');
    }
  }

  // ---- event handlers: run inside the transaction of the issue change -------------------------------------------

  // ---- issue history: appended in the transaction of the change ------------------------------------------------

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

  async function historyOfCreation(tx: Tx, e: EventOf<'issue.created'>) {
    const { issue } = e;
    const pauses = await repo.statePauses(tx, [issue.stateId]);
    await repo.appendHistory(tx, [
      entry(issue.workspaceId, issue.id, e.at, issue.createdBy, 'created', null, { ...stateRef(issue.stateId, issue.stateGroup, pauses), priority: issue.priority }),
    ]);
  }

  async function historyOfUpdate(tx: Tx, e: EventOf<'issue.updated'>) {
    const { before, after } = e;
    const entries = [];
    if (before.stateId !== after.stateId) {
      const pauses = await repo.statePauses(tx, [before.stateId, after.stateId]);
      entries.push(
        entry(after.workspaceId, after.id, e.at, e.actorId ?? null, 'state', stateRef(before.stateId, before.stateGroup, pauses), stateRef(after.stateId, after.stateGroup, pauses)),
      );
    }
    if (before.priority !== after.priority) {
      entries.push(entry(after.workspaceId, after.id, e.at, e.actorId ?? null, 'priority', before.priority, after.priority));
    }
    await repo.appendHistory(tx, entries);
  }

  async function onIssueCreated(tx: Tx, e: EventOf<'issue.created'>) {
    const { issue } = e;
    await historyOfCreation(tx, e);
    await repo.lockShared(tx, issue.workspaceId);
    // Created straight into a started/completed/cancelled state: that is its response (and resolution) at creation.
    await repo.insertTrackerRow(tx, {
      id: newId(),
      workspace_id: issue.workspaceId,
      issue_id: issue.id,
      responded_at: RESPONDED_GROUPS.has(issue.stateGroup) ? e.at : null,
      resolved_at: RESOLVED_GROUPS.has(issue.stateGroup) ? e.at : null,
      now: e.at,
    });
    await repo.recompute(tx, issue.workspaceId, { kind: 'issue', issueId: issue.id }, e.at);
  }

  async function onIssueUpdated(tx: Tx, e: EventOf<'issue.updated'>) {
    const { before, after } = e;
    await historyOfUpdate(tx, e);
    await repo.lockShared(tx, after.workspaceId);
    const stateMoved = before.stateGroup !== after.stateGroup;
    if (stateMoved && RESPONDED_GROUPS.has(after.stateGroup)) await repo.markResponded(tx, after.id, e.at);
    // Reopening clears the resolution first, so the tracker is recomputed as an open one.
    if (stateMoved && !RESOLVED_GROUPS.has(after.stateGroup)) await repo.setResolved(tx, after.id, null, e.at);
    // A priority change in the same edit as a resolution applies before the tracker closes.
    await repo.recompute(tx, after.workspaceId, { kind: 'issue', issueId: after.id }, e.at);
    if (RESOLVED_GROUPS.has(after.stateGroup)) await repo.setResolved(tx, after.id, e.at, e.at);
  }

  async function onCommentCreated(tx: Tx, e: EventOf<'comment.created'>) {
    // Only a member other than the issue's creator responds (commenting needs membership).
    if (e.authorId === e.issue.createdBy) return;
    await repo.appendHistory(tx, [entry(e.issue.workspaceId, e.issue.id, e.at, e.authorId, 'comment', null, { comment_id: e.commentId })]);
    await repo.markResponded(tx, e.issue.id, e.at);
  }

  async function onProjectPolicyChanged(tx: Tx, e: EventOf<'project.sla_policy_changed'>) {
    if (e.policyId !== null && !(await repo.policyExists(tx, e.workspaceId, e.policyId))) {
      throw invalid('/sla_policy_id', 'is not an SLA policy of this workspace');
    }
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
    await repo.lockExclusive(tx, e.workspaceId);
    await repo.recompute(tx, e.workspaceId, { kind: 'project', projectId: e.projectId }, e.at);
  }

  return {
    /** Trackers breached now, across every workspace (the `sla_trackers_breached` metric). */
    countBreachedEverywhere: () => repo.countBreachedEverywhere(clock.now()),

    subscribe(events: EventBus<Tx>) {
      events.subscribe('issue.created', onIssueCreated);
      events.subscribe('issue.updated', onIssueUpdated);
      events.subscribe('comment.created', onCommentCreated);
      events.subscribe('project.sla_policy_changed', onProjectPolicyChanged);
      // issue.deleted: the tracker row goes with the issue (ON DELETE CASCADE).
    },

    // ---- policies ---------------------------------------------------------------------------------------------

    async listPolicies(actor: Actor, slug: string) {
      const ws = await identity.access(actor, slug, 'read');
      return withRules(ws.workspaceId, await repo.listPolicies(ws.workspaceId));
    },

    async createPolicy(actor: Actor, slug: string, input: PolicyInput & { name: string }) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        assertRules(input.rules);
        await assertCalendarRef(tx, ws.workspaceId, input.calendar_id);
        await repo.lockExclusive(tx, ws.workspaceId);
        const now = clock.now();
        const isDefault = input.is_default ?? false;
        if (isDefault) await repo.unsetDefault(tx, ws.workspaceId, now);
        const policy = await repo.insertPolicy(tx, {
          id: newId(),
          workspace_id: ws.workspaceId,
          name: input.name.trim(),
          description: input.description ?? '',
          is_default: isDefault,
          calendar_id: input.calendar_id ?? null,
          at_risk_percent: input.at_risk_percent === undefined ? 75 : input.at_risk_percent,
          now,
        });
        const rules = ruleRows(input.rules ?? []);
        await repo.replaceRules(tx, ws.workspaceId, policy.id, rules);
        // A new policy applies to nothing unless it is the new default.
        if (isDefault) await repo.recompute(tx, ws.workspaceId, { kind: 'unowned' }, now);
        return policyView(policy, rules);
      });
    },

    async updatePolicy(actor: Actor, slug: string, policyId: string, input: PolicyInput) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        assertRules(input.rules);
        await assertCalendarRef(tx, ws.workspaceId, input.calendar_id);
        await repo.lockExclusive(tx, ws.workspaceId);
        const current = await repo.findPolicy(ws.workspaceId, policyId, tx, true);
        if (!current) throw notFound('SLA policy');
        const now = clock.now();
        const defaultChanged = input.is_default !== undefined && input.is_default !== current.is_default;
        if (defaultChanged && input.is_default) await repo.unsetDefault(tx, ws.workspaceId, now);
        const updated = await repo.updatePolicy(tx, policyId, {
          ...(input.name !== undefined && { name: input.name.trim() }),
          ...(input.description !== undefined && { description: input.description }),
          ...(input.is_default !== undefined && { is_default: input.is_default }),
          ...(input.calendar_id !== undefined && { calendar_id: input.calendar_id }),
          ...(input.at_risk_percent !== undefined && { at_risk_percent: input.at_risk_percent }),
          updated_at: now,
        });
        if (input.rules !== undefined) {
          await repo.replaceRules(tx, ws.workspaceId, policyId, ruleRows(input.rules));
          await repo.recompute(tx, ws.workspaceId, { kind: 'policy', policyId }, now);
        }
        if (defaultChanged) await repo.recompute(tx, ws.workspaceId, { kind: 'unowned' }, now);
        return (await withRules(ws.workspaceId, [updated], tx))[0]!;
      });
    },

    async deletePolicy(actor: Actor, slug: string, policyId: string) {
      await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        await repo.lockExclusive(tx, ws.workspaceId);
        const policy = await repo.findPolicy(ws.workspaceId, policyId, tx, true);
        if (!policy) throw notFound('SLA policy');
        const now = clock.now();
        // Its trackers go; projects that named it fall back to the default (the foreign key clears their column);
        // then every issue of the workspace is brought in line (rows already right are not written).
        await repo.detachPolicy(tx, policyId, now);
        await repo.deletePolicy(tx, policyId);
        await repo.recompute(tx, ws.workspaceId, { kind: 'workspace' }, now);
      });
    },

    // ---- calendars --------------------------------------------------------------------------------------------

    async listCalendars(actor: Actor, slug: string) {
      const ws = await identity.access(actor, slug, 'read');
      return (await repo.listCalendars(ws.workspaceId)).map(calendarView);
    },

    async getCalendar(actor: Actor, slug: string, calendarId: string) {
      const ws = await identity.access(actor, slug, 'read');
      const calendar = await repo.findCalendar(ws.workspaceId, calendarId);
      if (!calendar) throw notFound('SLA calendar');
      return calendarView(calendar);
    },

    async createCalendar(actor: Actor, slug: string, input: CalendarInput & { name: string; time_zone: string; working_hours: WorkingHours[] }) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        assertCalendar(input);
        const calendar = await repo.insertCalendar(tx, {
          id: newId(),
          workspace_id: ws.workspaceId,
          name: input.name.trim(),
          description: input.description ?? '',
          time_zone: input.time_zone,
          working_hours: sortWorkingHours(input.working_hours),
          holidays: holidayRows(input.holidays ?? []),
          now: clock.now(),
        });
        return calendarView(calendar);
      });
    },

    async updateCalendar(actor: Actor, slug: string, calendarId: string, input: CalendarInput) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        assertCalendar(input);
        await repo.lockExclusive(tx, ws.workspaceId);
        const current = await repo.findCalendar(ws.workspaceId, calendarId, tx, true);
        if (!current) throw notFound('SLA calendar');
        const updated = await repo.updateCalendar(tx, calendarId, {
          ...(input.name !== undefined && { name: input.name.trim() }),
          ...(input.description !== undefined && { description: input.description }),
          ...(input.time_zone !== undefined && { time_zone: input.time_zone }),
          ...(input.working_hours !== undefined && { working_hours: sortWorkingHours(input.working_hours) }),
          ...(input.holidays !== undefined && { holidays: holidayRows(input.holidays) }),
          updated_at: clock.now(),
        });
        return calendarView(updated);
      });
    },

    async deleteCalendar(actor: Actor, slug: string, calendarId: string) {
      await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        await repo.lockExclusive(tx, ws.workspaceId);
        const calendar = await repo.findCalendar(ws.workspaceId, calendarId, tx, true);
        if (!calendar) throw notFound('SLA calendar');
        if (await repo.calendarInUse(tx, ws.workspaceId, calendarId)) throw conflict('The calendar is used by an SLA policy');
        await repo.deleteCalendar(tx, calendarId);
      });
    },

    // ---- issue history ----------------------------------------------------------------------------------------

    async listHistory(actor: Actor, slug: string, projectId: string, issueId: string, page: PageQuery) {
      const ws = await identity.access(actor, slug, 'read');
      if (!(await repo.issueInProject(ws.workspaceId, projectId, issueId))) throw notFound('Issue');
      const rows = await repo.listHistory(ws.workspaceId, issueId, page);
      const total =
        rows.length < page.per_page && (rows.length > 0 || page.offset === 0)
          ? page.offset + rows.length
          : await repo.countHistory(ws.workspaceId, issueId);
      return pageOf(
        rows.map((r) => ({ id: r.id, at: iso(r.at), actor_id: r.actor_id, kind: r.kind, from: r.from ?? null, to: r.to ?? null })),
        total,
        page,
      );
    },

    // ---- trackers ---------------------------------------------------------------------------------------------

    async getIssueTracker(actor: Actor, slug: string, issueId: string) {
      const ws = await identity.access(actor, slug, 'read');
      const row = await repo.findIssueTracker(ws.workspaceId, issueId);
      if (!row) throw notFound('Issue');
      if (!row.id || !row.policy_id) {
        throw new AppError('sla_not_applicable', 'No SLA policy or no rule for its priority applies to this issue');
      }
      return trackerView(row as TrackerRow, clock.now());
    },

    async listBreached(actor: Actor, slug: string, page: PageQuery) {
      const ws = await identity.access(actor, slug, 'read');
      const now = clock.now();
      const rows = await repo.listBreached(ws.workspaceId, now, page);
      // A page that is not full, and not past the end, already tells the total: no count needed.
      const total =
        rows.length < page.per_page && (rows.length > 0 || page.offset === 0)
          ? page.offset + rows.length
          : await repo.countBreached(ws.workspaceId, now);
      return pageOf(
        rows.map((r) => ({
          ...trackerView(r as TrackerRow, now),
          issue: {
            id: r.issue_id,
            name: r.issue_name,
            project_id: r.issue_project_id,
            sequence_id: r.issue_sequence_id,
            priority: r.issue_priority,
            state_group: r.issue_state_group,
          },
        })),
        total,
        page,
      );
    },
  };
}
