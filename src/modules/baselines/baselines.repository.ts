import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { Priority, StateGroup } from '../../kernel/events.js';

export type BaselinesRepository = ReturnType<typeof baselinesRepository>;

/** Issues present on both sides whose state group or priority moved: `{"backlog->started": n}`. */
export interface Transitions {
  state: Record<string, number>;
  priority: Record<string, number>;
}

/** Target-date moves of issues on both sides, grouped by (baseline date set, date set now, days moved). */
export interface MoveGroup {
  from_set: boolean;
  to_set: boolean;
  /** now minus baseline, in days; null unless both dates are set */
  days: number | null;
  n: number;
}

/** What the comparison adds up for the schedule of the deviation. */
export interface ScheduleSums {
  moves: MoveGroup[];
  added_estimate_minutes: number;
  removed_estimate_minutes: number;
}

/** One row of the issue-by-issue comparison. */
export interface ChangeRow {
  kind: 'added' | 'removed' | 'changed';
  id: string;
  sequence_id: number;
  name: string;
  from_state_group: StateGroup | null;
  from_priority: Priority | null;
  to_state_group: StateGroup | null;
  to_priority: Priority | null;
  /** `YYYY-MM-DD` or null, at the baseline (from) and now or in `against` (to). */
  from_target_date: string | null;
  to_target_date: string | null;
  from_estimate_minutes: number | null;
  to_estimate_minutes: number | null;
  /** Both sides recorded the planning fields (neither is a snapshot written before migration 1010). */
  planned: boolean;
  /** How many rows of this kind exist in all, before the cap. */
  kind_total: number;
  /** 1-based rank of the row within its kind. */
  rn: number;
}

const baselineColumns = [
  'id',
  'workspace_id',
  'project_id',
  'name',
  'total_issues',
  'completed_issues',
  'state_backlog',
  'state_unstarted',
  'state_started',
  'state_completed',
  'state_cancelled',
  'priority_urgent',
  'priority_high',
  'priority_medium',
  'priority_low',
  'priority_none',
  'snapshot_at',
  'created_by',
  'created_at',
  'schedule_id',
  'planned_finish',
  'total_estimate_minutes',
  'total_time_spent_minutes',
] as const;

const scheduleColumns = [
  'id',
  'workspace_id',
  'project_id',
  'name_prefix',
  'every',
  'weekday',
  'at',
  'time_zone',
  'keep_last',
  'next_run_at',
  'created_by',
  'created_at',
  'updated_at',
] as const;

export type ScheduleRow = Selectable<Database['baseline_schedules']>;

