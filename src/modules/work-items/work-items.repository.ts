import { type ExpressionBuilder, type Expression, type Insertable, type SqlBool, sql, type Updateable } from 'kysely';
import type { Executor } from '../../db/database.js';
import { prepared, queryBuilder as qb } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';
import type { Priority, StateGroup } from '../../kernel/events.js';

export type WorkItemsRepository = ReturnType<typeof workItemsRepository>;

/** A condition on the issue list, built against the alias `i` (issues). Other modules contribute these. */
export type IssueCondition = (eb: ExpressionBuilder<Database & { i: Database['issues'] }, 'i'>) => Expression<SqlBool>;
/** A sort key of the issue list, built against the alias `i`: a column or an expression (other modules too). */
export type IssueSortKey = (eb: ExpressionBuilder<Database & { i: Database['issues'] }, 'i'>) => Expression<unknown>;

/** Priority as a rank, urgent first (the expression the priority sort index is built on). */
export const priorityRank = sql<number>`issue_priority_rank(i.priority)`;

export const projectColumns = ['id', 'workspace_id', 'name', 'identifier', 'description', 'sla_policy_id', 'created_by', 'created_at', 'updated_at'] as const;
export const stateColumns = ['id', 'project_id', 'name', 'group', 'color', 'sequence', 'is_default', 'pauses_sla', 'created_at', 'updated_at'] as const;
export const issueColumns = [
  'id',
  'workspace_id',
  'project_id',
  'sequence_id',
  'name',
  'description',
  'state_id',
  'state_group',
  'priority',
  'assignee_ids',
  'created_by',
  'created_at',
  'updated_at',
  'completed_at',
  'start_date',
  'target_date',
  'estimate_minutes',
  'remaining_minutes',
  'time_spent_minutes',
] as const;
/** An issue of a workspace by key: read by most issue routes (compiled once). */
const issueByKey = prepared(
  (workspaceId: string, issueId: string) => qb.selectFrom('issues').select(issueColumns).where('workspace_id', '=', workspaceId).where('id', '=', issueId),
  2,
);

const commentColumns = ['id', 'issue_id', 'author_id', 'body', 'created_at', 'updated_at'] as const;

export interface IssueListFilter {
  stateGroups?: StateGroup[];
  priorities?: Priority[];
  conditions: IssueCondition[];
  /** Inclusive bounds on `target_date` (YYYY-MM-DD). */
  targetDateFrom?: string;
  targetDateTo?: string;
  /** `true`: a target date before `today` and not completed or cancelled; `false`: every other issue. */
  overdue?: { overdue: boolean; today: string };
  /** Sort key and direction; issues without a value come last either way, ties by sequence_id descending. */
  order?: { key: IssueSortKey; desc: boolean };
}

