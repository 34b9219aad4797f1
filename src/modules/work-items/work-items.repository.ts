import { type ExpressionBuilder, type Expression, type Insertable, type SelectQueryBuilder, type SqlBool, sql, type Updateable } from 'kysely';
import type { Executor } from '../../db/database.js';
import { derivedColumns } from '../../db/issue-derived.js';
import { CUSTOM_PLAN } from '../../db/named-statements.js';
import { prepared, queryBuilder as qb } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';
import type { Priority, StateGroup } from '../../kernel/events.js';
import { issueCountQueries, type KeptCountFilter, keptIssueCount } from './work-items.counts.repository.js';
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

const commentColumns = ['id', 'issue_id', 'author_id', 'body', 'created_at', 'updated_at', 'edited_at'] as const;

export interface IssueListFilter {
  /** The workspace-wide list only (contract 23.2): issues of these projects; undefined: of every project. */
  projectIds?: string[];
  stateGroups?: StateGroup[];
  priorities?: Priority[];
  /** Issues in any of these states (contract 23.2). */
  stateIds?: string[];
  /** Issues assigned to any of `ids`, or (`none`) to nobody. */
  assignees?: { ids: string[]; none: boolean };
  /** Issues created by any of these users. */
  createdBy?: string[];
  /** Bounds on `created_at` and `updated_at` (ISO 8601 instants): `from` inclusive, `to` exclusive. */
  createdFrom?: string;
  createdTo?: string;
  updatedFrom?: string;
  updatedTo?: string;
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
  /**
   * Sort key and direction; issues without a value come last either way. Ties: by sequence_id descending in a project,
   * newest first (created_at, then id, descending) across a workspace.
   */
  order?: { key: IssueSortKey; desc: boolean };
}

type IssueEb = ExpressionBuilder<Database & { i: Database['issues'] }, 'i'>;

/**
 * `column` is one of the ids: `=` for one (an index on the column then also yields the list's order: a state whose
 * issues are all old is found without walking past the newer ones), `= ANY` for several.
 */
const oneOf = (column: 'i.project_id' | 'i.state_id' | 'i.created_by', ids: string[]) =>
  ids.length === 1 ? sql<boolean>`${sql.ref(column)} = ${ids[0]}::uuid` : sql<boolean>`${sql.ref(column)} = ANY(${ids}::uuid[])`;

/** The filters of a list that are in use (the workspace list's projects aside). */
function filtersInUse(filter: IssueListFilter) {
  const used = (
    [
      'stateGroups',
      'priorities',
      'stateIds',
      'assignees',
      'createdBy',
      'createdFrom',
      'createdTo',
      'updatedFrom',
      'updatedTo',
      'targetDateFrom',
      'targetDateTo',
      'overdue',
      'labelIds',
      'parentIds',
    ] as const
  ).filter((key) => {
    const value = filter[key];
    return Array.isArray(value) ? value.length > 0 : value !== undefined;
  });
  return filter.conditions.length ? [...used, 'conditions' as const] : used;
}

/** What the kept counts of migration 1090 answer: these dimensions, and at most one member among the assignees. */
const KEPT: ReadonlySet<string> = new Set(['stateGroups', 'priorities', 'stateIds', 'assignees', 'createdBy']);

/** The instant filter of a list whose only filter is bounds on one instant column, or null. */
function instantRangeOf(filter: IssueListFilter): { column: 'created_at' | 'updated_at'; from?: string; to?: string } | null {
  const used = filtersInUse(filter);
  if (used.length && used.every((key) => key === 'createdFrom' || key === 'createdTo')) {
    return {
      column: 'created_at',
      ...(filter.createdFrom !== undefined && { from: filter.createdFrom }),
      ...(filter.createdTo !== undefined && { to: filter.createdTo }),
    };
  }
  if (used.length && used.every((key) => key === 'updatedFrom' || key === 'updatedTo')) {
    return {
      column: 'updated_at',
      ...(filter.updatedFrom !== undefined && { from: filter.updatedFrom }),
      ...(filter.updatedTo !== undefined && { to: filter.updatedTo }),
    };
  }
  return null;
}

