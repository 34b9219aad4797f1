import type { Db, Executor, Tx } from '../../db/database.js';
import { isPgError, PG_ERROR } from '../../db/pg-errors.js';
import type { Outbox } from '../../kernel/outbox.js';
import type { Actor } from '../../kernel/actor.js';
import type { Clock } from '../../kernel/clock.js';
import { invalid, notFound } from '../../kernel/errors.js';
import { pageOf, type PageQuery } from '../../kernel/pagination.js';
import { newId } from '../../kernel/ids.js';
import type { IdentityService } from '../identity/index.js';
import type { WorkItemsService } from '../work-items/index.js';
import type { BaselinesRepository, ScheduleRow } from './baselines.repository.js';
import { baselineView, scheduleView } from './baselines.views.js';
import { isTimeZone, nextRunAt, scheduledName, type Weekday } from './baselines.schedule.js';
import {
  type ChangeLists,
  changeLists,
  countsFromGroups,
  countsOfBaseline,
  DEFAULT_ITEMS_LIMIT,
  deviationOf,
  planFromGroups,
  planOfBaseline,
  scheduleOf,
} from './baselines.logic.js';

export interface BaselinesDeps {
  db: Db;
  repo: BaselinesRepository;
  clock: Clock;
  identity: Pick<IdentityService, 'access'>;
  workItems: Pick<WorkItemsService, 'findProject'>;
  outbox: Outbox<Tx>;
}

export type BaselinesService = ReturnType<typeof createBaselinesService>;

export interface ScheduleInput {
  name_prefix: string;
  every: 'day' | 'week';
  weekday?: Weekday | null;
  at: string;
  time_zone: string;
  keep_last: number;
}

/** A REPEATABLE READ transaction that collided with a concurrent write (SQLSTATE 40001) is simply run again. */
async function retryOnSerializationFailure<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isPgError(error, PG_ERROR.serializationFailure) || attempt >= attempts) throw error;
    }
  }
}