export function workItemsRepository() {
  return {
    insertProject(tx: Executor, p: Insertable<Database['projects']>) {
      return tx
        .insertInto('projects')
        .values(p)
        .onConflict((oc) => oc.columns(['workspace_id', 'identifier']).doNothing())
        .returning(projectColumns)
        .executeTakeFirst();
    },

    listProjects(tx: Executor, workspaceId: string) {
      return tx.selectFrom('projects').select(projectColumns).where('workspace_id', '=', workspaceId).orderBy('created_at').orderBy('id').execute();
    },

    findProject(tx: Executor, workspaceId: string, projectId: string, lock = false) {
      let q = tx.selectFrom('projects').select(projectColumns).where('workspace_id', '=', workspaceId).where('id', '=', projectId);
      if (lock) q = q.forUpdate();
      return q.executeTakeFirst();
    },

    updateProject(
      tx: Executor,
      workspaceId: string,
      projectId: string,
      patch: Pick<Updateable<Database['projects']>, 'name' | 'identifier' | 'description' | 'sla_policy_id' | 'updated_at'>,
    ) {
      return tx
        .updateTable('projects')
        .set(patch)
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', projectId)
        .returning(projectColumns)
        .executeTakeFirstOrThrow();
    },

    deleteProject(tx: Executor, workspaceId: string, projectId: string) {
      return tx.deleteFrom('projects').where('workspace_id', '=', workspaceId).where('id', '=', projectId).execute();
    },

    nextSequenceId(tx: Executor, workspaceId: string, projectId: string) {
      return tx
        .updateTable('projects')
        .set((eb) => ({ issue_seq: eb('issue_seq', '+', 1) }))
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', projectId)
        .returning('issue_seq')
        .executeTakeFirstOrThrow()
        .then((r) => r.issue_seq);
    },

    insertStates(tx: Executor, states: Insertable<Database['states']>[]) {
      return tx
        .insertInto('states')
        .values(states)
        .onConflict((oc) => oc.doNothing())
        .returning(stateColumns)
        .execute();
    },

    listStates(tx: Executor, workspaceId: string, projectId: string) {
      return tx
        .selectFrom('states')
        .select(stateColumns)
        .where('workspace_id', '=', workspaceId)
        .where('project_id', '=', projectId)
        .orderBy('sequence')
        .orderBy('id')
        .execute();
    },

    findState(tx: Executor, workspaceId: string, projectId: string, stateId: string) {
      return tx
        .selectFrom('states')
        .select(stateColumns)
        .where('workspace_id', '=', workspaceId)
        .where('project_id', '=', projectId)
        .where('id', '=', stateId)
        .executeTakeFirst();
    },

    /** The state a new issue gets: the default one, else the first backlog state, else the first state. */
    defaultState(tx: Executor, workspaceId: string, projectId: string) {
      return tx
        .selectFrom('states')
        .select(stateColumns)
        .where('workspace_id', '=', workspaceId)
        .where('project_id', '=', projectId)
        .orderBy('is_default', 'desc')
        .orderBy(sql`("group" = 'backlog')`, 'desc')
        .orderBy('sequence')
        .limit(1)
        .executeTakeFirst();
    },

    maxStateSequence(tx: Executor, workspaceId: string, projectId: string) {
      return tx
        .selectFrom('states')
        .select((eb) => eb.fn.max<number | null>('sequence').as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('project_id', '=', projectId)
        .executeTakeFirstOrThrow()
        .then((r) => r.n ?? 0);
    },

    updateState(
      tx: Executor,
      workspaceId: string,
      stateId: string,
      patch: Pick<Updateable<Database['states']>, 'name' | 'group' | 'color' | 'pauses_sla' | 'updated_at'>,
    ) {
      return tx.updateTable('states').set(patch).where('workspace_id', '=', workspaceId).where('id', '=', stateId).returning(stateColumns).executeTakeFirst();
    },

    deleteState(tx: Executor, workspaceId: string, stateId: string) {
      return tx.deleteFrom('states').where('workspace_id', '=', workspaceId).where('id', '=', stateId).execute();
    },

    countStates(tx: Executor, workspaceId: string, projectId: string) {
      return tx
        .selectFrom('states')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('project_id', '=', projectId)
        .executeTakeFirstOrThrow()
        .then((r) => r.n);
    },

    stateInUse(tx: Executor, workspaceId: string, stateId: string) {
      return tx
        .selectFrom('issues')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .where('state_id', '=', stateId)
        .limit(1)
        .executeTakeFirst()
        .then((r) => r !== undefined);
    },

    insertIssue(tx: Executor, issue: Insertable<Database['issues']>) {
      return tx.insertInto('issues').values(issue).returning(issueColumns).executeTakeFirstOrThrow();
    },

    async findIssue(tx: Executor, workspaceId: string, issueId: string, lock = false) {
      if (!lock) return (await issueByKey(tx, workspaceId, issueId))[0];
      return tx.selectFrom('issues').select(issueColumns).where('workspace_id', '=', workspaceId).where('id', '=', issueId).forUpdate().executeTakeFirst();
    },

    async listIssues(tx: Executor, workspaceId: string, projectId: string, filter: IssueListFilter, page: { offset: number; per_page: number }) {
      let q = tx.selectFrom('issues as i').where('i.workspace_id', '=', workspaceId).where('i.project_id', '=', projectId);
      if (filter.stateGroups?.length) q = q.where('i.state_group', 'in', filter.stateGroups);
      if (filter.priorities?.length) q = q.where('i.priority', 'in', filter.priorities);
      if (filter.targetDateFrom !== undefined) q = q.where('i.target_date', '>=', filter.targetDateFrom);
      if (filter.targetDateTo !== undefined) q = q.where('i.target_date', '<=', filter.targetDateTo);
      if (filter.overdue) {
        const { today } = filter.overdue;
        const overdue = (eb: ExpressionBuilder<Database & { i: Database['issues'] }, 'i'>) =>
          eb.and([eb('i.target_date', '<', today), eb('i.state_group', 'not in', ['completed', 'cancelled'])]);
        q = filter.overdue.overdue ? q.where(overdue) : q.where((eb) => eb.not(overdue(eb)).or('i.target_date', 'is', null));
      }
      for (const condition of filter.conditions) q = q.where(condition);
      const unfiltered =
        !filter.stateGroups?.length &&
        !filter.priorities?.length &&
        filter.targetDateFrom === undefined &&
        filter.targetDateTo === undefined &&
        !filter.overdue &&
        !filter.conditions.length;
      // Unfiltered, the total is the count the database keeps on the project (migration 1070): flat at any size.
      const counted = unfiltered
        ? tx.selectFrom('projects').select('issue_count as n').where('workspace_id', '=', workspaceId).where('id', '=', projectId).executeTakeFirstOrThrow()
        : q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const [rows, count] = await Promise.all([
        (filter.order ? q.orderBy((eb) => sql`${filter.order!.key(eb)} ${sql.raw(filter.order!.desc ? 'DESC' : 'ASC')} NULLS LAST`) : q)
          .select(issueColumns.map((c) => `i.${c}` as const))
          .orderBy('i.sequence_id', 'desc')
          .offset(page.offset)
          .limit(page.per_page)
          .execute(),
        counted,
      ]);
      return { rows, total: Number(count.n) };
    },

    updateIssue(
      tx: Executor,
      workspaceId: string,
      issueId: string,
      patch: Pick<
        Updateable<Database['issues']>,
        | 'name'
        | 'description'
        | 'state_id'
        | 'state_group'
        | 'priority'
        | 'assignee_ids'
        | 'completed_at'
        | 'updated_at'
        | 'start_date'
        | 'target_date'
        | 'estimate_minutes'
        | 'remaining_minutes'
      >,
    ) {
      return tx
        .updateTable('issues')
        .set(patch)
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', issueId)
        .returning(issueColumns)
        .executeTakeFirstOrThrow();
    },

    /** The workspace's IANA time zone ("today" of the overdue filter). */
    workspaceTimeZone(tx: Executor, workspaceId: string) {
      return tx
        .selectFrom('workspaces')
        .select('time_zone')
        .where('id', '=', workspaceId)
        .executeTakeFirstOrThrow()
        .then((r) => r.time_zone);
    },

    deleteIssue(tx: Executor, workspaceId: string, issueId: string) {
      return tx.deleteFrom('issues').where('workspace_id', '=', workspaceId).where('id', '=', issueId).execute();
    },

    insertComment(tx: Executor, c: Insertable<Database['comments']>) {
      return tx.insertInto('comments').values(c).returning(commentColumns).executeTakeFirstOrThrow();
    },

    listComments(tx: Executor, workspaceId: string, issueId: string) {
      return tx
        .selectFrom('comments')
        .select(commentColumns)
        .where('workspace_id', '=', workspaceId)
        .where('issue_id', '=', issueId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },
  };
}