/**
 * How many issues of the project lie between the instants, and the least and greatest of their sequence ids: an
 * index-only range scan of the column's sort index `(project_id, <column>, sequence_id)`. Scoped to the workspace
 * through the project (an issue belongs to its project's workspace: the foreign key on `(workspace_id, project_id)`),
 * because that index does not hold `workspace_id` and a condition on it would read every issue of the range.
 */
function instantRange(tx: Executor, workspaceId: string, projectId: string, range: { column: 'created_at' | 'updated_at'; from?: string; to?: string }) {
  let q = tx
    .selectFrom('issues as i')
    .select([sql<number>`count(*)`.as('n'), sql<number | null>`min(i.sequence_id)`.as('lo'), sql<number | null>`max(i.sequence_id)`.as('hi')])
    .where(sql<boolean>`i.project_id = (SELECT p.id FROM projects p WHERE p.workspace_id = ${workspaceId} AND p.id = ${projectId})`);
  const column = sql.ref(`i.${range.column}`);
  if (range.from !== undefined) q = q.where(sql<boolean>`${column} >= ${range.from}::timestamptz`);
  if (range.to !== undefined) q = q.where(sql<boolean>`${column} < ${range.to}::timestamptz`);
  return q.executeTakeFirstOrThrow();
}

/** At most this many matching issues are sorted whole rather than found by walking the order's index (see listIssues). */
const SORT_ALL_UP_TO = 10_000;

/**
 * A filter as the kept counts of 1090 answer it (filters in use, each of their dimensions, at most one member among
 * the assignees), or null.
 */
function keptFilterOf(filter: IssueListFilter, projectId: string | null): KeptCountFilter | null {
  const used = filtersInUse(filter);
  if (!used.length || !used.every((key) => KEPT.has(key)) || (filter.assignees?.ids.length ?? 0) > 1) return null;
  const projectIds = projectId !== null ? [projectId] : filter.projectIds;
  return {
    ...(projectIds?.length && { projectIds }),
    ...(filter.stateIds?.length && { stateIds: filter.stateIds }),
    ...(filter.stateGroups?.length && { stateGroups: filter.stateGroups }),
    ...(filter.priorities?.length && { priorities: filter.priorities }),
    ...(filter.createdBy?.length && { createdBy: filter.createdBy }),
    ...(filter.assignees && { assignees: filter.assignees }),
  };
}

/**
 * The exact total of a filtered list, at a flat cost where the database keeps it: unfiltered, the projects' counts
 * (1070); one label alone, the label's count (1080); `parent_id=none` alone, the project's count less its sub-issues
 * (an index-only count of the few); projects, states, state groups, priorities, creators and one assignee (and/or
 * `none`), in any combination, the kept counts of 1090 (several assignees are not summed: an issue of two would count
 * twice). Anything else is counted.
 */
