import { type ExpressionBuilder, type Expression, type Insertable, type SqlBool, sql, type Updateable } from 'kysely';
import type { Executor } from '../../db/database.js';
import { derivedColumns } from '../../db/issue-derived.js';
import { CUSTOM_PLAN } from '../../db/named-statements.js';
import { prepared, queryBuilder as qb } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';
import type { Priority, StateGroup } from '../../kernel/events.js';
import { labelIssueCount, labelQueries } from './work-items.labels.repository.js';
import { relationQueries } from './work-items.relations.repository.js';

/** Advisory-lock namespace of a project's hierarchy (parents); hashtext(project id) is the key within it. */
const HIERARCHY_LOCK = 0x242;

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
  'label_ids',
  'parent_id',
] as const;

/** An issue of a workspace by key: read by most issue routes (compiled once). */
const issueByKey = prepared(
  (workspaceId: string, issueId: string) =>
    qb
      .selectFrom('issues')
      .select([...issueColumns, ...derivedColumns('issues')])
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', issueId),
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
  /** Issues carrying any of these labels (contract 24.1). */
  labelIds?: string[];
  /** Children of any of these issues; `null` among them: top-level issues (contract 24.2). */
  parentIds?: (string | null)[];
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
      return tx
        .insertInto('issues')
        .values(issue)
        .returning([...issueColumns, ...derivedColumns('issues')])
        .executeTakeFirstOrThrow();
    },

    /**
     * The issue, optionally locked for an update. `FOR NO KEY UPDATE`, the lock the UPDATE itself takes: a comment,
     * worklog or child inserted meanwhile (whose foreign key takes a key-share lock) does not wait for it.
     */
    async findIssue(tx: Executor, workspaceId: string, issueId: string, lock = false) {
      if (!lock) return (await issueByKey(tx, workspaceId, issueId))[0];
      return tx
        .selectFrom('issues')
        .select([...issueColumns, ...derivedColumns('issues')])
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', issueId)
        .forNoKeyUpdate()
        .executeTakeFirst();
    },

    /** Issues of a project by id, locked for an update in id order (two bulk edits never wait on each other in a circle). */
    lockIssues(tx: Executor, workspaceId: string, projectId: string, issueIds: string[]) {
      return tx
        .selectFrom('issues')
        .select([...issueColumns, ...derivedColumns('issues')])
        .where('workspace_id', '=', workspaceId)
        .where('project_id', '=', projectId)
        .where(sql<boolean>`id = ANY(${issueIds}::uuid[])`)
        .orderBy('id')
        .forNoKeyUpdate()
        .execute();
    },

    /** Issues of a workspace by id, as the API shows them (in no particular order). */
    readIssues(tx: Executor, workspaceId: string, issueIds: string[]) {
      if (!issueIds.length) return Promise.resolve([]);
      return tx
        .selectFrom('issues')
        .select([...issueColumns, ...derivedColumns('issues')])
        .where('workspace_id', '=', workspaceId)
        .where(sql<boolean>`id = ANY(${issueIds}::uuid[])`)
        .execute();
    },

    /** The children of these issues that are not among them (a deleted parent's children stay, top-level). */
    childrenOutside(tx: Executor, workspaceId: string, parentIds: string[]) {
      return tx
        .selectFrom('issues')
        .select([...issueColumns, ...derivedColumns('issues')])
        .where('workspace_id', '=', workspaceId)
        .where(sql<boolean>`parent_id = ANY(${parentIds}::uuid[]) AND NOT (id = ANY(${parentIds}::uuid[]))`)
        .orderBy('id')
        .forNoKeyUpdate()
        .execute();
    },

    /**
     * Whether `issueId` is `parentId` or one of its ancestors: setting parentId as its parent would close a circle.
     * Walks up from the would-be parent (the CYCLE clause stops a walk that meets a circle, which the service never
     * writes). Answers the first of `issueIds` met on the way up, or null.
     */
    async ancestorAmong(tx: Executor, workspaceId: string, parentId: string, issueIds: string[]) {
      const { rows } = await sql<{ id: string }>`
        WITH RECURSIVE up (id, parent_id) AS (
          SELECT id, parent_id FROM issues WHERE workspace_id = ${workspaceId} AND id = ${parentId}
          UNION ALL
          SELECT i.id, i.parent_id FROM issues i JOIN up ON i.id = up.parent_id WHERE i.workspace_id = ${workspaceId}
        ) CYCLE id SET circular USING path
        SELECT id FROM up WHERE id = ANY(${issueIds}::uuid[]) LIMIT 1`.execute(tx);
      return rows[0]?.id ?? null;
    },

    /**
     * Serialises the changes of parents within a project (taken before any issue is locked): two concurrent moves
     * that would each be fine alone but together close a circle cannot both pass the ancestor check.
     */
    async lockHierarchy(tx: Executor, projectId: string) {
      await sql`SELECT pg_advisory_xact_lock(${HIERARCHY_LOCK}::int4, hashtext(${projectId}))`.execute(tx);
    },

    /** Issues that `issueIds` block (relation `blocks`), outside `issueIds`: their `blocked` follows the blockers' state. */
    blockedBy(tx: Executor, workspaceId: string, issueIds: string[]) {
      return tx
        .selectFrom('issue_relations')
        .select('related_issue_id as id')
        .distinct()
        .where('workspace_id', '=', workspaceId)
        .where('type', '=', 'blocks')
        .where(sql<boolean>`issue_id = ANY(${issueIds}::uuid[]) AND NOT (related_issue_id = ANY(${issueIds}::uuid[]))`)
        .execute()
        .then((rows) => rows.map((r) => r.id));
    },

    async listIssues(tx: Executor, workspaceId: string, projectId: string, filter: IssueListFilter, page: { offset: number; per_page: number }) {
      let q = tx.selectFrom('issues as i').where('i.workspace_id', '=', workspaceId).where('i.project_id', '=', projectId);
      if (filter.stateGroups?.length) q = q.where('i.state_group', 'in', filter.stateGroups);
      if (filter.priorities?.length) q = q.where('i.priority', 'in', filter.priorities);
      if (filter.targetDateFrom !== undefined) q = q.where('i.target_date', '>=', filter.targetDateFrom);
      if (filter.targetDateTo !== undefined) q = q.where('i.target_date', '<=', filter.targetDateTo);
      // Planned with its values each time: one generic plan cannot serve both a common and a rare label.
      if (filter.labelIds?.length) q = q.where(sql<boolean>`i.label_ids && ${filter.labelIds}::uuid[] ${sql.raw(CUSTOM_PLAN)}`);
      if (filter.parentIds?.length) {
        const ids = filter.parentIds.filter((id) => id !== null);
        const top = ids.length < filter.parentIds.length;
        q = q.where((eb) =>
          eb.or([...(ids.length ? [eb(sql`i.parent_id`, '=', sql`ANY(${ids}::uuid[])`)] : []), ...(top ? [eb('i.parent_id', 'is', null)] : [])]),
        );
      }
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
        !filter.conditions.length &&
        !filter.parentIds?.length;
      // Unfiltered, the total is the count the database keeps on the project (migration 1070); filtered by one label
      // alone, the count it keeps for the label (1080): flat at any size.
      const counted =
        unfiltered && !filter.labelIds?.length
          ? tx.selectFrom('projects').select('issue_count as n').where('workspace_id', '=', workspaceId).where('id', '=', projectId).executeTakeFirstOrThrow()
          : unfiltered && filter.labelIds?.length === 1
            ? labelIssueCount(tx, workspaceId, projectId, filter.labelIds[0]!)
            : q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const [rows, count] = await Promise.all([
        (filter.order ? q.orderBy((eb) => sql`${filter.order!.key(eb)} ${sql.raw(filter.order!.desc ? 'DESC' : 'ASC')} NULLS LAST`) : q)
          .select([...issueColumns.map((c) => `i.${c}` as const), ...derivedColumns('i')])
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
        | 'label_ids'
        | 'parent_id'
      >,
    ) {
      return tx
        .updateTable('issues')
        .set(patch)
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', issueId)
        .returning([...issueColumns, ...derivedColumns('issues')])
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

    deleteIssues(tx: Executor, workspaceId: string, issueIds: string[]) {
      return tx
        .deleteFrom('issues')
        .where('workspace_id', '=', workspaceId)
        .where(sql<boolean>`id = ANY(${issueIds}::uuid[])`)
        .execute();
    },

    ...labelQueries(),
    ...relationQueries(),

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
