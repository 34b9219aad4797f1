import { type Insertable, type RawBuilder, sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { Holiday, RulePriority, WorkingHours } from '../../db/tables/sla.js';
import type { StoredPauses } from './sla.targets.js';

/** Which threshold events of a tracker are recorded (sla_trackers' four `*_sent` flags). */
export interface SentFlags {
  workspace_id: string;
  id: string;
  response_risk_sent: boolean;
  response_breach_sent: boolean;
  resolution_risk_sent: boolean;
  resolution_breach_sent: boolean;
}

/** Which trackers a re-targeting looks at (always within one workspace). */
export type RetargetScope =
  | { kind: 'issue'; issueId: string }
  | { kind: 'issues'; issueIds: string[] }
  | { kind: 'project'; projectId: string }
  /** issues whose project names this policy, or uses the default when this policy is the default */
  | { kind: 'policy'; policyId: string }
  /** issues whose applicable policy counts on this calendar */
  | { kind: 'calendar'; calendarId: string }
  /** issues in this state */
  | { kind: 'state'; stateId: string }
  /** issues of projects that name no policy (they use the workspace default) */
  | { kind: 'unowned' }
  | { kind: 'workspace' };

function scopeCondition(scope: RetargetScope): RawBuilder<unknown> {
  switch (scope.kind) {
    case 'issue':
      return sql`i.id = ${scope.issueId}`;
    case 'issues':
      return sql`i.id = ANY(${scope.issueIds}::uuid[])`;
    case 'project':
      return sql`i.project_id = ${scope.projectId}`;
    case 'policy':
      return sql`(p.sla_policy_id = ${scope.policyId} OR (p.sla_policy_id IS NULL AND d.id = ${scope.policyId}))`;
    case 'calendar':
      return sql`ap.calendar_id = ${scope.calendarId}`;
    case 'state':
      return sql`i.state_id = ${scope.stateId}`;
    case 'unowned':
      return sql`p.sla_policy_id IS NULL`;
    case 'workspace':
      return sql`true`;
  }
}

/** What a re-targeting writes (instants in epoch milliseconds); only rows that differ from what is stored. */
export interface TrackerWrite {
  id: string;
  policy_id: string | null;
  priority: RulePriority | null;
  response_due_at: number | null;
  response_risk_at: number | null;
  response_breach_at: number | null;
  resolution_due_at: number | null;
  resolution_risk_at: number | null;
  resolution_breach_at: number | null;
  paused: boolean;
  response_settled: boolean;
  resolution_settled: boolean;
  response_risk_sent: boolean;
  response_breach_sent: boolean;
  resolution_risk_sent: boolean;
  resolution_breach_sent: boolean;
  /** Migration 1040: each target's outcome for the SLA reports (sla-reports.logic.ts), instants in epoch ms */
  response_outcome: 'met' | 'breached' | null;
  response_outcome_at: number | null;
  response_outcome_seconds: number | null;
  resolution_outcome: 'met' | 'breached' | null;
  resolution_outcome_at: number | null;
  resolution_outcome_seconds: number | null;
}

/** A tracker with its facts, what it stores (a TrackerWrite), and the policy and rule that apply to its issue now. */
export interface RetargetRow extends TrackerWrite {
  created_at: number;
  responded_at: number | null;
  resolved_at: number | null;
  pauses: StoredPauses;
  /** the applicable policy and rule (null: none applies) */
  rule_policy_id: string | null;
  rule_priority: RulePriority | null;
  response_ms: number | null;
  resolution_ms: number | null;
  at_risk_percent: number | null;
  calendar_id: string | null;
  calendar_version: number | null;
}

/** A tracker as the API shows it, with what the read-time clock needs (its rule and calendar). */
export interface TrackerViewRow {
  id: string;
  workspace_id: string;
  issue_id: string;
  policy_id: string;
  priority: RulePriority;
  created_at: Date;
  responded_at: Date | null;
  resolved_at: Date | null;
  pauses: StoredPauses;
  response_due_at: Date;
  response_risk_at: Date | null;
  response_breach_at: Date | null;
  resolution_due_at: Date;
  resolution_risk_at: Date | null;
  resolution_breach_at: Date | null;
  response_settled: boolean;
  resolution_settled: boolean;
  response_ms: number | null;
  resolution_ms: number | null;
  at_risk_percent: number | null;
  calendar_id: string | null;
  calendar_version: number | null;
  issue_name: string;
  issue_project_id: string;
  issue_sequence_id: number;
  issue_priority: 'urgent' | 'high' | 'medium' | 'low' | 'none';
  issue_state_group: 'backlog' | 'unstarted' | 'started' | 'completed' | 'cancelled';
}

export interface CalendarRowForClock {
  id: string;
  version: number;
  time_zone: string;
  working_hours: WorkingHours[];
  holidays: Holiday[];
}

/** The columns of a tracker view: the tracker, the issue's creation and summary, its rule and calendar now. */
const viewSelect = sql`
  t.id, t.workspace_id, t.issue_id, t.policy_id, t.priority, i.created_at, t.responded_at, t.resolved_at, t.pauses,
  t.response_due_at, t.response_risk_at, t.response_breach_at,
  t.resolution_due_at, t.resolution_risk_at, t.resolution_breach_at,
  t.response_settled, t.resolution_settled,
  r.response_ms, r.resolution_ms, ap.at_risk_percent, ap.calendar_id, c.version AS calendar_version,
  i.name AS issue_name, i.project_id AS issue_project_id, i.sequence_id AS issue_sequence_id,
  i.priority AS issue_priority, i.state_group AS issue_state_group`;
const viewJoins = sql`
  JOIN issues i ON i.id = t.issue_id AND i.workspace_id = t.workspace_id
  LEFT JOIN sla_policies ap ON ap.id = t.policy_id AND ap.workspace_id = t.workspace_id
  LEFT JOIN sla_rules r ON r.policy_id = t.policy_id AND r.priority = t.priority AND r.workspace_id = t.workspace_id
  LEFT JOIN sla_calendars c ON c.id = ap.calendar_id AND c.workspace_id = t.workspace_id`;

/**
 * At risk at `now` on the response target: running, unmet, past its at-risk instant and not yet breached. Written to
 * match the per-target partial indexes of migration 0602.
 */
const responseAtRisk = (now: Date) => sql`
  response_risk_at IS NOT NULL AND responded_at IS NULL AND NOT paused
  AND response_breach_at > ${now} AND response_risk_at <= ${now}`;

/** The same on the resolution target, leaving out trackers already at risk on their response (listed by that). */
const resolutionAtRisk = (now: Date) => sql`
  resolution_risk_at IS NOT NULL AND resolved_at IS NULL AND NOT paused
  AND resolution_breach_at > ${now} AND resolution_risk_at <= ${now}
  AND NOT (responded_at IS NULL AND response_risk_at <= ${now} AND response_breach_at > ${now})`;

/** What the SLA boards narrow their lists to (the console's project filter, open breaches first). */
export interface BoardFilter {
  projectId?: string;
  /** open: the issue is not resolved; resolved: it is */
  status?: 'open' | 'resolved';
}

/** Only trackers (aliased `b`) of the project's issues: one primary-key probe of `issues` per index entry. */
const projectFilter = (workspaceId: string, projectId: string | undefined) =>
  projectId === undefined
    ? sql``
    : sql`AND EXISTS (SELECT 1 FROM issues pi WHERE pi.workspace_id = ${workspaceId} AND pi.id = b.issue_id AND pi.project_id = ${projectId})`;

/** The breached list's filters; each status is the predicate of its partial index (migration 1098), written out. */
const breachedFilter = (workspaceId: string, filter: BoardFilter) => sql`
  ${filter.status === undefined ? sql`` : filter.status === 'open' ? sql`AND resolved_at IS NULL` : sql`AND resolved_at IS NOT NULL`}
  ${projectFilter(workspaceId, filter.projectId)}`;

/**
 * A workspace's breached and at-risk counts at `now` (migration 1070), as expressions over its `sla_counts` row `k`:
 * the counts kept at `k.as_of`, plus the changes since the job last folded them, plus the window between `as_of` and
 * `now`. Breached: the trackers whose breach instant lies in the window (with the window's sign: the clock may have
 * gone back). At risk: each tracker with any of its four instants in the window, counted by how it changed from
 * `as_of` to `now`. A row never brought up (`as_of` -infinity, counts zero) reads the full count, as before 1070.
 * Each is one statement, so one snapshot.
 */
const breachedAt = (now: Date) => sql<number>`(k.breached
  + coalesce((SELECT sum(breached) FROM sla_count_changes ch WHERE ch.workspace_id = k.workspace_id), 0)
  + CASE WHEN k.as_of <= ${now}::timestamptz
      THEN (SELECT count(*) FROM sla_trackers WHERE workspace_id = k.workspace_id AND breach_at >= k.as_of AND breach_at < ${now}::timestamptz)
      ELSE -(SELECT count(*) FROM sla_trackers WHERE workspace_id = k.workspace_id AND breach_at >= ${now}::timestamptz AND breach_at < k.as_of)
    END)::float8`;

const atRiskAt = (now: Date) => {
  const lo = sql`LEAST(k.as_of, ${now}::timestamptz)`;
  const hi = sql`GREATEST(k.as_of, ${now}::timestamptz)`;
  const instant = (column: string, running: string) => sql`
    SELECT id FROM sla_trackers WHERE workspace_id = k.workspace_id AND ${sql.raw(running)} AND ${sql.raw(column)} BETWEEN ${lo} AND ${hi}`;
  const responseRunning = 'response_risk_at IS NOT NULL AND responded_at IS NULL AND NOT paused';
  const resolutionRunning = 'resolution_risk_at IS NOT NULL AND resolved_at IS NULL AND NOT paused';
  const atRisk = (at: RawBuilder<unknown>) => sql`sla_at_risk(t.response_risk_at, t.response_breach_at, t.responded_at,
    t.resolution_risk_at, t.resolution_breach_at, t.resolved_at, t.paused, ${at})`;
  return sql<number>`(k.at_risk
  + coalesce((SELECT sum(at_risk) FROM sla_count_changes ch WHERE ch.workspace_id = k.workspace_id), 0)
  + CASE WHEN k.as_of = '-infinity'
      THEN (SELECT count(*) FROM sla_trackers WHERE workspace_id = k.workspace_id AND ${responseAtRisk(now)})
         + (SELECT count(*) FROM sla_trackers WHERE workspace_id = k.workspace_id AND ${resolutionAtRisk(now)})
      ELSE (SELECT coalesce(sum(${atRisk(sql`${now}::timestamptz`)} - ${atRisk(sql`k.as_of`)}), 0)
            FROM sla_trackers t
            WHERE t.workspace_id = k.workspace_id AND t.id IN (
              ${instant('response_risk_at', responseRunning)} UNION ${instant('response_breach_at', responseRunning)}
              UNION ${instant('resolution_risk_at', resolutionRunning)} UNION ${instant('resolution_breach_at', resolutionRunning)}))
    END)::float8`;
};

/**
 * A timestamp column read as epoch milliseconds (whole, as a JS Date would hold it), named as the column: re-targeting
 * works on numbers and allocates no Date per instant. `column` is a constant of this file, never input.
 */
const ms = (column: string) => sql.raw(`floor(extract(epoch FROM ${column}) * 1000)::float8 AS ${column.slice(column.indexOf('.') + 1)}`);

/** Epoch milliseconds back to a timestamp (exact: integer milliseconds times an interval). */
const fromMs = (column: string) => sql.raw(`'epoch'::timestamptz + ${column} * interval '1 millisecond'`);

/**
 * The scope's trackers in id order after `afterId`, with the policy and rule that apply to each issue now. Trackers
 * whose targets are both met and settled are left out while a rule still applies (met targets never change); they
 * come back only to be removed when no rule applies any more.
 */
const retargetQuery = (workspaceId: string, scope: RetargetScope, afterId: string | null) => sql`
  SELECT t.id, ${ms('i.created_at')}, ${ms('t.responded_at')}, ${ms('t.resolved_at')}, t.pauses, t.policy_id, t.priority,
         ${ms('t.response_due_at')}, ${ms('t.response_risk_at')}, ${ms('t.response_breach_at')},
         ${ms('t.resolution_due_at')}, ${ms('t.resolution_risk_at')}, ${ms('t.resolution_breach_at')},
         t.paused, t.response_settled, t.resolution_settled,
         t.response_risk_sent, t.response_breach_sent, t.resolution_risk_sent, t.resolution_breach_sent,
         t.response_outcome, ${ms('t.response_outcome_at')}, t.response_outcome_seconds::float8 AS response_outcome_seconds,
         t.resolution_outcome, ${ms('t.resolution_outcome_at')}, t.resolution_outcome_seconds::float8 AS resolution_outcome_seconds,
         r.policy_id AS rule_policy_id, r.priority AS rule_priority, r.response_ms, r.resolution_ms,
         ap.at_risk_percent, ap.calendar_id, c.version AS calendar_version
  FROM sla_trackers t
  JOIN issues i ON i.id = t.issue_id AND i.workspace_id = t.workspace_id
  JOIN projects p ON p.id = i.project_id AND p.workspace_id = i.workspace_id
  LEFT JOIN sla_policies d ON d.workspace_id = i.workspace_id AND d.is_default
  LEFT JOIN sla_rules r ON r.workspace_id = i.workspace_id AND r.policy_id = coalesce(p.sla_policy_id, d.id) AND r.priority = i.priority
  LEFT JOIN sla_policies ap ON ap.workspace_id = r.workspace_id AND ap.id = r.policy_id
  LEFT JOIN sla_calendars c ON c.workspace_id = ap.workspace_id AND c.id = ap.calendar_id
  WHERE t.workspace_id = ${workspaceId}
    AND ${scopeCondition(scope)}
    AND ${afterId === null ? sql`true` : sql`t.id > ${afterId}`}
    AND NOT (t.response_settled AND t.resolution_settled AND t.policy_id IS NOT NULL AND r.policy_id IS NOT NULL)
  ORDER BY t.id`;

export function trackerQueries() {
  return {
    insertTrackerRow(
      tx: Executor,
      row: Pick<Insertable<Database['sla_trackers']>, 'id' | 'workspace_id' | 'issue_id' | 'created_at'> & {
        responded_at: Date | null;
        resolved_at: Date | null;
        pauses: StoredPauses;
      },
    ) {
      return tx
        .insertInto('sla_trackers')
        .values({ ...row, pauses: JSON.stringify(row.pauses), paused: row.resolved_at === null && row.pauses.length > 0, updated_at: row.created_at })
        .onConflict((oc) => oc.column('issue_id').doNothing())
        .execute();
    },

    /** Records the first response of these issues; a later one never moves it. */
    markResponded(tx: Executor, workspaceId: string, issueIds: string[], at: Date) {
      return tx
        .updateTable('sla_trackers')
        .set({ responded_at: at, updated_at: at })
        .where('workspace_id', '=', workspaceId)
        .where(sql<boolean>`issue_id = ANY(${issueIds}::uuid[])`)
        .where('responded_at', 'is', null)
        .execute();
    },

    /**
     * Resolved since `at` (kept when already resolved), or not resolved (null: the resolution target re-opens). A
     * tracker already in that state is not written (a backlog issue started was never resolved: measured as 15 % of
     * a bulk edit's database time, with the foreign-key checks a second write of a row repeats).
     */
    setResolved(tx: Executor, workspaceId: string, issueIds: string[], at: Date | null, now: Date) {
      return tx
        .updateTable('sla_trackers')
        .set((eb) => (at === null ? { resolved_at: null, resolution_settled: false, updated_at: now } : { resolved_at: eb.val(at), updated_at: now }))
        .where('workspace_id', '=', workspaceId)
        .where(sql<boolean>`issue_id = ANY(${issueIds}::uuid[])`)
        .where('resolved_at', at === null ? 'is not' : 'is', null)
        .execute();
    },

    /**
     * Opens a pause at `at` (the issues entered a pausing state) or closes the open one (they left it), for the
     * trackers of the scope: issues that changed state, or every issue in a state whose `pauses_sla` changed.
     */
    async movePause(tx: Executor, workspaceId: string, scope: { issueIds: string[] } | { stateId: string }, action: 'open' | 'close', at: Date) {
      const ms = at.getTime();
      const target =
        'issueIds' in scope
          ? sql`t.issue_id = ANY(${scope.issueIds}::uuid[])`
          : sql`t.issue_id IN (SELECT id FROM issues WHERE workspace_id = ${workspaceId} AND state_id = ${scope.stateId})`;
      const open = sql`jsonb_array_length(t.pauses) > 0 AND t.pauses -> -1 -> 1 = 'null'::jsonb`;
      if (action === 'open') {
        await sql`
          UPDATE sla_trackers t SET pauses = t.pauses || jsonb_build_array(jsonb_build_array(${ms}::bigint, NULL)), updated_at = ${at}
          WHERE t.workspace_id = ${workspaceId} AND ${target} AND NOT (${open})`.execute(tx);
      } else {
        await sql`
          UPDATE sla_trackers t
          SET pauses = jsonb_set(t.pauses, ARRAY[(jsonb_array_length(t.pauses) - 1)::text, '1'], to_jsonb(${ms}::bigint)), updated_at = ${at}
          WHERE t.workspace_id = ${workspaceId} AND ${target} AND ${open}`.execute(tx);
      }
    },

    /** Removes the trackers of a policy (their rows stay, with the issue's facts, as "not applicable"). */
    detachPolicy(tx: Executor, workspaceId: string, policyId: string, now: Date) {
      return tx
        .updateTable('sla_trackers')
        .set({
          policy_id: null,
          priority: null,
          response_due_at: null,
          resolution_due_at: null,
          response_risk_at: null,
          response_breach_at: null,
          resolution_risk_at: null,
          resolution_breach_at: null,
          response_settled: false,
          resolution_settled: false,
          response_outcome: null,
          response_outcome_at: null,
          response_outcome_seconds: null,
          resolution_outcome: null,
          resolution_outcome_at: null,
          resolution_outcome_seconds: null,
          updated_at: now,
        })
        .where('workspace_id', '=', workspaceId)
        .where('policy_id', '=', policyId)
        .execute();
    },

    /**
     * A batch of the scope's trackers, in id order after `afterId`, with the policy and rule that apply to each issue
     * now (see `retargetQuery`).
     */
    async retargetBatch(tx: Executor, workspaceId: string, scope: RetargetScope, afterId: string | null, limit: number): Promise<RetargetRow[]> {
      const { rows } = await sql<RetargetRow>`${retargetQuery(workspaceId, scope, afterId)} LIMIT ${limit}`.execute(tx);
      return rows;
    },

    /**
     * The rest of a large scope through a cursor: the query runs once and is read in batches, where a keyset query per
     * batch would join and sort the whole scope again for every batch. Needs a transaction (the cursor lives in it).
     */
    async openRetargetCursor(tx: Executor, cursor: string, workspaceId: string, scope: RetargetScope, afterId: string | null) {
      await sql`DECLARE ${sql.id(cursor)} NO SCROLL CURSOR FOR ${retargetQuery(workspaceId, scope, afterId)}`.execute(tx);
    },

    async fetchRetargetCursor(tx: Executor, cursor: string, limit: number): Promise<RetargetRow[]> {
      const { rows } = await sql<RetargetRow>`FETCH FORWARD ${sql.lit(limit)} FROM ${sql.id(cursor)}`.execute(tx);
      return rows;
    },

    async closeCursor(tx: Executor, cursor: string) {
      await sql`CLOSE ${sql.id(cursor)}`.execute(tx);
    },

    /** Writes a batch of re-targeted trackers in one statement. */
    async writeTrackers(tx: Executor, workspaceId: string, rows: TrackerWrite[], now: Date) {
      if (!rows.length) return;
      const col = <K extends keyof TrackerWrite>(k: K) => rows.map((r) => r[k]);
      await sql`
        UPDATE sla_trackers t
        SET policy_id = u.policy_id, priority = u.priority,
            response_due_at = ${fromMs('u.response_due_at')}, response_risk_at = ${fromMs('u.response_risk_at')}, response_breach_at = ${fromMs('u.response_breach_at')},
            resolution_due_at = ${fromMs('u.resolution_due_at')}, resolution_risk_at = ${fromMs('u.resolution_risk_at')},
            resolution_breach_at = ${fromMs('u.resolution_breach_at')},
            paused = u.paused, response_settled = u.response_settled, resolution_settled = u.resolution_settled,
            response_risk_sent = u.response_risk_sent, response_breach_sent = u.response_breach_sent,
            resolution_risk_sent = u.resolution_risk_sent, resolution_breach_sent = u.resolution_breach_sent,
            response_outcome = u.response_outcome, response_outcome_at = ${fromMs('u.response_outcome_at')},
            response_outcome_seconds = u.response_outcome_seconds::bigint,
            resolution_outcome = u.resolution_outcome, resolution_outcome_at = ${fromMs('u.resolution_outcome_at')},
            resolution_outcome_seconds = u.resolution_outcome_seconds::bigint,
            updated_at = ${now}
        FROM unnest(
          ${col('id')}::uuid[], ${col('policy_id')}::uuid[], ${col('priority')}::text[],
          ${col('response_due_at')}::float8[], ${col('response_risk_at')}::float8[], ${col('response_breach_at')}::float8[],
          ${col('resolution_due_at')}::float8[], ${col('resolution_risk_at')}::float8[],
          ${col('resolution_breach_at')}::float8[],
          ${col('paused')}::boolean[], ${col('response_settled')}::boolean[], ${col('resolution_settled')}::boolean[],
          ${col('response_risk_sent')}::boolean[], ${col('response_breach_sent')}::boolean[],
          ${col('resolution_risk_sent')}::boolean[], ${col('resolution_breach_sent')}::boolean[],
          ${col('response_outcome')}::text[], ${col('response_outcome_at')}::float8[], ${col('response_outcome_seconds')}::float8[],
          ${col('resolution_outcome')}::text[], ${col('resolution_outcome_at')}::float8[], ${col('resolution_outcome_seconds')}::float8[]
        ) AS u(id, policy_id, priority, response_due_at, response_risk_at, response_breach_at,
               resolution_due_at, resolution_risk_at, resolution_breach_at, paused, response_settled, resolution_settled,
               response_risk_sent, response_breach_sent, resolution_risk_sent, resolution_breach_sent,
               response_outcome, response_outcome_at, response_outcome_seconds,
               resolution_outcome, resolution_outcome_at, resolution_outcome_seconds)
        WHERE t.workspace_id = ${workspaceId} AND t.id = u.id`.execute(tx);
    },

    /** Calendars by id, for the clock (the service caches them by id and version). */
    calendarsForClock(tx: Executor, workspaceIds: string[], calendarIds: string[]): Promise<CalendarRowForClock[]> {
      if (!calendarIds.length) return Promise.resolve([]);
      return tx
        .selectFrom('sla_calendars')
        .select(['id', 'version', 'time_zone', 'working_hours', 'holidays'])
        .where('workspace_id', 'in', workspaceIds)
        .where('id', 'in', calendarIds)
        .execute();
    },

    /** The issue (scoped by workspace) and its applicable tracker, if any: `undefined` when the issue does not exist. */
    async findIssueTracker(tx: Executor, workspaceId: string, issueId: string): Promise<{ tracker: TrackerViewRow | null } | undefined> {
      const { rows } = await sql<TrackerViewRow & { issue_exists: string }>`
        SELECT i.id AS issue_exists, ${viewSelect}
        FROM issues i
        LEFT JOIN sla_trackers t ON t.issue_id = i.id AND t.workspace_id = i.workspace_id AND t.policy_id IS NOT NULL
        LEFT JOIN sla_policies ap ON ap.id = t.policy_id AND ap.workspace_id = t.workspace_id
        LEFT JOIN sla_rules r ON r.policy_id = t.policy_id AND r.priority = t.priority AND r.workspace_id = t.workspace_id
        LEFT JOIN sla_calendars c ON c.id = ap.calendar_id AND c.workspace_id = t.workspace_id
        WHERE i.workspace_id = ${workspaceId} AND i.id = ${issueId}`.execute(tx);
      const row = rows[0];
      if (!row) return undefined;
      return { tracker: row.id ? row : null };
    },

    /** A project of the workspace (the boards' project filter). */
    async projectExists(tx: Executor, workspaceId: string, projectId: string) {
      const row = await tx.selectFrom('projects').select('id').where('workspace_id', '=', workspaceId).where('id', '=', projectId).executeTakeFirst();
      return row !== undefined;
    },

    /**
     * Trackers with a breach before `now`, the oldest breach (most overdue) first. The page is cut from the partial
     * index alone (an index-only scan, so a deep offset skips index entries, not rows), then only its rows are joined.
     * A status cuts it from that status's partial index (migration 1098); a project is checked on each index entry by
     * the issue's primary key (see docs/decisions/console-sla.md).
     */
    async listBreached(tx: Executor, workspaceId: string, now: Date, page: { offset: number; per_page: number }, filter: BoardFilter = {}) {
      const { rows } = await sql<TrackerViewRow>`
        SELECT ${viewSelect}
        FROM (
          SELECT id, breach_at FROM sla_trackers b
          WHERE workspace_id = ${workspaceId} AND breach_at < ${now} ${breachedFilter(workspaceId, filter)}
          ORDER BY breach_at, id OFFSET ${page.offset} LIMIT ${page.per_page}
        ) page
        JOIN sla_trackers t ON t.id = page.id AND t.workspace_id = ${workspaceId}
        ${viewJoins}
        ORDER BY page.breach_at, page.id`.execute(tx);
      return rows;
    },

    /** The kept count without a filter (migration 1070); with one, counted from the same index range the list reads. */
    async countBreached(tx: Executor, workspaceId: string, now: Date, filter: BoardFilter = {}) {
      if (filter.projectId !== undefined || filter.status !== undefined) {
        const { rows } = await sql<{ n: number }>`
          SELECT count(*)::float8 AS n FROM sla_trackers b
          WHERE workspace_id = ${workspaceId} AND breach_at < ${now} ${breachedFilter(workspaceId, filter)}`.execute(tx);
        return rows[0]?.n ?? 0;
      }
      const { rows } = await sql<{ n: number }>`SELECT ${breachedAt(now)} AS n FROM sla_counts k WHERE k.workspace_id = ${workspaceId}`.execute(tx);
      // No row: a workspace deleted under the request (its lists are empty by then).
      return rows[0]?.n ?? 0;
    },

    /**
     * Trackers at risk at `now`, the soonest breach first: a running tracker whose unmet target has reached its
     * at-risk share and not its target. Two index range scans (one per target, from `now` on), merged; a tracker at
     * risk on both targets comes once, by its response target (the sooner). A project is checked on each index entry.
     */
    async listAtRisk(tx: Executor, workspaceId: string, now: Date, page: { offset: number; per_page: number }, filter: BoardFilter = {}) {
      const upTo = page.offset + page.per_page;
      const inProject = projectFilter(workspaceId, filter.projectId);
      const { rows } = await sql<TrackerViewRow>`
        SELECT ${viewSelect}
        FROM (
          SELECT id, key FROM (
            (SELECT id, response_breach_at AS key FROM sla_trackers b WHERE workspace_id = ${workspaceId} AND ${responseAtRisk(now)} ${inProject}
             ORDER BY response_breach_at, id LIMIT ${upTo})
            UNION ALL
            (SELECT id, resolution_breach_at AS key FROM sla_trackers b WHERE workspace_id = ${workspaceId} AND ${resolutionAtRisk(now)} ${inProject}
             ORDER BY resolution_breach_at, id LIMIT ${upTo})
          ) both_targets
          ORDER BY key, id OFFSET ${page.offset} LIMIT ${page.per_page}
        ) page
        JOIN sla_trackers t ON t.id = page.id AND t.workspace_id = ${workspaceId}
        ${viewJoins}
        ORDER BY page.key, page.id`.execute(tx);
      return rows;
    },

    async countAtRisk(tx: Executor, workspaceId: string, now: Date, filter: BoardFilter = {}) {
      if (filter.projectId !== undefined) {
        const inProject = projectFilter(workspaceId, filter.projectId);
        const { rows } = await sql<{ n: number }>`
          SELECT ((SELECT count(*) FROM sla_trackers b WHERE workspace_id = ${workspaceId} AND ${responseAtRisk(now)} ${inProject})
            + (SELECT count(*) FROM sla_trackers b WHERE workspace_id = ${workspaceId} AND ${resolutionAtRisk(now)} ${inProject}))::float8 AS n`.execute(tx);
        return rows[0]?.n ?? 0;
      }
      const { rows } = await sql<{ n: number }>`SELECT ${atRiskAt(now)} AS n FROM sla_counts k WHERE k.workspace_id = ${workspaceId}`.execute(tx);
      return rows[0]?.n ?? 0;
    },

    /**
     * The `sla.totals` job: brings up to `limit` workspaces' counts to `now` (those last brought up before `staleBefore`,
     * or after `now` when the clock went back), each by one instance. A row a writer holds is skipped until next time.
     * Also drops the changes of deleted workspaces. Returns how many workspaces it brought up.
     */
    async advanceCounts(tx: Executor, now: Date, staleBefore: Date, limit: number) {
      const { rows } = await sql<{ workspace_id: string }>`
        SELECT workspace_id FROM sla_counts WHERE as_of < ${staleBefore} OR as_of > ${now}
        ORDER BY as_of LIMIT ${limit} FOR UPDATE SKIP LOCKED`.execute(tx);
      if (!rows.length) return 0;
      const ids = rows.map((r) => r.workspace_id);
      // A new statement, so a new snapshot: every writer that held one of these rows has committed.
      await sql`
        UPDATE sla_counts k SET as_of = ${now}, breached = ${breachedAt(now)}, at_risk = ${atRiskAt(now)}
        WHERE k.workspace_id = ANY(${ids}::uuid[])`.execute(tx);
      await sql`DELETE FROM sla_count_changes WHERE workspace_id = ANY(${ids}::uuid[])`.execute(tx);
      await sql`DELETE FROM sla_count_changes ch WHERE NOT EXISTS (SELECT 1 FROM sla_counts c WHERE c.workspace_id = ch.workspace_id)`.execute(tx);
      return ids.length;
    },

    /** Every workspace at once, for the metrics: one number, no tenant data (the kept counts, as the lists read them). */
    async countBreachedEverywhere(tx: Executor, now: Date) {
      const { rows } = await sql<{ n: number }>`SELECT coalesce(sum(${breachedAt(now)}), 0)::float8 AS n FROM sla_counts k`.execute(tx);
      return rows[0]?.n ?? 0;
    },

    // ---- SLA events (contract 11.4) -------------------------------------------------------------------------------

    /**
     * Claims trackers with a threshold crossed before `now` whose event is not recorded yet, across workspaces, each
     * by one instance (SKIP LOCKED); the caller records the events and marks them sent in the same transaction.
     */
    async claimCrossings(tx: Executor, now: Date, limit: number) {
      const { rows } = await sql<
        TrackerViewRow & { response_risk_sent: boolean; response_breach_sent: boolean; resolution_risk_sent: boolean; resolution_breach_sent: boolean }
      >`
        SELECT ${viewSelect}, t.response_risk_sent, t.response_breach_sent, t.resolution_risk_sent, t.resolution_breach_sent
        FROM (
          SELECT id FROM sla_trackers WHERE next_event_at < ${now} AND policy_id IS NOT NULL
          ORDER BY next_event_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
        ) claimed
        JOIN sla_trackers t ON t.id = claimed.id
        ${viewJoins}`.execute(tx);
      return rows;
    },

    /** Marks the recorded crossings of claimed trackers, every tracker in one statement (their flags, as given). */
    async markSent(tx: Executor, rows: SentFlags[]) {
      if (!rows.length) return;
      const column = <K extends keyof SentFlags>(key: K) => sql.val(rows.map((r) => r[key]));
      await sql`
        UPDATE sla_trackers t
        SET response_risk_sent = s.response_risk_sent, response_breach_sent = s.response_breach_sent,
            resolution_risk_sent = s.resolution_risk_sent, resolution_breach_sent = s.resolution_breach_sent
        FROM unnest(${column('workspace_id')}::uuid[], ${column('id')}::uuid[], ${column('response_risk_sent')}::bool[],
                    ${column('response_breach_sent')}::bool[], ${column('resolution_risk_sent')}::bool[], ${column('resolution_breach_sent')}::bool[])
             AS s(workspace_id, id, response_risk_sent, response_breach_sent, resolution_risk_sent, resolution_breach_sent)
        WHERE t.workspace_id = s.workspace_id AND t.id = s.id`.execute(tx);
    },

    /** Takes one workspace waiting for a re-targeting after the upgrade (SKIP LOCKED: one instance each). */
    async claimPendingRetarget(tx: Executor) {
      const { rows } = await sql<{ workspace_id: string }>`
        DELETE FROM sla_retarget_pending
        WHERE workspace_id = (SELECT workspace_id FROM sla_retarget_pending LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING workspace_id`.execute(tx);
      return rows[0]?.workspace_id ?? null;
    },
  };
}
