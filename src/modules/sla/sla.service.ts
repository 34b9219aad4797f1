import type { Db, Executor, Tx } from '../../db/database.js';
import type { Actor } from '../../kernel/actor.js';
import type { Clock } from '../../kernel/clock.js';
import { AppError, conflict, invalid, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import type { Outbox } from '../../kernel/outbox.js';
import { pageOf, type PageQuery } from '../../kernel/pagination.js';
import { iso } from '../../kernel/time.js';
import type { IdentityService } from '../identity/index.js';
import { type RuleInput, targetMs, validateRules } from './sla.domain.js';
import type { Holiday, WorkingHours } from '../../db/tables/sla.js';
import { sortWorkingHours, validateCalendar } from './sla.calendar.js';
import { createSlaEvents } from './sla.events.js';
import type { RuleRow, SlaRepository } from './sla.repository.js';
import { createRetargeter } from './sla.retarget.js';
import { createOutcomeRecorder } from './sla-reports.service.js';
import { slaReportsRepository } from './sla-reports.repository.js';
import type { BoardFilter, TrackerViewRow } from './sla.trackers.repository.js';
import { calendarView, policyView, trackerListItem, trackerView } from './sla.views.js';

export interface SlaDeps {
  db: Db;
  repo: SlaRepository;
  clock: Clock;
  identity: Pick<IdentityService, 'access'>;
  outbox: Outbox<Tx>;
}

export type SlaService = ReturnType<typeof createSlaService>;

type PolicyRow = Awaited<ReturnType<SlaRepository['insertPolicy']>>;

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

/** The `sla.totals` job's pace: counts older than this are brought up to now, this many workspaces at a time. */
const TOTALS_STALE_MS = 10_000;
const TOTALS_BATCH = 200;

const holidayRows = (holidays: NonNullable<CalendarInput['holidays']>): Holiday[] =>
  holidays.map((h) => ({ date: h.date, name: h.name ?? '', recurring: h.recurring ?? false }));

function assertCalendar(input: CalendarInput): void {
  const errors = validateCalendar({ ...input, holidays: input.holidays && holidayRows(input.holidays) });
  if (errors.length) throw new AppError('validation_failed', `${errors[0]!.path} ${errors[0]!.message}`, errors);
}

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
  const { db, repo, clock, identity, outbox } = deps;

  async function withRules(workspaceId: string, policies: PolicyRow[], tx: Executor = db) {
    const rules = await repo.listRules(
      tx,
      workspaceId,
      policies.map((p) => p.id),
    );
    return policies.map((p) =>
      policyView(
        p,
        rules.filter((r) => r.policy_id === p.id),
      ),
    );
  }

  async function assertCalendarRef(tx: Executor, workspaceId: string, calendarId: string | null | undefined) {
    if (calendarId && !(await repo.findCalendar(tx, workspaceId, calendarId))) {
      throw invalid('/calendar_id', 'is not an SLA calendar of this workspace');
    }
  }

  const retargeter = createRetargeter(repo);
  const slaEvents = createSlaEvents({ db, repo, clock, retargeter, outbox });
  // The SLA reports' outcomes of targets breached by the passing of time, recorded by the same duty (contract 20.1).
  const outcomes = createOutcomeRecorder({ db, repo: slaReportsRepository(), clock, calendarsOf: retargeter.calendarsOf });

  /** Tracker views of a page of rows, each with its calendar. */
  async function listItems(rows: TrackerViewRow[], workspaceId: string, now: Date) {
    const calendars = await retargeter.calendarsOf(db, rows, [workspaceId]);
    return rows.map((r) => trackerListItem(r, r.calendar_id ? (calendars.get(r.calendar_id) ?? null) : null, now));
  }

  /** The boards' filter; a project that is not the workspace's is a 404, as for the other project filters (search, reports). */
  async function boardFilter(workspaceId: string, projectId: string | undefined, status: 'open' | 'resolved' | undefined): Promise<BoardFilter> {
    const id = projectId?.toLowerCase();
    if (id !== undefined && !(await repo.projectExists(db, workspaceId, id))) throw notFound('Project');
    return { ...(id !== undefined && { projectId: id }), ...(status !== undefined && { status }) };
  }

  /** A page of a tracker list; a page that is not full, and not past the end, already tells the total. */
  async function trackerPage(rows: TrackerViewRow[], workspaceId: string, now: Date, page: PageQuery, count: () => Promise<number>) {
    const total = rows.length < page.per_page && (rows.length > 0 || page.offset === 0) ? page.offset + rows.length : await count();
    return pageOf(await listItems(rows, workspaceId, now), total, page);
  }

  return {
    /** Trackers breached now, across every workspace (the `sla_trackers_breached` metric). */
    countBreachedEverywhere: () => repo.countBreachedEverywhere(db, clock.now()),

    subscribe: slaEvents.subscribe,

    /** Thresholds crossed (at risk, breached), told in the transaction that records their SLA events (notifications). */
    onCrossings: slaEvents.onCrossings,

    /**
     * The `sla.totals` job: brings the kept breached and at-risk counts (migration 1070) of every workspace last
     * brought up more than TOTALS_STALE_MS ago up to now, TOTALS_BATCH workspaces per transaction. A reader is exact
     * either way; the job keeps its window (the crossings since) a few seconds wide. Returns the workspaces brought up.
     */
    runTotals: async () => {
      let advanced = 0;
      for (;;) {
        const now = clock.now();
        const n = await db.transaction().execute((tx) => repo.advanceCounts(tx, now, new Date(now.getTime() - TOTALS_STALE_MS), TOTALS_BATCH));
        advanced += n;
        if (n < TOTALS_BATCH) return advanced;
      }
    },

    /** The `sla.events` job: records crossed at-risk and breach thresholds as SLA events (contract 11.4). */
    runEvents: async () => {
      const recorded = await slaEvents.run();
      await outcomes.run();
      return recorded;
    },

    // ---- policies ---------------------------------------------------------------------------------------------

    async listPolicies(actor: Actor, slug: string) {
      const ws = await identity.access(actor, slug, 'read');
      return withRules(ws.workspaceId, await repo.listPolicies(db, ws.workspaceId));
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
          created_at: now,
          updated_at: now,
        });
        const rules = ruleRows(input.rules ?? []);
        await repo.replaceRules(tx, ws.workspaceId, policy.id, rules);
        // A new policy applies to nothing unless it is the new default.
        if (isDefault) await retargeter.retarget(tx, ws.workspaceId, { kind: 'unowned' }, now);
        return policyView(policy, rules);
      });
    },

    async updatePolicy(actor: Actor, slug: string, policyId: string, input: PolicyInput) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        assertRules(input.rules);
        await assertCalendarRef(tx, ws.workspaceId, input.calendar_id);
        await repo.lockExclusive(tx, ws.workspaceId);
        const current = await repo.findPolicy(tx, ws.workspaceId, policyId, true);
        if (!current) throw notFound('SLA policy');
        const now = clock.now();
        const defaultChanged = input.is_default !== undefined && input.is_default !== current.is_default;
        if (defaultChanged && input.is_default) await repo.unsetDefault(tx, ws.workspaceId, now);
        const updated = await repo.updatePolicy(tx, ws.workspaceId, policyId, {
          ...(input.name !== undefined && { name: input.name.trim() }),
          ...(input.description !== undefined && { description: input.description }),
          ...(input.is_default !== undefined && { is_default: input.is_default }),
          ...(input.calendar_id !== undefined && { calendar_id: input.calendar_id }),
          ...(input.at_risk_percent !== undefined && { at_risk_percent: input.at_risk_percent }),
          updated_at: now,
        });
        if (input.rules !== undefined) await repo.replaceRules(tx, ws.workspaceId, policyId, ruleRows(input.rules));
        const clockChanged =
          (input.calendar_id !== undefined && input.calendar_id !== current.calendar_id) ||
          (input.at_risk_percent !== undefined && input.at_risk_percent !== current.at_risk_percent);
        if (input.rules !== undefined || clockChanged) await retargeter.retarget(tx, ws.workspaceId, { kind: 'policy', policyId }, now);
        if (defaultChanged) await retargeter.retarget(tx, ws.workspaceId, { kind: 'unowned' }, now);
        return (await withRules(ws.workspaceId, [updated], tx))[0]!;
      });
    },

    async deletePolicy(actor: Actor, slug: string, policyId: string) {
      await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        await repo.lockExclusive(tx, ws.workspaceId);
        const policy = await repo.findPolicy(tx, ws.workspaceId, policyId, true);
        if (!policy) throw notFound('SLA policy');
        const now = clock.now();
        // Its trackers go; projects that named it fall back to the default (the foreign key clears their column);
        // then every issue of the workspace is brought in line (rows already right are not written).
        await repo.detachPolicy(tx, ws.workspaceId, policyId, now);
        await repo.deletePolicy(tx, ws.workspaceId, policyId);
        await retargeter.retarget(tx, ws.workspaceId, { kind: 'workspace' }, now);
      });
    },

    // ---- calendars --------------------------------------------------------------------------------------------

    async listCalendars(actor: Actor, slug: string) {
      const ws = await identity.access(actor, slug, 'read');
      return (await repo.listCalendars(db, ws.workspaceId)).map(calendarView);
    },

    async getCalendar(actor: Actor, slug: string, calendarId: string) {
      const ws = await identity.access(actor, slug, 'read');
      const calendar = await repo.findCalendar(db, ws.workspaceId, calendarId);
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
          created_at: clock.now(),
          updated_at: clock.now(),
        });
        return calendarView(calendar);
      });
    },

    async updateCalendar(actor: Actor, slug: string, calendarId: string, input: CalendarInput) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        assertCalendar(input);
        await repo.lockExclusive(tx, ws.workspaceId);
        const current = await repo.findCalendar(tx, ws.workspaceId, calendarId, true);
        if (!current) throw notFound('SLA calendar');
        const now = clock.now();
        const updated = await repo.updateCalendar(tx, ws.workspaceId, calendarId, {
          ...(input.name !== undefined && { name: input.name.trim() }),
          ...(input.description !== undefined && { description: input.description }),
          ...(input.time_zone !== undefined && { time_zone: input.time_zone }),
          ...(input.working_hours !== undefined && { working_hours: sortWorkingHours(input.working_hours) }),
          ...(input.holidays !== undefined && { holidays: holidayRows(input.holidays) }),
          updated_at: now,
        });
        // Working time changed: every open target counted on this calendar moves, in this transaction.
        if (input.time_zone !== undefined || input.working_hours !== undefined || input.holidays !== undefined) {
          await retargeter.retarget(tx, ws.workspaceId, { kind: 'calendar', calendarId }, now);
        }
        return calendarView(updated);
      });
    },

    async deleteCalendar(actor: Actor, slug: string, calendarId: string) {
      await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        await repo.lockExclusive(tx, ws.workspaceId);
        const calendar = await repo.findCalendar(tx, ws.workspaceId, calendarId, true);
        if (!calendar) throw notFound('SLA calendar');
        if (await repo.calendarInUse(tx, ws.workspaceId, calendarId)) throw conflict('The calendar is used by an SLA policy');
        await repo.deleteCalendar(tx, ws.workspaceId, calendarId);
      });
    },

    // ---- issue history ----------------------------------------------------------------------------------------

    async listHistory(actor: Actor, slug: string, projectId: string, issueId: string, page: PageQuery) {
      const ws = await identity.access(actor, slug, 'read');
      if (!(await repo.issueInProject(db, ws.workspaceId, projectId, issueId))) throw notFound('Issue');
      const rows = await repo.listHistory(db, ws.workspaceId, issueId, page);
      const total =
        rows.length < page.per_page && (rows.length > 0 || page.offset === 0)
          ? page.offset + rows.length
          : await repo.countHistory(db, ws.workspaceId, issueId);
      return pageOf(
        rows.map((r) => ({ id: r.id, at: iso(r.at), actor_id: r.actor_id, kind: r.kind, from: r.from ?? null, to: r.to ?? null })),
        total,
        page,
      );
    },

    // ---- trackers ---------------------------------------------------------------------------------------------

    async getIssueTracker(actor: Actor, slug: string, issueId: string) {
      const ws = await identity.access(actor, slug, 'read');
      const found = await repo.findIssueTracker(db, ws.workspaceId, issueId);
      if (!found) throw notFound('Issue');
      if (!found.tracker) throw new AppError('sla_not_applicable', 'No SLA policy or no rule for its priority applies to this issue');
      const row = found.tracker;
      const calendars = await retargeter.calendarsOf(db, [row], [ws.workspaceId]);
      return trackerView(row, row.calendar_id ? (calendars.get(row.calendar_id) ?? null) : null, clock.now());
    },

    async listBreached(actor: Actor, slug: string, query: PageQuery & { project_id?: string; status?: 'open' | 'resolved' }) {
      const ws = await identity.access(actor, slug, 'read');
      const filter = await boardFilter(ws.workspaceId, query.project_id, query.status);
      const now = clock.now();
      const rows = await repo.listBreached(db, ws.workspaceId, now, query, filter);
      return trackerPage(rows, ws.workspaceId, now, query, () => repo.countBreached(db, ws.workspaceId, now, filter));
    },

    async listAtRisk(actor: Actor, slug: string, query: PageQuery & { project_id?: string }) {
      const ws = await identity.access(actor, slug, 'read');
      const filter = await boardFilter(ws.workspaceId, query.project_id, undefined);
      const now = clock.now();
      const rows = await repo.listAtRisk(db, ws.workspaceId, now, query, filter);
      return trackerPage(rows, ws.workspaceId, now, query, () => repo.countAtRisk(db, ws.workspaceId, now, filter));
    },
  };
}
