import { type RawBuilder, sql } from 'kysely';
import type { Db, Executor } from '../../db/database.js';
import { prepared, queryBuilder as qb } from '../../db/prepared.js';
import type { HistoryKind, Holiday, RulePriority, WorkingHours } from '../../db/tables/sla.js';

export type SlaRepository = ReturnType<typeof slaRepository>;

/** Which issues a recomputation looks at. */
export type RecomputeScope =
  | { kind: 'issue'; issueId: string }
  | { kind: 'project'; projectId: string }
  /** issues whose project names this policy, or uses the default when this policy is the default */
  | { kind: 'policy'; policyId: string }
  /** issues of projects that name no policy (they use the workspace default) */
  | { kind: 'unowned' }
  | { kind: 'workspace' };

const policyColumns = ['id', 'workspace_id', 'name', 'description', 'is_default', 'calendar_id', 'at_risk_percent', 'created_at', 'updated_at'] as const;
const calendarColumns = ['id', 'workspace_id', 'name', 'description', 'time_zone', 'working_hours', 'holidays', 'created_at', 'updated_at'] as const;

export interface CalendarValues {
  name: string;
  description: string;
  time_zone: string;
  working_hours: WorkingHours[];
  holidays: Holiday[];
}
const ruleColumns = ['policy_id', 'priority', 'response_time_h', 'resolution_time_h'] as const;
const trackerColumns = [
  't.id',
  't.issue_id',
  't.policy_id',
  't.priority',
  't.response_due_at',
  't.resolution_due_at',
  't.responded_at',
  't.resolved_at',
] as const;

export interface RuleRow {
  priority: RulePriority;
  response_time_h: number;
  resolution_time_h: number;
  response_ms: number;
  resolution_ms: number;
}

/** The lock key of a workspace's SLA data (two int4 keys: a namespace and a hash of the workspace id). */
const LOCK_NAMESPACE = 0x51a;
const lockKey = (workspaceId: string) => sql`${LOCK_NAMESPACE}::int4, hashtext(${workspaceId})`;

function scopeCondition(scope: RecomputeScope): RawBuilder<unknown> {
  switch (scope.kind) {
    case 'issue':
      return sql`i.id = ${scope.issueId}`;
    case 'project':
      return sql`i.project_id = ${scope.projectId}`;
    case 'policy':
      return sql`(p.sla_policy_id = ${scope.policyId} OR (p.sla_policy_id IS NULL AND d.id = ${scope.policyId}))`;
    case 'unowned':
      return sql`p.sla_policy_id IS NULL`;
    case 'workspace':
      return sql`true`;
  }
}

// The breached list is cut from the partial index (workspace_id, breach_at, id) alone; only the page's rows are
// joined to their trackers and issues, so a deep offset never joins the rows it skips.
const breachedPage = prepared(
  (workspaceId: string, now: Date, offset: number, limit: number) =>
    qb
      .selectFrom((eb) =>
        eb
          .selectFrom('sla_trackers')
          .select(['id', 'breach_at'])
          .where('workspace_id', '=', workspaceId)
          .where('breach_at', '<', now)
          .orderBy('breach_at')
          .orderBy('id')
          .offset(offset)
          .limit(limit)
          .as('page'),
      )
      .innerJoin('sla_trackers as t', 't.id', 'page.id')
      .innerJoin('issues as i', 'i.id', 't.issue_id')
      .select([
        ...trackerColumns,
        'i.name as issue_name',
        'i.project_id as issue_project_id',
        'i.sequence_id as issue_sequence_id',
        'i.priority as issue_priority',
        'i.state_group as issue_state_group',
      ])
      .orderBy('page.breach_at')
      .orderBy('page.id'),
  4,
);

const breachedCount = prepared(
  (workspaceId: string, now: Date) =>
    qb
      .selectFrom('sla_trackers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspace_id', '=', workspaceId)
      .where('breach_at', '<', now),
  2,
);

