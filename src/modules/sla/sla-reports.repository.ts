import { type RawBuilder, sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { RulePriority } from '../../db/tables/sla.js';
import type { StoredPauses } from './sla.targets.js';

/** SQL of the SLA reports (contract 20.1): the report itself, and the sla.events duty's part in keeping it. */

export type ReportTarget = 'response' | 'resolution';
const TARGETS: readonly ReportTarget[] = ['response', 'resolution'];

export type ReportKey = 'period' | 'priority' | 'policy' | 'project';

export interface ReportQuery {
  workspaceId: string;
  start: Date;
  end: Date;
  key: ReportKey;
  /** period: where each period starts, then the end (see reportPeriods) */
  bounds: Date[];
  projectId?: string;
  priority?: RulePriority;
  policyId?: string;
}

/** One group's numbers for one target; `key` null: the totals. */
export interface ReportCell {
  target: ReportTarget;
  key: string | null;
  met: number;
  breached: number;
  median_seconds: number | null;
  p90_seconds: number | null;
}

/** A tracker whose met or late-met target waits for its working seconds (the duty computes them with the clock). */
export interface SecondsTodoRow {
  id: string;
  workspace_id: string;
  created_at: number;
  responded_at: number | null;
  resolved_at: number | null;
  pauses: StoredPauses;
  response_todo: boolean;
  resolution_todo: boolean;
  calendar_id: string | null;
  calendar_version: number | null;
}

/** A column of one target; `target` and `name` are constants of this file, never input. */
const col = (target: ReportTarget, name: string) => sql.ref(`t.${target}_${name}`);
const bare = (target: ReportTarget, name: string) => sql.ref(`${target}_${name}`);

/**
 * One target's outcomes in the range: a range scan of that target's partial index over (workspace_id, outcome_at),
 * which carries everything the report reads.
 */
function outcomes(q: ReportQuery, target: ReportTarget): RawBuilder<unknown> {
  return sql`
    SELECT ${sql.lit(target === 'response' ? 0 : 1)}::int AS target, ${col(target, 'outcome')} AS outcome, ${col(target, 'outcome_at')} AS at,
           ${col(target, 'outcome_seconds')} AS seconds, t.priority, t.policy_id, t.issue_id
    FROM sla_trackers t
    WHERE t.workspace_id = ${q.workspaceId} AND ${col(target, 'outcome')} IS NOT NULL
      AND ${col(target, 'outcome_at')} >= ${q.start} AND ${col(target, 'outcome_at')} < ${q.end}
      ${q.priority !== undefined ? sql`AND t.priority = ${q.priority}` : sql``}
      ${q.policyId !== undefined ? sql`AND t.policy_id = ${q.policyId}` : sql``}`;
}

function keyOf(q: ReportQuery): RawBuilder<unknown> {
  switch (q.key) {
    case 'period':
      // the bucket of the outcome instant among the periods' starts (0-based); bounds are computed with luxon
      return sql`width_bucket(o.at, ${q.bounds.map((d) => d.toISOString())}::timestamptz[]) - 1`;
    // keys sorted as what they are (integers, uuids, bytes): no collation in the grouping sort
    case 'priority':
      return sql`o.priority COLLATE "C"`;
    case 'policy':
      return sql`o.policy_id`;
    case 'project':
      return sql`i.project_id`;
  }
}

export function slaReportsRepository() {
  return {
    workspaceTimeZone(tx: Executor, workspaceId: string) {
      return tx
        .selectFrom('workspaces')
        .select('time_zone')
        .where('id', '=', workspaceId)
        .executeTakeFirstOrThrow()
        .then((r) => r.time_zone);
    },

    async projectExists(tx: Executor, workspaceId: string, projectId: string) {
      const row = await tx.selectFrom('projects').select('id').where('workspace_id', '=', workspaceId).where('id', '=', projectId).executeTakeFirst();
      return row !== undefined;
    },

    async policyExists(tx: Executor, workspaceId: string, policyId: string) {
      const row = await tx.selectFrom('sla_policies').select('id').where('workspace_id', '=', workspaceId).where('id', '=', policyId).executeTakeFirst();
      return row !== undefined;
    },

    projectLabels(tx: Executor, workspaceId: string, ids: string[]) {
      if (!ids.length) return Promise.resolve([]);
      return tx.selectFrom('projects').select(['id', 'name as label']).where('workspace_id', '=', workspaceId).where('id', 'in', ids).execute();
    },

    policyLabels(tx: Executor, workspaceId: string, ids: string[]) {
      if (!ids.length) return Promise.resolve([]);
      return tx.selectFrom('sla_policies').select(['id', 'name as label']).where('workspace_id', '=', workspaceId).where('id', 'in', ids).execute();
    },

    /**
     * Met and breached counts with the nearest-rank median and 90th percentile of the working seconds, per target and
     * key, and per target over all keys (the totals), in one pass over both targets' index ranges. PostgreSQL's
     * percentile_disc is the nearest rank (the first value whose cumulative share reaches the fraction).
     */
    async reportCells(tx: Executor, q: ReportQuery): Promise<ReportCell[]> {
      // The grouping sort of a year's outcomes stays in memory (the default 4 MB spills 100,000 trackers to disk).
      // Call in a transaction: SET LOCAL ends with it.
      await sql`SET LOCAL work_mem = '64MB'`.execute(tx);
      const needsIssue = q.key === 'project' || q.projectId !== undefined;
      const { rows } = await sql<ReportCell>`
        SELECT CASE k.target WHEN 0 THEN 'response' ELSE 'resolution' END AS target,
               CASE WHEN GROUPING(k.key) = 1 THEN NULL ELSE k.key::text END AS key,
               count(*) FILTER (WHERE k.outcome = 'met')::int AS met,
               count(*) FILTER (WHERE k.outcome = 'breached')::int AS breached,
               (percentile_disc(0.5) WITHIN GROUP (ORDER BY k.seconds) FILTER (WHERE k.seconds IS NOT NULL))::float8 AS median_seconds,
               (percentile_disc(0.9) WITHIN GROUP (ORDER BY k.seconds) FILTER (WHERE k.seconds IS NOT NULL))::float8 AS p90_seconds
        FROM (
          SELECT o.target, o.outcome, o.seconds, ${keyOf(q)} AS key
          FROM (${outcomes(q, 'response')} UNION ALL ${outcomes(q, 'resolution')}) o
          ${
            needsIssue
              ? sql`JOIN issues i ON i.id = o.issue_id AND i.workspace_id = ${q.workspaceId}
                    ${q.projectId !== undefined ? sql`AND i.project_id = ${q.projectId}` : sql``}`
              : sql``
          }
        ) k
        GROUP BY GROUPING SETS ((k.target, k.key), (k.target))`.execute(tx);
      return rows;
    },

    // ---- the sla.events duty ----------------------------------------------------------------------------------------

    /**
     * Records as breached the targets whose breach instant has passed since their tracker was last written, across
     * workspaces (a partial index holds exactly the running targets). Rows another instance holds are skipped (SKIP
     * LOCKED); returns how many were recorded (up to `limit`).
     */
    async recordBreaches(tx: Executor, target: ReportTarget, now: Date, limit: number): Promise<number> {
      const { rows } = await sql`
        UPDATE sla_trackers t SET ${bare(target, 'outcome')} = 'breached', ${bare(target, 'outcome_at')} = ${col(target, 'due_at')}
        WHERE t.id IN (
          SELECT id FROM sla_trackers
          WHERE ${bare(target, 'outcome')} IS NULL AND ${bare(target, 'breach_at')} IS NOT NULL AND ${bare(target, 'breach_at')} < ${now}
            AND ${bare(target, 'due_at')} IS NOT NULL
          ORDER BY ${bare(target, 'breach_at')} LIMIT ${limit} FOR UPDATE SKIP LOCKED
        )
        RETURNING t.id`.execute(tx);
      return rows.length;
    },

    /**
     * Claims trackers with an outcome whose working seconds are not known although the target has stopped (written
     * before migration 1040, or breached by the duty and met later without a write in between), across workspaces.
     */
    async claimSecondsTodo(tx: Executor, limit: number): Promise<SecondsTodoRow[]> {
      const ms = (c: string) => sql.raw(`floor(extract(epoch FROM ${c}) * 1000)::float8`);
      const { rows } = await sql<SecondsTodoRow>`
        SELECT t.id, t.workspace_id, ${ms('i.created_at')} AS created_at, ${ms('t.responded_at')} AS responded_at,
               ${ms('t.resolved_at')} AS resolved_at, t.pauses,
               (t.response_outcome IS NOT NULL AND t.response_outcome_seconds IS NULL AND t.responded_at IS NOT NULL) AS response_todo,
               (t.resolution_outcome IS NOT NULL AND t.resolution_outcome_seconds IS NULL AND t.resolved_at IS NOT NULL) AS resolution_todo,
               ap.calendar_id, c.version AS calendar_version
        FROM (
          SELECT id FROM sla_trackers
          WHERE (response_outcome IS NOT NULL AND response_outcome_seconds IS NULL AND responded_at IS NOT NULL)
             OR (resolution_outcome IS NOT NULL AND resolution_outcome_seconds IS NULL AND resolved_at IS NOT NULL)
          ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED
        ) todo
        JOIN sla_trackers t ON t.id = todo.id
        JOIN issues i ON i.id = t.issue_id AND i.workspace_id = t.workspace_id
        LEFT JOIN sla_policies ap ON ap.id = t.policy_id AND ap.workspace_id = t.workspace_id
        LEFT JOIN sla_calendars c ON c.id = ap.calendar_id AND c.workspace_id = t.workspace_id`.execute(tx);
      return rows;
    },

    async writeSeconds(tx: Executor, rows: { id: string; response: number | null; resolution: number | null }[]) {
      if (!rows.length) return;
      await sql`
        UPDATE sla_trackers t
        SET response_outcome_seconds = coalesce(t.response_outcome_seconds, u.response::bigint),
            resolution_outcome_seconds = coalesce(t.resolution_outcome_seconds, u.resolution::bigint)
        FROM unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.response)}::float8[], ${rows.map((r) => r.resolution)}::float8[])
          AS u(id, response, resolution)
        WHERE t.id = u.id`.execute(tx);
    },

    /** The targets of the report (constant). */
    targets: TARGETS,
  };
}

export type SlaReportsRepository = ReturnType<typeof slaReportsRepository>;