function totalOf(
  tx: Executor,
  workspaceId: string,
  projectId: string | null,
  filter: IssueListFilter,
  counted: SelectQueryBuilder<Database & { i: Database['issues'] }, 'i', object>,
) {
  const used = filtersInUse(filter);
  const projectIds = projectId !== null ? [projectId] : filter.projectIds;
  if (!used.length && projectId !== null) {
    return tx.selectFrom('projects').select('issue_count as n').where('workspace_id', '=', workspaceId).where('id', '=', projectId).executeTakeFirstOrThrow();
  }
  if (!used.length) {
    let projects = tx
      .selectFrom('projects')
      .select(sql<number>`coalesce(sum(issue_count), 0)::bigint`.as('n'))
      .where('workspace_id', '=', workspaceId);
    if (projectIds?.length) projects = projects.where(sql<boolean>`id = ANY(${projectIds}::uuid[])`);
    return projects.executeTakeFirstOrThrow();
  }
  const kept = keptFilterOf(filter, projectId);
  if (kept) return keptIssueCount(tx, workspaceId, kept);
  if (projectId !== null && used.length === 1 && filter.labelIds?.length === 1) return labelIssueCount(tx, workspaceId, projectId, filter.labelIds[0]!);
  if (projectId !== null && used.length === 1 && filter.parentIds?.length === 1 && filter.parentIds[0] === null) {
    return tx
      .selectFrom('projects as p')
      .select(
        sql<number>`p.issue_count - (SELECT count(*) FROM issues c WHERE c.workspace_id = p.workspace_id AND c.project_id = p.id AND c.parent_id IS NOT NULL)`.as(
          'n',
        ),
      )
      .where('p.workspace_id', '=', workspaceId)
      .where('p.id', '=', projectId)
      .executeTakeFirstOrThrow();
  }
  return counted.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
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

    /**
     * Issues of a workspace by id with what a reader needs to recognize them: the project's identifier (the key) and
     * the state's name (search results, similar issues). In no particular order; ids of other workspaces are absent.
     */
    async issueCards(tx: Executor, workspaceId: string, issueIds: string[]) {
      if (issueIds.length === 0) return [];
      return tx
        .selectFrom('issues')
        .innerJoin('projects as p', 'p.id', 'issues.project_id')
        .innerJoin('states as st', 'st.id', 'issues.state_id')
        .select([...issueColumns.map((c) => `issues.${c}` as const), ...derivedColumns('issues'), 'p.identifier', 'st.name as state_name'])
        .where('issues.workspace_id', '=', workspaceId)
        .where('issues.id', '=', sql<string>`ANY(${issueIds}::uuid[])`)
        .execute();
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

    /**
     * A page of the issue list of a project (`projectId`) or, with `projectId` null, of the whole workspace (contract
     * 23.2), with its exact total: kept by the database where it can be (see `totalOf`), counted otherwise.
     */
    async listIssues(tx: Executor, workspaceId: string, projectId: string | null, filter: IssueListFilter, page: { offset: number; per_page: number }) {
      let q = tx.selectFrom('issues as i').where('i.workspace_id', '=', workspaceId);
      if (projectId !== null) q = q.where('i.project_id', '=', projectId);
      else if (filter.projectIds?.length) q = q.where(oneOf('i.project_id', filter.projectIds));
      if (filter.stateGroups?.length) q = q.where('i.state_group', 'in', filter.stateGroups);
      if (filter.priorities?.length) q = q.where('i.priority', 'in', filter.priorities);
      if (filter.stateIds?.length) q = q.where(oneOf('i.state_id', filter.stateIds));
      if (filter.createdBy?.length) q = q.where(oneOf('i.created_by', filter.createdBy));
      if (filter.assignees) {
        const { ids, none } = filter.assignees;
        // Planned with its values each time (as labels): a member with a handful of issues wants the GIN index, one
        // with a third of the workspace the order's index. `= '{}'` as the unassigned index's predicate is written.
        q = q.where((eb) =>
          eb.or([
            ...(ids.length ? [sql<SqlBool>`i.assignee_ids && ${ids}::uuid[] ${sql.raw(CUSTOM_PLAN)}`] : []),
            ...(none ? [sql<SqlBool>`i.assignee_ids = '{}'`] : []),
          ]),
        );
      }
      if (filter.createdFrom !== undefined) q = q.where(sql<boolean>`i.created_at >= ${filter.createdFrom}::timestamptz`);
      if (filter.createdTo !== undefined) q = q.where(sql<boolean>`i.created_at < ${filter.createdTo}::timestamptz`);
      if (filter.updatedFrom !== undefined) q = q.where(sql<boolean>`i.updated_at >= ${filter.updatedFrom}::timestamptz`);
      if (filter.updatedTo !== undefined) q = q.where(sql<boolean>`i.updated_at < ${filter.updatedTo}::timestamptz`);
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
        const overdue = (eb: IssueEb) => eb.and([eb('i.target_date', '<', today), eb('i.state_group', 'not in', ['completed', 'cancelled'])]);
        q = filter.overdue.overdue ? q.where(overdue) : q.where((eb) => eb.not(overdue(eb)).or('i.target_date', 'is', null));
      }
      for (const condition of filter.conditions) q = q.where(condition);

      /**
       * A page in the list's order. `sortAll`: the order as an expression no index yields, so the matching issues are
       * found by the filter's own index and sorted (the same order, the same rows). `sequences`: the sequence ids the
       * matching issues lie between (a redundant condition that starts the walk at the newest of them).
       */
      const pageOf = (sortAll: boolean, sequences?: { lo: number; hi: number }) => {
        let base = q;
        // Planned with its values each time: a generic plan sorts the whole range instead of walking from its newest.
        if (sequences) base = base.where(sql<boolean>`i.sequence_id BETWEEN ${sequences.lo} AND ${sequences.hi} ${sql.raw(CUSTOM_PLAN)}`);
        let rows = (
          filter.order ? base.orderBy((eb) => sql`${filter.order!.key(eb)} ${sql.raw(filter.order!.desc ? 'DESC' : 'ASC')} NULLS LAST`) : base
        ).select([...issueColumns.map((c) => `i.${c}` as const), ...derivedColumns('i')]);
        if (projectId !== null) rows = rows.orderBy(sortAll ? sql`i.sequence_id + 0` : sql`i.sequence_id`, 'desc');
        else rows = rows.orderBy(sortAll ? sql`i.created_at + interval '0 seconds'` : sql`i.created_at`, 'desc').orderBy('i.id', 'desc');
        return rows.offset(page.offset).limit(page.per_page).execute();
      };
      // A project's issues created (or updated) between two instants, and nothing else: counted from the sort index of
      // that column alone, with the sequence ids they lie between, then the page from the newest of them. Walking the
      // list's order instead passes every newer issue first (200 ms for a range of old issues in a million).
      const range = instantRangeOf(filter);
      if (projectId !== null && range) {
        const found = await instantRange(tx, workspaceId, projectId, range);
        const total = Number(found.n);
        if (!total || found.lo === null || found.hi === null) return { rows: [], total };
        return { rows: await pageOf(false, { lo: found.lo, hi: found.hi }), total };
      }
      // A member's issues have no index in the list's order (GIN holds no order): the planner walks the order's index
      // and checks each issue, which it expects to stop after a few rows, and which walks a million when the member's
      // issues are all old (someone who left a year ago). When the kept counts say they are few, sorting them all is
      // cheap and bounded: count first, then sort the few.
      const kept = keptFilterOf(filter, projectId);
      if (kept && !filter.order && filter.assignees?.ids.length) {
        const counts = await keptIssueCount(tx, workspaceId, kept, true);
        const total = Number(counts.n);
        // Sorted whole when few match and the index that finds them yields few (the assignee index yields all the
        // member's issues, before the other conditions).
        return { rows: await pageOf(total <= SORT_ALL_UP_TO && Number(counts.assigned) <= 4 * SORT_ALL_UP_TO), total };
      }
      const [found, count] = await Promise.all([pageOf(false), totalOf(tx, workspaceId, projectId, filter, q)]);
      return { rows: found, total: Number(count.n) };
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
    ...issueCountQueries(),

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

    /** A comment of an issue; undefined if the issue has no such comment. */
    findComment(tx: Executor, workspaceId: string, issueId: string, commentId: string) {
      return tx
        .selectFrom('comments')
        .select(commentColumns)
        .where('workspace_id', '=', workspaceId)
        .where('issue_id', '=', issueId)
        .where('id', '=', commentId)
        .executeTakeFirst();
    },

    updateComment(tx: Executor, workspaceId: string, commentId: string, patch: Pick<Updateable<Database['comments']>, 'body' | 'updated_at' | 'edited_at'>) {
      return tx
        .updateTable('comments')
        .set(patch)
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', commentId)
        .returning(commentColumns)
        .executeTakeFirst();
    },

    /** Deletes a comment; its attachments go with it (ON DELETE CASCADE, whose trigger records their stored files). */
    deleteComment(tx: Executor, workspaceId: string, commentId: string) {
      return tx.deleteFrom('comments').where('workspace_id', '=', workspaceId).where('id', '=', commentId).execute();
    },
  };
}
