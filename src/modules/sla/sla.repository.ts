import { type Insertable, sql, type Updateable } from 'kysely';
import type { Executor } from '../../db/database.js';
import { appendIssueHistory } from '../../db/issue-history.js';
import type { Database } from '../../db/schema.js';
import { trackerQueries } from './sla.trackers.repository.js';
import type { Holiday, RulePriority, WorkingHours } from '../../db/tables/sla.js';

export type SlaRepository = ReturnType<typeof slaRepository>;

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

export function slaRepository() {
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

    listPolicies(tx: Executor, workspaceId: string) {
      return tx.selectFrom('sla_policies').select(policyColumns).where('workspace_id', '=', workspaceId).orderBy('created_at').orderBy('id').execute();
    },

    findPolicy(tx: Executor, workspaceId: string, policyId: string, lock = false) {
      let q = tx.selectFrom('sla_policies').select(policyColumns).where('workspace_id', '=', workspaceId).where('id', '=', policyId);
      if (lock) q = q.forUpdate();
      return q.executeTakeFirst();
    },

    listRules(tx: Executor, workspaceId: string, policyIds: string[]) {
      if (!policyIds.length) return Promise.resolve([]);
      return tx.selectFrom('sla_rules').select(ruleColumns).where('workspace_id', '=', workspaceId).where('policy_id', 'in', policyIds).execute();
    },

    insertPolicy(tx: Executor, row: Insertable<Database['sla_policies']>) {
      return tx.insertInto('sla_policies').values(row).returning(policyColumns).executeTakeFirstOrThrow();
    },

    updatePolicy(tx: Executor, workspaceId: string, policyId: string, patch: Omit<Updateable<Database['sla_policies']>, 'id' | 'workspace_id'>) {
      return tx
        .updateTable('sla_policies')
        .set(patch)
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', policyId)
        .returning(policyColumns)
        .executeTakeFirstOrThrow();
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
      await tx.deleteFrom('sla_rules').where('workspace_id', '=', workspaceId).where('policy_id', '=', policyId).execute();
      if (rules.length) {
        await tx
          .insertInto('sla_rules')
          .values(rules.map((r) => ({ ...r, workspace_id: workspaceId, policy_id: policyId })))
          .execute();
      }
    },

    deletePolicy(tx: Executor, workspaceId: string, policyId: string) {
      return tx.deleteFrom('sla_policies').where('workspace_id', '=', workspaceId).where('id', '=', policyId).execute();
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

    listCalendars(tx: Executor, workspaceId: string) {
      return tx.selectFrom('sla_calendars').select(calendarColumns).where('workspace_id', '=', workspaceId).orderBy('created_at').orderBy('id').execute();
    },

    findCalendar(tx: Executor, workspaceId: string, calendarId: string, lock = false) {
      let q = tx.selectFrom('sla_calendars').select(calendarColumns).where('workspace_id', '=', workspaceId).where('id', '=', calendarId);
      if (lock) q = q.forUpdate();
      return q.executeTakeFirst();
    },

    insertCalendar(tx: Executor, row: CalendarValues & Omit<Insertable<Database['sla_calendars']>, keyof CalendarValues>) {
      const { working_hours, holidays, ...values } = row;
      return tx
        .insertInto('sla_calendars')
        .values({ ...values, working_hours: JSON.stringify(working_hours), holidays: JSON.stringify(holidays) })
        .returning(calendarColumns)
        .executeTakeFirstOrThrow();
    },

    updateCalendar(tx: Executor, workspaceId: string, calendarId: string, patch: Partial<CalendarValues> & { updated_at: Date }) {
      const { working_hours, holidays, ...rest } = patch;
      return tx
        .updateTable('sla_calendars')
        .set((eb) => ({
          ...rest,
          version: eb('version', '+', 1),
          ...(working_hours !== undefined && { working_hours: JSON.stringify(working_hours) }),
          ...(holidays !== undefined && { holidays: JSON.stringify(holidays) }),
        }))
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', calendarId)
        .returning(calendarColumns)
        .executeTakeFirstOrThrow();
    },

    deleteCalendar(tx: Executor, workspaceId: string, calendarId: string) {
      return tx.deleteFrom('sla_calendars').where('workspace_id', '=', workspaceId).where('id', '=', calendarId).execute();
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
    async statePauses(tx: Executor, workspaceId: string, stateIds: string[]) {
      const rows = await tx.selectFrom('states').select(['id', 'pauses_sla']).where('workspace_id', '=', workspaceId).where('id', 'in', stateIds).execute();
      return new Map(rows.map((r) => [r.id, r.pauses_sla]));
    },

    appendHistory: appendIssueHistory,

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

    /**
     * A `state` entry for every issue in a state whose `pauses_sla` changed (same state, the flag before and after),
     * so that the history alone still tells when each issue's clocks paused. One statement.
     */
    async appendPausesChangedHistory(
      tx: Executor,
      e: { workspaceId: string; stateId: string; group: string; at: Date; actorId: string | null; from: boolean; to: boolean },
    ) {
      const ref = (pauses: boolean) => sql`jsonb_build_object('state_id', ${e.stateId}::text, 'group', ${e.group}::text, 'pauses_sla', ${pauses}::boolean)`;
      await sql`
        INSERT INTO issue_history (id, workspace_id, issue_id, at, actor_id, kind, "from", "to")
        SELECT gen_random_uuid(), i.workspace_id, i.id, ${e.at}, ${e.actorId}, 'state', ${ref(e.from)}, ${ref(e.to)}
        FROM issues i
        WHERE i.workspace_id = ${e.workspaceId} AND i.state_id = ${e.stateId}
        ORDER BY i.id
      `.execute(tx);
    },

    issueInProject(tx: Executor, workspaceId: string, projectId: string, issueId: string) {
      return tx
        .selectFrom('issues')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .where('project_id', '=', projectId)
        .where('id', '=', issueId)
        .executeTakeFirst()
        .then((r) => r !== undefined);
    },

    listHistory(tx: Executor, workspaceId: string, issueId: string, page: { offset: number; per_page: number }) {
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

    async countHistory(tx: Executor, workspaceId: string, issueId: string) {
      const row = await tx
        .selectFrom('issue_history')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('issue_id', '=', issueId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    ...trackerQueries(),
  };
}
