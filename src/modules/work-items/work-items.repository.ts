import { type ExpressionBuilder, type Expression, type SqlBool, sql } from 'kysely';
import type { Db, Executor } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { Priority, StateGroup } from '../../kernel/events.js';

export type WorkItemsRepository = ReturnType<typeof workItemsRepository>;

/** A condition on the issue list, built against the alias `i` (issues). Other modules contribute these. */
export type IssueCondition = (eb: ExpressionBuilder<Database & { i: Database['issues'] }, 'i'>) => Expression<SqlBool>;
/** A sort key of the issue list, built against the alias `i`: a column or an expression (other modules too). */
export type IssueSortKey = (eb: ExpressionBuilder<Database & { i: Database['issues'] }, 'i'>) => Expression<unknown>;

/** Priority as a rank, urgent first (the expression the priority sort index is built on). */
export const priorityRank = sql<number>`issue_priority_rank(i.priority)`;

export const projectColumns = [
  'id',
  'workspace_id',
  'name',
  'identifier',
  'description',
  'sla_policy_id',
  'created_by',
  'created_at',
  'updated_at',
] as const;
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
] as const;
const commentColumns = ['id', 'issue_id', 'author_id', 'body', 'created_at', 'updated_at'] as const;

export interface IssueListFilter {
  stateGroups?: StateGroup[];
  priorities?: Priority[];
  conditions: IssueCondition[];
  /** Sort key and direction; issues without a value come last either way, ties by sequence_id descending. */
  order?: { key: IssueSortKey; desc: boolean };
}