export function createBaselinesService(deps: BaselinesDeps) {
  const { db, repo, clock, identity, workItems, outbox } = deps;

  /**
   * Snapshot reads run in one REPEATABLE READ transaction: every statement sees the database as of the
   * transaction's first read, so counts and per-issue rows describe one instant even while issues are written.
   */
  const snapshotRead = () => db.transaction().setIsolationLevel('repeatable read');

  async function baselineOf(tx: Executor, workspaceId: string, baselineId: string) {
    const baseline = await repo.findBaseline(tx, workspaceId, baselineId);
    if (!baseline) throw notFound('Baseline');
    return baseline;
  }

  /** The baseline to compare with instead of now: of the same workspace (else 404) and the same project (else 400). */
  async function againstOf(tx: Executor, workspaceId: string, baseline: { project_id: string }, againstId: string) {
    const against = await repo.findBaseline(tx, workspaceId, againstId);
    if (!against) throw notFound('Baseline');
    if (against.project_id !== baseline.project_id) throw invalid('/querystring/against', 'must be a baseline of the same project');
    return against;
  }

  /** Copies the project into a new baseline inside `tx` (REPEATABLE READ) and records `baseline.created`. */
  async function takeSnapshot(tx: Tx, b: { workspaceId: string; projectId: string; name: string; createdBy: string; scheduleId?: string }) {
    await repo.withoutJit(tx);
    const id = newId();
    const now = clock.now();
    await repo.insertBaseline(tx, {
      id,
      workspace_id: b.workspaceId,
      project_id: b.projectId,
      name: b.name,
      created_by: b.createdBy,
      snapshot_at: now,
      created_at: now,
      schedule_id: b.scheduleId ?? null,
    });
    const view = baselineView(await repo.snapshotIssues(tx, b.workspaceId, b.projectId, id));
    await outbox.record(tx, { workspaceId: b.workspaceId, type: 'baseline.created', data: view });
    return view;
  }

  async function snapshot(actor: Actor, slug: string, projectId: string, input: { name: string }) {
    try {
      return await snapshotRead().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        await workItems.findProject(tx, ws.workspaceId, projectId);
        return takeSnapshot(tx, { workspaceId: ws.workspaceId, projectId, name: input.name.trim(), createdBy: actor.userId });
      });
    } catch (error) {
      // the project was deleted after this transaction's snapshot: its foreign key now fails
      if (isPgError(error, PG_ERROR.foreignKeyViolation)) throw notFound('Project');
      throw error;
    }
  }

  /** One due schedule: its baseline (named by today's local date), its next run, and the oldest beyond keep_last go. */
  async function runOneSchedule(): Promise<boolean> {
    return retryOnSerializationFailure(() =>
      snapshotRead().execute(async (tx) => {
        const now = clock.now();
        const schedule = await repo.claimDueSchedule(tx, now);
        if (!schedule) return false;
        await takeSnapshot(tx, {
          workspaceId: schedule.workspace_id,
          projectId: schedule.project_id,
          name: scheduledName(schedule.name_prefix, now, schedule.time_zone),
          createdBy: schedule.created_by,
          scheduleId: schedule.id,
        });
        // After downtime the missed runs are caught up once: the next run is the first one after now.
        await repo.updateSchedule(tx, schedule.workspace_id, schedule.id, { next_run_at: nextRunAt(schedule, now) });
        await repo.pruneScheduled(tx, schedule.workspace_id, schedule.id, schedule.keep_last);
        return true;
      }),
    );
  }

  function checkRule(input: { every?: string; weekday?: Weekday | null; time_zone?: string }, current?: ScheduleRow) {
    const every = input.every ?? current?.every;
    const weekday = input.weekday !== undefined ? input.weekday : (current?.weekday ?? null);
    if (input.time_zone !== undefined && !isTimeZone(input.time_zone)) throw invalid('/time_zone', `"${input.time_zone}" is not an IANA time zone`);
    if (every === 'week' && !weekday) throw invalid('/weekday', 'is required for a weekly schedule (mon..sun)');
    return { weekday: every === 'week' ? weekday : null };
  }

  return {
    async list(actor: Actor, slug: string, projectId: string) {
      const ws = await identity.access(actor, slug, 'read');
      await workItems.findProject(db, ws.workspaceId, projectId);
      return (await repo.listBaselines(db, ws.workspaceId, projectId)).map(baselineView);
    },

    async create(actor: Actor, slug: string, projectId: string, input: { name: string }) {
      return retryOnSerializationFailure(() => snapshot(actor, slug, projectId, input));
    },

    async get(actor: Actor, slug: string, baselineId: string) {
      const ws = await identity.access(actor, slug, 'read');
      return baselineView(await baselineOf(db, ws.workspaceId, baselineId));
    },

    async deviation(actor: Actor, slug: string, baselineId: string, query: { items_limit?: number; against?: string } = {}) {
      const limit = query.items_limit ?? DEFAULT_ITEMS_LIMIT;
      return snapshotRead()
        .setAccessMode('read only')
        .execute(async (tx) => {
          const ws = await identity.access(actor, slug, 'read', tx);
          const baseline = await baselineOf(tx, ws.workspaceId, baselineId);
          const against = query.against ? await againstOf(tx, ws.workspaceId, baseline, query.against) : undefined;
          await repo.withoutJit(tx);
          const groups = against ? undefined : await repo.currentGroups(tx, ws.workspaceId, baseline.project_id);
          const current = groups ? countsFromGroups(groups) : countsOfBaseline(baselineView(against!));
          const plan = groups ? planFromGroups(groups) : planOfBaseline(baselineView(against!));
          const { rows, transitions, schedule } = await repo.changes(tx, ws.workspaceId, baseline.project_id, baseline.id, {
            limit,
            ...(against ? { against: against.id } : {}),
          });
          const view = baselineView(baseline);
          return {
            ...deviationOf(view, current, changeLists(rows, limit), limit, scheduleOf(planOfBaseline(view), plan, schedule)),
            against: against ? baselineView(against) : null,
            transitions,
          };
        });
    },

    /** One kind of the issue-by-issue comparison, paginated (against now, or another baseline). */
    async changes(actor: Actor, slug: string, baselineId: string, query: PageQuery & { kind: 'added' | 'removed' | 'changed'; against?: string }) {
      return snapshotRead()
        .setAccessMode('read only')
        .execute(async (tx) => {
          const ws = await identity.access(actor, slug, 'read', tx);
          const baseline = await baselineOf(tx, ws.workspaceId, baselineId);
          const against = query.against ? await againstOf(tx, ws.workspaceId, baseline, query.against) : undefined;
          await repo.withoutJit(tx);
          const { rows } = await repo.changes(tx, ws.workspaceId, baseline.project_id, baseline.id, {
            limit: query.per_page,
            offset: query.offset,
            kind: query.kind,
            ...(against ? { against: against.id } : {}),
          });
          const inPage = rows.filter((r) => r.rn > query.offset && r.rn <= query.offset + query.per_page);
          const lists = changeLists(inPage, Number.MAX_SAFE_INTEGER);
          const items: ChangeLists[keyof ChangeLists]['items'] = lists[query.kind].items;
          return pageOf<(typeof items)[number]>(items, rows[0]?.kind_total ?? 0, query);
        });
    },

    // ---- schedules ----

    async listSchedules(actor: Actor, slug: string, projectId: string) {
      const ws = await identity.access(actor, slug, 'read');
      await workItems.findProject(db, ws.workspaceId, projectId);
      return (await repo.listSchedules(db, ws.workspaceId, projectId)).map(scheduleView);
    },

    async createSchedule(actor: Actor, slug: string, projectId: string, input: ScheduleInput) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        await workItems.findProject(tx, ws.workspaceId, projectId);
        const { weekday } = checkRule(input);
        const now = clock.now();
        const rule = { every: input.every, weekday, at: input.at, time_zone: input.time_zone };
        const row = await repo.insertSchedule(tx, {
          id: newId(),
          workspace_id: ws.workspaceId,
          project_id: projectId,
          name_prefix: input.name_prefix.trim(),
          ...rule,
          keep_last: input.keep_last,
          next_run_at: nextRunAt(rule, now),
          created_by: actor.userId,
          created_at: now,
          updated_at: now,
        });
        return scheduleView(row);
      });
    },

    async updateSchedule(actor: Actor, slug: string, projectId: string, scheduleId: string, input: Partial<ScheduleInput>) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        const current = await repo.findSchedule(tx, ws.workspaceId, projectId, scheduleId);
        if (!current) throw notFound('Baseline schedule');
        const { weekday } = checkRule(input, current);
        const now = clock.now();
        const rule = {
          every: input.every ?? current.every,
          weekday,
          at: input.at ?? current.at,
          time_zone: input.time_zone ?? current.time_zone,
        };
        const row = await repo.updateSchedule(tx, ws.workspaceId, scheduleId, {
          ...(input.name_prefix !== undefined ? { name_prefix: input.name_prefix.trim() } : {}),
          ...(input.keep_last !== undefined ? { keep_last: input.keep_last } : {}),
          ...rule,
          next_run_at: nextRunAt(rule, now),
          updated_at: now,
        });
        if (input.keep_last !== undefined) await repo.pruneScheduled(tx, ws.workspaceId, scheduleId, input.keep_last);
        return scheduleView(row);
      });
    },

    async removeSchedule(actor: Actor, slug: string, projectId: string, scheduleId: string) {
      await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        if (!(await repo.deleteSchedule(tx, ws.workspaceId, projectId, scheduleId))) throw notFound('Baseline schedule');
      });
    },

    /** The periodic job: every due schedule once, across any number of instances. */
    async runSchedules(): Promise<{ taken: number }> {
      let taken = 0;
      while (await runOneSchedule()) taken++;
      return { taken };
    },

    async remove(actor: Actor, slug: string, baselineId: string) {
      await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        if (!(await repo.deleteBaseline(tx, ws.workspaceId, baselineId))) throw notFound('Baseline');
      });
    },
  };
}
