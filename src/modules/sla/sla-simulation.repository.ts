import { type RawBuilder, sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { Holiday, RulePriority, WorkingHours } from '../../db/tables/sla.js';
import type { Priority } from '../../kernel/events.js';
import type { StoredPauses } from './sla.targets.js';

/**
 * Reads of the policy simulation (contract 20.2): a handful of set-based queries over the issues created in a range,
 * never one per issue. Instants come back as epoch milliseconds (the clock works on numbers).
 */
export type SlaSimulationRepository = ReturnType<typeof slaSimulationRepository>;

export interface SimIssueRow {
  id: string;
  created_at: number;
  priority: Priority;
  responded_at: number | null;
  resolved_at: number | null;
  pauses: StoredPauses | null;
  /** the policy that applies now: the project's, else the workspace default */
  policy_id: string | null;
}

export interface SimPriorityChangeRow {
  issue_id: string;
  at: number;
  from: Priority;
  to: Priority;
}

export interface SimPolicyRuleRow {
  policy_id: string;
  calendar_id: string | null;
  at_risk_percent: number | null;
  priority: RulePriority | null;
  response_ms: number | null;
  resolution_ms: number | null;
}

export interface SimCalendarRow {
  id: string;
  time_zone: string;
  working_hours: WorkingHours[];
  holidays: Holiday[];
}

export interface SimScope {
  workspaceId: string;
  /** [from, to) as instants */
  from: Date;
  to: Date;
  projectId: string | null;
}

const ms = (column: string) => sql.raw(`floor(extract(epoch FROM ${column}) * 1000)::float8`);

/** The issues of the scope: projects of the workspace (one index range per project on created_at), optionally one. */
const scoped = (s: SimScope, joins: RawBuilder<unknown> = sql``): RawBuilder<unknown> => sql`
  FROM projects p
  JOIN issues i ON i.project_id = p.id AND i.workspace_id = p.workspace_id
  ${joins}
  WHERE p.workspace_id = ${s.workspaceId}
    AND ${s.projectId === null ? sql`true` : sql`p.id = ${s.projectId}`}
    AND i.created_at >= ${s.from} AND i.created_at < ${s.to}`;

export function slaSimulationRepository() {
  return {
    async workspaceTimeZone(tx: Executor, workspaceId: string): Promise<string> {
      const row = await tx.selectFrom('workspaces').select('time_zone').where('id', '=', workspaceId).executeTakeFirstOrThrow();
      return row.time_zone;
    },

    async projectExists(tx: Executor, workspaceId: string, projectId: string): Promise<boolean> {
      const row = await tx.selectFrom('projects').select('id').where('workspace_id', '=', workspaceId).where('id', '=', projectId).executeTakeFirst();
      return row !== undefined;
    },

    async calendarExists(tx: Executor, workspaceId: string, calendarId: string): Promise<boolean> {
      const row = await tx.selectFrom('sla_calendars').select('id').where('workspace_id', '=', workspaceId).where('id', '=', calendarId).executeTakeFirst();
      return row !== undefined;
    },

    async countIssues(tx: Executor, s: SimScope): Promise<number> {
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n ${scoped(s)}`.execute(tx);
      return Number(rows[0]!.n);
    },

    /** The issues with their tracker's facts and the policy that applies to each now, oldest first. */
    async issues(tx: Executor, s: SimScope): Promise<SimIssueRow[]> {
      const { rows } = await sql<SimIssueRow>`
        SELECT i.id, ${ms('i.created_at')} AS created_at, i.priority,
               ${ms('t.responded_at')} AS responded_at, ${ms('t.resolved_at')} AS resolved_at, t.pauses,
               coalesce(p.sla_policy_id, d.id) AS policy_id
        ${scoped(
          s,
          sql`LEFT JOIN sla_trackers t ON t.issue_id = i.id AND t.workspace_id = i.workspace_id
              LEFT JOIN sla_policies d ON d.workspace_id = p.workspace_id AND d.is_default`,
        )}
        ORDER BY i.created_at, i.id`.execute(tx);
      return rows;
    },

    /** Every priority change of the scope's issues, by issue, oldest first (the order they were written in). */
    async priorityChanges(tx: Executor, s: SimScope): Promise<SimPriorityChangeRow[]> {
      const { rows } = await sql<SimPriorityChangeRow>`
        SELECT h.issue_id, ${ms('h.at')} AS at, h."from" #>> '{}' AS "from", h."to" #>> '{}' AS "to"
        FROM issue_history h
        WHERE h.workspace_id = ${s.workspaceId} AND h.kind = 'priority'
          AND h.issue_id IN (SELECT i.id ${scoped(s)})
        ORDER BY h.issue_id, h.at, h.seq`.execute(tx);
      return rows;
    },

    /** Every policy of the workspace with its rules (a policy without rules comes once, with a null priority). */
    async policies(tx: Executor, workspaceId: string): Promise<SimPolicyRuleRow[]> {
      const { rows } = await sql<SimPolicyRuleRow>`
        SELECT p.id AS policy_id, p.calendar_id, p.at_risk_percent, r.priority, r.response_ms, r.resolution_ms
        FROM sla_policies p
        LEFT JOIN sla_rules r ON r.workspace_id = p.workspace_id AND r.policy_id = p.id
        WHERE p.workspace_id = ${workspaceId}`.execute(tx);
      return rows;
    },

    calendars(tx: Executor, workspaceId: string, ids: string[]): Promise<SimCalendarRow[]> {
      if (!ids.length) return Promise.resolve([]);
      return tx
        .selectFrom('sla_calendars')
        .select(['id', 'time_zone', 'working_hours', 'holidays'])
        .where('workspace_id', '=', workspaceId)
        .where('id', 'in', ids)
        .execute();
    },
  };
}
