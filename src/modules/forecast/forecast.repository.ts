import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { WeekCount } from './forecast.logic.js';

export type ForecastRepository = ReturnType<typeof forecastRepository>;

export interface CompletionsQuery {
  workspaceId: string;
  projectId: string;
  from: Date;
  to: Date;
  timeZone: string;
}

/**
 * Issues of the project that entered the `completed` group, per local week (Monday first) of `timeZone`, within
 * [from, to): each issue once per week however often it entered. An entry is a `state` move from another group
 * into `completed` (a move between two completed states, or a state's pause flag changing, is not one), or a
 * creation straight into `completed`. One range scan of issue_history_completions_idx (migration 1020), whose
 * predicate these conditions repeat word for word, joined to the project's issues by key.
 */
const weeklyCompletionsSql = (q: CompletionsQuery) => sql<WeekCount>`
  SELECT to_char(e.week, 'YYYY-MM-DD') AS week_start, count(*)::int AS completed
  FROM (
    SELECT DISTINCT date_trunc('week', h.at AT TIME ZONE ${q.timeZone}) AS week, h.issue_id
    FROM issue_history h
    JOIN issues i ON i.workspace_id = h.workspace_id AND i.id = h.issue_id
    WHERE h.workspace_id = ${q.workspaceId} AND h.at >= ${q.from} AND h.at < ${q.to}
      AND h.kind IN ('created', 'state') AND (h."to" ->> 'group') = 'completed' AND (h."from" ->> 'group') IS DISTINCT FROM 'completed'
      AND i.workspace_id = ${q.workspaceId} AND i.project_id = ${q.projectId}
  ) e
  GROUP BY e.week`;

export function forecastRepository() {
  return {
    workspaceTimeZone(tx: Executor, workspaceId: string) {
      return tx
        .selectFrom('workspaces')
        .select('time_zone')
        .where('id', '=', workspaceId)
        .executeTakeFirstOrThrow()
        .then((r) => r.time_zone);
    },

    /**
     * Open issues (neither completed nor cancelled) and the planned finish of the project now: the latest
     * `target_date` of its issues not cancelled (contract 18.4), one scan of the project's issues.
     */
    async projectNow(tx: Executor, workspaceId: string, projectId: string): Promise<{ remaining: number; plannedFinish: string | null }> {
      const result = await sql<{ remaining: number; planned_finish: string | null }>`
        SELECT count(*) FILTER (WHERE i.state_group NOT IN ('completed', 'cancelled'))::int AS remaining,
               to_char(max(i.target_date) FILTER (WHERE i.state_group <> 'cancelled'), 'YYYY-MM-DD') AS planned_finish
        FROM issues i
        WHERE i.workspace_id = ${workspaceId} AND i.project_id = ${projectId}`.execute(tx);
      const row = result.rows[0];
      return { remaining: row?.remaining ?? 0, plannedFinish: row?.planned_finish ?? null };
    },

    /** The project's weekly completions in the window (see `weeklyCompletionsSql`). */
    async weeklyCompletions(tx: Executor, q: CompletionsQuery): Promise<WeekCount[]> {
      return (await weeklyCompletionsSql(q).execute(tx)).rows;
    },

    /** The plan of `weeklyCompletions` (EXPLAIN, with ANALYZE when asked): the benchmark and the index's test read it. */
    async explainWeeklyCompletions(tx: Executor, q: CompletionsQuery, analyze = false): Promise<string> {
      const plan = await sql<{ 'QUERY PLAN': string }>`EXPLAIN ${sql.raw(analyze ? '(ANALYZE, BUFFERS)' : '')} ${weeklyCompletionsSql(q)}`.execute(tx);
      return plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    },

    /** Whether the baseline exists and is one of the project's. */
    baselineOfProject(tx: Executor, workspaceId: string, projectId: string, baselineId: string) {
      return tx
        .selectFrom('baselines')
        .select(['id', 'project_id', 'planned_finish'])
        .where('workspace_id', '=', workspaceId)
        .where('project_id', '=', projectId)
        .where('id', '=', baselineId)
        .executeTakeFirst();
    },
  };
}