export function workItemsRepository(db: Db) {
  return {
    insertProject(
      tx: Executor,
      p: { id: string; workspace_id: string; name: string; identifier: string; description: string; sla_policy_id: string | null; created_by: string; now: Date },
    ) {
      const { now, ...values } = p;
      return tx
        .insertInto('projects')
        .values({ ...values, created_at: now, updated_at: now })
        .onConflict((oc) => oc.columns(['workspace_id', 'identifier']).doNothing())
        .returning(projectColumns)
        .executeTakeFirst();
    },

    listProjects(workspaceId: string, tx: Executor = db) {
      return tx
        .selectFrom('projects')
        .select(projectColumns)
        .where('workspace_id', '=', workspaceId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },

    findProject(workspaceId: string, projectId: string, tx: Executor = db, lock = false) {
      let q = tx.selectFrom('projects').select(projectColumns).where('workspace_id', '=', workspaceId).where('id', '=', projectId);
      if (lock) q = q.forUpdate();
      return q.executeTakeFirst();
    },

    updateProject(
      tx: Executor,
      projectId: string,
      patch: Partial<{ name: string; identifier: string; description: string; sla_policy_id: string | null }> & { updated_at: Date },
    ) {
      return tx.updateTable('projects').set(patch).where('id', '=', projectId).returning(projectColumns).executeTakeFirstOrThrow();
    },

    deleteProject(tx: Executor, projectId: string) {
      return tx.deleteFrom('projects').where('id', '=', projectId).execute();
    },

    nextSequenceId(tx: Executor, projectId: string) {
      return tx
        .updateTable('projects')
        .set((eb) => ({ issue_seq: eb('issue_seq', '+', 1) }))
        .where('id', '=', projectId)
        .returning('issue_seq')
        .executeTakeFirstOrThrow()
        .then((r) => r.issue_seq);
    },

    insertStates(
      tx: Executor,
      states: {
        id: string;
        workspace_id: string;
        project_id: string;
        name: string;
        group: StateGroup;
        color: string;
        sequence: number;
        is_default: boolean;
        pauses_sla?: boolean;
        created_at: Date;
        updated_at: Date;
      }[],
    ) {
      return tx.insertInto('states').values(states).onConflict((oc) => oc.doNothing()).returning(stateColumns).execute();
    },

    listStates(projectId: string, tx: Executor = db) {
      return tx.selectFrom('states').select(stateColumns).where('project_id', '=', projectId).orderBy('sequence').orderBy('id').execute();
    },

    findState(projectId: string, stateId: string, tx: Executor = db) {
      return tx.selectFrom('states').select(stateColumns).where('project_id', '=', projectId).where('id', '=', stateId).executeTakeFirst();
    },

    /** The state a new issue gets: the default one, else the first backlog state, else the first state. */
    defaultState(projectId: string, tx: Executor = db) {
      return tx
        .selectFrom('states')
        .select(stateColumns)
        .where('project_id', '=', projectId)
        .orderBy('is_default', 'desc')
        .orderBy(sql`("group" = 'backlog')`, 'desc')
        .orderBy('sequence')
        .limit(1)
        .executeTakeFirst();
    },

    maxStateSequence(projectId: string, tx: Executor = db) {
      return tx
        .selectFrom('states')
        .select((eb) => eb.fn.max<number | null>('sequence').as('n'))
        .where('project_id', '=', projectId)
        .executeTakeFirstOrThrow()
        .then((r) => r.n ?? 0);
    },

    updateState(
      tx: Executor,
      stateId: string,
      patch: Partial<{ name: string; group: StateGroup; color: string; pauses_sla: boolean }> & { updated_at: Date },
    ) {
      return tx.updateTable('states').set(patch).where('id', '=', stateId).returning(stateColumns).executeTakeFirst();
    },

    deleteState(tx: Executor, stateId: string) {
      return tx.deleteFrom('states').where('id', '=', stateId).execute();
    },

    countStates(projectId: string, tx: Executor = db) {
      return tx
        .selectFrom('states')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('project_id', '=', projectId)
        .executeTakeFirstOrThrow()
        .then((r) => r.n);
    },

    stateInUse(stateId: string, tx: Executor = db) {
      return tx
        .selectFrom('issues')
        .select('id')
        .where('state_id', '=', stateId)
        .limit(1)
        .executeTakeFirst()
        .then((r) => r !== undefined);
    },

    insertIssue(
      tx: Executor,
      issue: {
        id: string;
        workspace_id: string;
        project_id: string;
        sequence_id: number;
        name: string;
        description: string;
        state_id: string;
        state_group: StateGroup;
        priority: Priority;
        assignee_ids: string[];
        created_by: string;
        created_at: Date;
        updated_at: Date;
        completed_at: Date | null;
      },
    ) {
      return tx.insertInto('issues').values(issue).returning(issueColumns).executeTakeFirstOrThrow();
    },

    findIssue(workspaceId: string, issueId: string, tx: Executor = db, lock = false) {
      let q = tx.selectFrom('issues').select(issueColumns).where('workspace_id', '=', workspaceId).where('id', '=', issueId);
      if (lock) q = q.forUpdate();
      return q.executeTakeFirst();
    },

    async listIssues(projectId: string, filter: IssueListFilter, page: { offset: number; per_page: number }, tx: Executor = db) {
      let q = tx.selectFrom('issues as i').where('i.project_id', '=', projectId);
      if (filter.stateGroups?.length) q = q.where('i.state_group', 'in', filter.stateGroups);
      if (filter.priorities?.length) q = q.where('i.priority', 'in', filter.priorities);
      for (const condition of filter.conditions) q = q.where(condition);
      const [rows, count] = await Promise.all([
        (filter.order
          ? q.orderBy((eb) => sql`${filter.order!.key(eb)} ${sql.raw(filter.order!.desc ? 'DESC' : 'ASC')} NULLS LAST`)
          : q
        )
          .select(issueColumns.map((c) => `i.${c}` as const))
          .orderBy('i.sequence_id', 'desc')
          .offset(page.offset)
          .limit(page.per_page)
          .execute(),
        q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: count.n };
    },

    updateIssue(
      tx: Executor,
      issueId: string,
      patch: Partial<{
        name: string;
        description: string;
        state_id: string;
        state_group: StateGroup;
        priority: Priority;
        assignee_ids: string[];
        completed_at: Date | null;
      }> & { updated_at: Date },
    ) {
      return tx.updateTable('issues').set(patch).where('id', '=', issueId).returning(issueColumns).executeTakeFirstOrThrow();
    },

    deleteIssue(tx: Executor, issueId: string) {
      return tx.deleteFrom('issues').where('id', '=', issueId).execute();
    },

    insertComment(tx: Executor, c: { id: string; workspace_id: string; issue_id: string; author_id: string; body: string; created_at: Date; updated_at: Date }) {
      return tx.insertInto('comments').values(c).returning(commentColumns).executeTakeFirstOrThrow();
    },

    listComments(issueId: string, tx: Executor = db) {
      return tx.selectFrom('comments').select(commentColumns).where('issue_id', '=', issueId).orderBy('created_at').orderBy('id').execute();
    },
  };
}