export function baselinesRepository() {
  return {
    /**
     * For the rest of the transaction, no JIT compilation: these queries touch 10^5 rows in well under a second,
     * while their cost estimates cross PostgreSQL's JIT thresholds and compiling took longer (0.6 s) than running.
     */
    async withoutJit(tx: Executor) {
      await sql`SET LOCAL jit = off`.execute(tx);
    },

    /** The baseline row, with every count at zero until `snapshotIssues` fills it. */
    async insertBaseline(tx: Executor, b: Insertable<Database['baselines']>) {
      await tx.insertInto('baselines').values(b).execute();
    },

    /**
     * Copies every issue of the project into the baseline's items (one INSERT ... SELECT), then sets the baseline's
     * counts, planned finish and effort totals by aggregating exactly the rows it copied, so counts and items can
     * never disagree. (Feeding the aggregate from the INSERT's RETURNING, in one statement, measured slower: the
     * returned rows are materialised, while the second scan reads pages the INSERT has just left in memory.)
     */
    async snapshotIssues(tx: Executor, workspaceId: string, projectId: string, baselineId: string) {
      await tx
        .insertInto('baseline_items')
        .columns([
          'workspace_id',
          'baseline_id',
          'issue_id',
          'sequence_id',
          'name',
          'state_group',
          'priority',
          'start_date',
          'target_date',
          'estimate_minutes',
          'time_spent_minutes',
        ])
        // the baseline row supplies (workspace_id, baseline_id): items can only point at a baseline that exists
        .expression((eb) =>
          eb
            .selectFrom('baselines as b')
            .innerJoin('issues as i', (join) => join.onRef('i.workspace_id', '=', 'b.workspace_id').onRef('i.project_id', '=', 'b.project_id'))
            .select([
              'b.workspace_id',
              'b.id',
              'i.id',
              'i.sequence_id',
              'i.name',
              'i.state_group',
              'i.priority',
              'i.start_date',
              'i.target_date',
              'i.estimate_minutes',
              'i.time_spent_minutes',
            ])
            .where('b.id', '=', baselineId)
            .where('b.workspace_id', '=', workspaceId)
            .where('b.project_id', '=', projectId),
        )
        .execute();
      const n = (column: 'state_group' | 'priority', value: string) => sql<number>`count(*) FILTER (WHERE ${sql.ref(column)} = ${value})::int`;
      return tx
        .with('counted', (qb) =>
          qb
            .selectFrom('baseline_items')
            .where('workspace_id', '=', workspaceId)
            .where('baseline_id', '=', baselineId)
            .select([
              sql<number>`count(*)::int`.as('total'),
              n('state_group', 'backlog').as('backlog'),
              n('state_group', 'unstarted').as('unstarted'),
              n('state_group', 'started').as('started'),
              n('state_group', 'completed').as('completed'),
              n('state_group', 'cancelled').as('cancelled'),
              n('priority', 'urgent').as('urgent'),
              n('priority', 'high').as('high'),
              n('priority', 'medium').as('medium'),
              n('priority', 'low').as('low'),
              n('priority', 'none').as('none'),
              // the latest target date of the issues not cancelled; sums over every issue (none: 0)
              sql<string | null>`max(target_date) FILTER (WHERE state_group <> 'cancelled')`.as('planned_finish'),
              sql<number>`coalesce(sum(estimate_minutes), 0)::bigint`.as('estimate'),
              sql<number>`coalesce(sum(time_spent_minutes), 0)::bigint`.as('time_spent'),
            ]),
        )
        .updateTable('baselines')
        .from('counted')
        .set((eb) => ({
          total_issues: eb.ref('counted.total'),
          completed_issues: eb.ref('counted.completed'),
          state_backlog: eb.ref('counted.backlog'),
          state_unstarted: eb.ref('counted.unstarted'),
          state_started: eb.ref('counted.started'),
          state_completed: eb.ref('counted.completed'),
          state_cancelled: eb.ref('counted.cancelled'),
          priority_urgent: eb.ref('counted.urgent'),
          priority_high: eb.ref('counted.high'),
          priority_medium: eb.ref('counted.medium'),
          priority_low: eb.ref('counted.low'),
          priority_none: eb.ref('counted.none'),
          planned_finish: eb.ref('counted.planned_finish'),
          total_estimate_minutes: eb.ref('counted.estimate'),
          total_time_spent_minutes: eb.ref('counted.time_spent'),
        }))
        .where('baselines.id', '=', baselineId)
        .where('baselines.workspace_id', '=', workspaceId)
        .returning(baselineColumns.map((c) => `baselines.${c}` as const))
        .executeTakeFirstOrThrow();
    },

    findBaseline(tx: Executor, workspaceId: string, baselineId: string) {
      return tx.selectFrom('baselines').select(baselineColumns).where('workspace_id', '=', workspaceId).where('id', '=', baselineId).executeTakeFirst();
    },

    /** Newest first; the id (UUID v7, time-ordered) breaks ties between baselines of the same instant. */
    listBaselines(tx: Executor, workspaceId: string, projectId: string) {
      return tx
        .selectFrom('baselines')
        .select(baselineColumns)
        .where('workspace_id', '=', workspaceId)
        .where('project_id', '=', projectId)
        .orderBy('snapshot_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
    },

    /** Deletes the baseline (its items go with it, by the table's trigger); false when there was none. */
    async deleteBaseline(tx: Executor, workspaceId: string, baselineId: string) {
      const result = await tx.deleteFrom('baselines').where('workspace_id', '=', workspaceId).where('id', '=', baselineId).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    /**
     * The project's issues now, counted by (state group, priority), with each group's latest target date and effort
     * sums: at most 25 rows, one scan.
     */
    currentGroups(tx: Executor, workspaceId: string, projectId: string) {
      return tx
        .selectFrom('issues')
        .select((eb) => [
          'state_group',
          'priority',
          eb.fn.countAll<number>().as('n'),
          eb.fn.max('target_date').as('max_target_date'),
          sql<number>`coalesce(sum(estimate_minutes), 0)::bigint`.as('estimate_minutes'),
          sql<number>`coalesce(sum(time_spent_minutes), 0)::bigint`.as('time_spent_minutes'),
        ])
        .where('workspace_id', '=', workspaceId)
        .where('project_id', '=', projectId)
        .groupBy(['state_group', 'priority'])
        .execute();
    },

    /**
     * The issue-by-issue comparison of a baseline with the project now, or with another baseline (`against`): issues
     * added since (no item), removed since (no issue) and changed (another state group or priority), each kind cut
     * to the rows ranked `offset + 1 .. offset + limit` by sequence_id (`kind` keeps one kind only), every row with
     * its rank and the uncut number of its kind; and the transitions of the changed issues, counted. One statement,
     * one join.
     */
    async changes(
      tx: Executor,
      workspaceId: string,
      projectId: string,
      baselineId: string,
      page: { limit: number; offset?: number; kind?: 'added' | 'removed' | 'changed'; against?: string },
    ): Promise<{ rows: ChangeRow[]; transitions: Transitions; schedule: ScheduleSums }> {
      const offset = page.offset ?? 0;
      // The full join carries only ids, numbers, groups and priorities (narrow rows hash without spilling); names
      // are looked up afterwards for the few rows that come back.
      const cur = page.against
        ? sql`SELECT issue_id AS id, sequence_id, state_group, priority, target_date, estimate_minutes, time_spent_minutes FROM baseline_items
              WHERE baseline_id = ${page.against} AND workspace_id = ${workspaceId}`
        : sql`SELECT id, sequence_id, state_group, priority, target_date, estimate_minutes, time_spent_minutes FROM issues
              WHERE workspace_id = ${workspaceId} AND project_id = ${projectId}`;
      const currentName = page.against
        ? sql`(SELECT bi.name FROM baseline_items bi WHERE bi.baseline_id = ${page.against} AND bi.issue_id = r.id AND bi.workspace_id = ${workspaceId})`
        : sql`(SELECT i.name FROM issues i WHERE i.id = r.id AND i.workspace_id = ${workspaceId})`;
      const { rows } = await sql<{ rows: ChangeRow[] | null; transitions: Transitions; schedule: ScheduleSums }>`
        WITH cur AS (${cur}), base AS (
          SELECT issue_id, sequence_id, state_group, priority, target_date, estimate_minutes, time_spent_minutes FROM baseline_items
          WHERE baseline_id = ${baselineId} AND workspace_id = ${workspaceId}
        ), joined AS (
          SELECT b.issue_id AS b_id, c.id AS c_id, coalesce(c.id, b.issue_id) AS id, coalesce(c.sequence_id, b.sequence_id) AS sequence_id,
            b.state_group AS from_state_group, b.priority AS from_priority,
            c.state_group AS to_state_group, c.priority AS to_priority,
            b.target_date AS from_target_date, c.target_date AS to_target_date,
            b.estimate_minutes AS from_estimate_minutes, c.estimate_minutes AS to_estimate_minutes,
            -- time_spent_minutes is never null on an issue, nor on an item written since migration 1010
            (b.time_spent_minutes IS NOT NULL AND c.time_spent_minutes IS NOT NULL) AS planned
          FROM cur c FULL JOIN base b ON b.issue_id = c.id
        ), diff AS MATERIALIZED (
          SELECT
            CASE WHEN b_id IS NULL THEN 'added' WHEN c_id IS NULL THEN 'removed' ELSE 'changed' END AS kind,
            id, sequence_id, from_state_group, from_priority, to_state_group, to_priority,
            from_target_date, to_target_date, from_estimate_minutes, to_estimate_minutes, planned
          FROM joined
          WHERE b_id IS NULL OR c_id IS NULL OR from_state_group <> to_state_group OR from_priority <> to_priority
            OR (planned AND (from_target_date IS DISTINCT FROM to_target_date OR from_estimate_minutes IS DISTINCT FROM to_estimate_minutes))
        ), ranked AS (
          SELECT diff.*,
            row_number() OVER (PARTITION BY kind ORDER BY sequence_id, id)::int AS rn,
            count(*) OVER (PARTITION BY kind)::int AS kind_total
          FROM diff
          ${page.kind ? sql`WHERE kind = ${page.kind}` : sql``}
        )
        SELECT
          (SELECT json_agg(x ORDER BY x.kind, x.sequence_id, x.id) FROM (
            SELECT r.kind, r.id, r.sequence_id,
              -- one primary-key lookup per returned row: the name now (or in \`against\`), or at snapshot time if removed
              CASE WHEN r.kind = 'removed'
                THEN (SELECT bi.name FROM baseline_items bi WHERE bi.baseline_id = ${baselineId} AND bi.issue_id = r.id AND bi.workspace_id = ${workspaceId})
                ELSE ${currentName}
              END AS name,
              r.from_state_group, r.from_priority, r.to_state_group, r.to_priority,
              r.from_target_date, r.to_target_date, r.from_estimate_minutes, r.to_estimate_minutes, r.planned, r.kind_total, r.rn
            FROM ranked r
            -- the first row of a kind always comes back, so that a limit of 0 still reports the counts
            WHERE (r.rn > ${offset}::int AND r.rn <= ${offset}::int + ${page.limit}::int) OR r.rn = 1
          ) x) AS rows,
          json_build_object(
            'state', coalesce((SELECT json_object_agg(t.k, t.n ORDER BY t.k) FROM (
                SELECT from_state_group || '->' || to_state_group AS k, count(*)::int AS n FROM diff
                WHERE kind = 'changed' AND from_state_group <> to_state_group GROUP BY 1) t), '{}'::json),
            'priority', coalesce((SELECT json_object_agg(t.k, t.n ORDER BY t.k) FROM (
                SELECT from_priority || '->' || to_priority AS k, count(*)::int AS n FROM diff
                WHERE kind = 'changed' AND from_priority <> to_priority GROUP BY 1) t), '{}'::json)
          ) AS transitions,
          json_build_object(
            -- the target-date moves of issues on both sides, grouped losslessly; the rules (slipped, pulled in, slip
            -- days) are applied by slipSums in baselines.logic.ts
            'moves', coalesce((SELECT json_agg(m ORDER BY m.from_set, m.to_set, m.days) FROM (
                SELECT from_target_date IS NOT NULL AS from_set, to_target_date IS NOT NULL AS to_set,
                  (to_target_date - from_target_date) AS days, count(*)::int AS n
                FROM diff WHERE kind = 'changed' AND planned AND from_target_date IS DISTINCT FROM to_target_date
                GROUP BY 1, 2, 3) m), '[]'::json),
            'added_estimate_minutes', (SELECT coalesce(sum(to_estimate_minutes), 0) FROM diff WHERE kind = 'added'),
            'removed_estimate_minutes', (SELECT coalesce(sum(from_estimate_minutes), 0) FROM diff WHERE kind = 'removed')
          ) AS schedule
      `.execute(tx);
      return { rows: rows[0]?.rows ?? [], transitions: rows[0]!.transitions, schedule: rows[0]!.schedule };
    },

    // ---- schedules ----

    listSchedules(tx: Executor, workspaceId: string, projectId: string) {
      return tx
        .selectFrom('baseline_schedules')
        .select(scheduleColumns)
        .where('workspace_id', '=', workspaceId)
        .where('project_id', '=', projectId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },

    findSchedule(tx: Executor, workspaceId: string, projectId: string, id: string) {
      return tx
        .selectFrom('baseline_schedules')
        .select(scheduleColumns)
        .where('workspace_id', '=', workspaceId)
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    insertSchedule(tx: Executor, row: Insertable<Database['baseline_schedules']>) {
      return tx.insertInto('baseline_schedules').values(row).returning(scheduleColumns).executeTakeFirstOrThrow();
    },

    updateSchedule(tx: Executor, workspaceId: string, id: string, patch: Updateable<Database['baseline_schedules']>) {
      return tx
        .updateTable('baseline_schedules')
        .set(patch)
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .returning(scheduleColumns)
        .executeTakeFirstOrThrow();
    },

    async deleteSchedule(tx: Executor, workspaceId: string, projectId: string, id: string): Promise<boolean> {
      const res = await tx
        .deleteFrom('baseline_schedules')
        .where('workspace_id', '=', workspaceId)
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .executeTakeFirst();
      return res.numDeletedRows > 0n;
    },

    /**
     * One due schedule of any workspace (the scheduler's scan), locked for this transaction; another instance skips it
     * (SKIP LOCKED). The row carries its workspace_id, which scopes every write that follows.
     */
    claimDueSchedule(tx: Executor, now: Date) {
      return tx
        .selectFrom('baseline_schedules')
        .select(scheduleColumns)
        .where('next_run_at', '<=', now)
        .orderBy('next_run_at')
        .limit(1)
        .forUpdate()
        .skipLocked()
        .executeTakeFirst();
    },

    /** Deletes the schedule's baselines beyond the newest `keep`. */
    async pruneScheduled(tx: Executor, workspaceId: string, scheduleId: string, keep: number): Promise<void> {
      await sql`
        DELETE FROM baselines WHERE workspace_id = ${workspaceId} AND id IN (
          SELECT id FROM baselines WHERE workspace_id = ${workspaceId} AND schedule_id = ${scheduleId}
          ORDER BY created_at DESC, id DESC OFFSET ${keep})`.execute(tx);
    },
  };
}