export function slaRepository(db: Db) {
  return {
    /**
     * Issue events take the workspace's SLA lock shared, policy changes take it exclusive: a recomputation after a
     * policy change then always sees every tracker written by a concurrent issue change, and the other way round.
     */
    async lockShared(tx: Executor, workspaceId: string) {
      await sql`SELECT pg_advisory_xact_lock_shared(${lockKey(workspaceId)})`.execute(tx);
    },
    async lockExclusive(tx: Executor, workspaceId: string) {
      await sql`SELECT pg_advisory_xact_lock(${lockKey(workspaceId)})`.execute(tx);
    },

    // ---- policies -----------------------------------------------------------------------------------------------

    listPolicies(workspaceId: string, tx: Executor = db) {
      return tx
        .selectFrom('sla_policies')
        .select(policyColumns)
        .where('workspace_id', '=', workspaceId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },

    findPolicy(workspaceId: string, policyId: string, tx: Executor = db, lock = false) {
      let q = tx.selectFrom('sla_policies').select(policyColumns).where('workspace_id', '=', workspaceId).where('id', '=', policyId);
      if (lock) q = q.forUpdate();
      return q.executeTakeFirst();
    },

    listRules(workspaceId: string, policyIds: string[], tx: Executor = db) {
      if (!policyIds.length) return Promise.resolve([]);
      return tx
        .selectFrom('sla_rules')
        .select(ruleColumns)
        .where('workspace_id', '=', workspaceId)
        .where('policy_id', 'in', policyIds)
        .execute();
    },

    insertPolicy(
      tx: Executor,
      p: { id: string; workspace_id: string; name: string; description: string; is_default: boolean; calendar_id: string | null; at_risk_percent: number | null; now: Date },
    ) {
      const { now, ...values } = p;
      return tx
        .insertInto('sla_policies')
        .values({ ...values, created_at: now, updated_at: now })
        .returning(policyColumns)
        .executeTakeFirstOrThrow();
    },

    updatePolicy(
      tx: Executor,
      policyId: string,
      patch: Partial<{ name: string; description: string; is_default: boolean; calendar_id: string | null; at_risk_percent: number | null }> & {
        updated_at: Date;
      },
    ) {
      return tx.updateTable('sla_policies').set(patch).where('id', '=', policyId).returning(policyColumns).executeTakeFirstOrThrow();
    },

    /** Unsets the workspace's default policy; returns the id it was on, if any. */
    unsetDefault(tx: Executor, workspaceId: string, now: Date) {
      return tx
        .updateTable('sla_policies')
        .set({ is_default: false, updated_at: now })
        .where('workspace_id', '=', workspaceId)
        .where('is_default', '=', true)
        .returning('id')
        .executeTakeFirst();
    },

    async replaceRules(tx: Executor, workspaceId: string, policyId: string, rules: RuleRow[]) {
      await tx.deleteFrom('sla_rules').where('policy_id', '=', policyId).execute();
      if (rules.length) {
        await tx
          .insertInto('sla_rules')
          .values(rules.map((r) => ({ ...r, workspace_id: workspaceId, policy_id: policyId })))
          .execute();
      }
    },

    deletePolicy(tx: Executor, policyId: string) {
      return tx.deleteFrom('sla_policies').where('id', '=', policyId).execute();
    },

    policyExists(tx: Executor, workspaceId: string, policyId: string) {
      return tx
        .selectFrom('sla_policies')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', policyId)
        .executeTakeFirst()
        .then((r) => r !== undefined);
    },

    // ---- calendars ----------------------------------------------------------------------------------------------

    listCalendars(workspaceId: string, tx: Executor = db) {
      return tx
        .selectFrom('sla_calendars')
        .select(calendarColumns)
        .where('workspace_id', '=', workspaceId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },

    findCalendar(workspaceId: string, calendarId: string, tx: Executor = db, lock = false) {
      let q = tx.selectFrom('sla_calendars').select(calendarColumns).where('workspace_id', '=', workspaceId).where('id', '=', calendarId);
      if (lock) q = q.forUpdate();
      return q.executeTakeFirst();
    },

    insertCalendar(tx: Executor, c: CalendarValues & { id: string; workspace_id: string; now: Date }) {
      const { now, working_hours, holidays, ...values } = c;
      return tx
        .insertInto('sla_calendars')
        .values({ ...values, working_hours: JSON.stringify(working_hours), holidays: JSON.stringify(holidays), created_at: now, updated_at: now })
        .returning(calendarColumns)
        .executeTakeFirstOrThrow();
    },

    updateCalendar(tx: Executor, calendarId: string, patch: Partial<CalendarValues> & { updated_at: Date }) {
      const { working_hours, holidays, ...rest } = patch;
      return tx
        .updateTable('sla_calendars')
        .set({
          ...rest,
          ...(working_hours !== undefined && { working_hours: JSON.stringify(working_hours) }),
          ...(holidays !== undefined && { holidays: JSON.stringify(holidays) }),
        })
        .where('id', '=', calendarId)
        .returning(calendarColumns)
        .executeTakeFirstOrThrow();
    },

    deleteCalendar(tx: Executor, calendarId: string) {
      return tx.deleteFrom('sla_calendars').where('id', '=', calendarId).execute();
    },

    calendarInUse(tx: Executor, workspaceId: string, calendarId: string) {
      return tx
        .selectFrom('sla_policies')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .where('calendar_id', '=', calendarId)
        .limit(1)
        .executeTakeFirst()
        .then((r) => r !== undefined);
    },

    // ---- issue history ------------------------------------------------------------------------------------------

    /** `pauses_sla` of the given states, by id. */
    async statePauses(tx: Executor, stateIds: string[]) {
      const rows = await tx.selectFrom('states').select(['id', 'pauses_sla']).where('id', 'in', stateIds).execute();
      return new Map(rows.map((r) => [r.id, r.pauses_sla]));
    },

    async appendHistory(
      tx: Executor,
      entries: { id: string; workspace_id: string; issue_id: string; at: Date; actor_id: string | null; kind: HistoryKind; from: unknown; to: unknown }[],
    ) {
      if (!entries.length) return;
      await tx
        .insertInto('issue_history')
        .values(entries.map((e) => ({ ...e, from: e.from === null ? null : JSON.stringify(e.from), to: e.to === null ? null : JSON.stringify(e.to) })))
        .execute();
    },

    /** One `project_policy` entry for every issue of the project, in one statement. */
    async appendProjectPolicyHistory(
      tx: Executor,
      e: { workspaceId: string; projectId: string; at: Date; actorId: string | null; from: string | null; to: string | null },
    ) {
      await sql`
        INSERT INTO issue_history (id, workspace_id, issue_id, at, actor_id, kind, "from", "to")
        SELECT gen_random_uuid(), i.workspace_id, i.id, ${e.at}, ${e.actorId}, 'project_policy', to_jsonb(${e.from}::text), to_jsonb(${e.to}::text)
        FROM issues i
        WHERE i.workspace_id = ${e.workspaceId} AND i.project_id = ${e.projectId}
        ORDER BY i.id
      `.execute(tx);
    },

    issueInProject(workspaceId: string, projectId: string, issueId: string, tx: Executor = db) {
      return tx
        .selectFrom('issues')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .where('project_id', '=', projectId)
        .where('id', '=', issueId)
        .executeTakeFirst()
        .then((r) => r !== undefined);
    },

    listHistory(workspaceId: string, issueId: string, page: { offset: number; per_page: number }, tx: Executor = db) {
      return tx
        .selectFrom('issue_history')
        .select(['id', 'at', 'actor_id', 'kind', 'from', 'to'])
        .where('workspace_id', '=', workspaceId)
        .where('issue_id', '=', issueId)
        .orderBy('at')
        .orderBy('seq')
        .offset(page.offset)
        .limit(page.per_page)
        .execute();
    },

    async countHistory(workspaceId: string, issueId: string, tx: Executor = db) {
      const row = await tx
        .selectFrom('issue_history')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('issue_id', '=', issueId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    // ---- trackers -----------------------------------------------------------------------------------------------

    insertTrackerRow(
      tx: Executor,
      row: { id: string; workspace_id: string; issue_id: string; responded_at: Date | null; resolved_at: Date | null; now: Date },
    ) {
      const { now, ...values } = row;
      return tx
        .insertInto('sla_trackers')
        .values({ ...values, created_at: now, updated_at: now })
        .onConflict((oc) => oc.column('issue_id').doNothing())
        .execute();
    },

    /** Records the first response; a later one never moves it. */
    markResponded(tx: Executor, issueId: string, at: Date) {
      return tx
        .updateTable('sla_trackers')
        .set({ responded_at: at, updated_at: at })
        .where('issue_id', '=', issueId)
        .where('responded_at', 'is', null)
        .execute();
    },

    /** Resolved since `at` (kept when already resolved), or not resolved (null). */
    setResolved(tx: Executor, issueId: string, at: Date | null, now: Date) {
      return tx
        .updateTable('sla_trackers')
        .set((eb) => ({ resolved_at: at === null ? null : eb.fn.coalesce('resolved_at', eb.val(at)), updated_at: now }))
        .where('issue_id', '=', issueId)
        .execute();
    },

    /** Removes the trackers of a policy (their rows stay, with the issue's facts, as "not applicable"). */
    detachPolicy(tx: Executor, policyId: string, now: Date) {
      return tx
        .updateTable('sla_trackers')
        .set({ policy_id: null, priority: null, response_due_at: null, resolution_due_at: null, updated_at: now })
        .where('policy_id', '=', policyId)
        .execute();
    },

    /**
     * Brings the trackers of the scope in line with the policy and rule that apply now, in one statement:
     * - no policy, or no rule for the issue's priority: the tracker is removed (not applicable);
     * - a resolved tracker keeps its policy, priority and due times while a rule still applies (history stays);
     * - otherwise policy, priority and due times (from the issue's creation) follow the applicable rule.
     * Rows already right are not written.
     */
    async recompute(tx: Executor, workspaceId: string, scope: RecomputeScope, now: Date) {
      const result = await sql`
        UPDATE sla_trackers t
        SET policy_id = x.policy_id,
            priority = x.priority,
            response_due_at = x.response_due_at,
            resolution_due_at = x.resolution_due_at,
            updated_at = ${now}
        FROM (
          SELECT i.id AS issue_id, r.policy_id, r.priority,
                 i.created_at + r.response_ms * interval '1 millisecond' AS response_due_at,
                 i.created_at + r.resolution_ms * interval '1 millisecond' AS resolution_due_at
          FROM issues i
          JOIN projects p ON p.id = i.project_id
          LEFT JOIN sla_policies d ON d.workspace_id = i.workspace_id AND d.is_default
          LEFT JOIN sla_rules r ON r.policy_id = coalesce(p.sla_policy_id, d.id) AND r.priority = i.priority
          WHERE i.workspace_id = ${workspaceId} AND ${scopeCondition(scope)}
        ) x
        WHERE t.issue_id = x.issue_id
          AND NOT (t.resolved_at IS NOT NULL AND t.policy_id IS NOT NULL AND x.policy_id IS NOT NULL)
          AND (t.policy_id, t.priority, t.response_due_at, t.resolution_due_at)
              IS DISTINCT FROM (x.policy_id, x.priority, x.response_due_at, x.resolution_due_at)
      `.execute(tx);
      return Number(result.numAffectedRows ?? 0);
    },

    /** The issue (scoped by workspace) and its tracker row, if any. */
    findIssueTracker(workspaceId: string, issueId: string, tx: Executor = db) {
      return tx
        .selectFrom('issues as i')
        .leftJoin('sla_trackers as t', 't.issue_id', 'i.id')
        .select(['i.id as issue_exists', ...trackerColumns])
        .where('i.workspace_id', '=', workspaceId)
        .where('i.id', '=', issueId)
        .executeTakeFirst();
    },

    /**
     * Trackers of the workspace with a breach before `now`, the oldest breach (most overdue) first. The page is cut
     * from the partial index alone (an index-only scan, so a deep offset skips index entries, not rows), then only
     * its rows are joined to trackers and issues.
     */
    /** The page of breached trackers (a hot read: compiled once). */
    listBreached(workspaceId: string, now: Date, page: { offset: number; per_page: number }, tx: Executor = db) {
      return breachedPage(tx, workspaceId, now, page.offset, page.per_page);
    },

    async countBreached(workspaceId: string, now: Date, tx: Executor = db) {
      return (await breachedCount(tx, workspaceId, now))[0]!.n;
    },

    /** Every workspace at once, for the metrics: one number, no tenant data. */
    async countBreachedEverywhere(now: Date, tx: Executor = db) {
      const row = await tx
        .selectFrom('sla_trackers')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('breach_at', 'is not', null)
        .where('breach_at', '<', now)
        .executeTakeFirstOrThrow();
      return row.n;
    },
  };
}
