import type { Executor, Tx } from '../../db/database.js';
import { appendIssueHistory, type IssueHistoryEntry } from '../../db/issue-history.js';
import { DateTime } from 'luxon';
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Actor } from '../../kernel/actor.js';
import { AppError, conflict, type FieldError, invalid, notFound } from '../../kernel/errors.js';
import type { IssueFacts, IssuePlanning, IssueSnapshot, StateGroup } from '../../kernel/events.js';
import { newId } from '../../kernel/ids.js';
import { pageOf, type PageQuery } from '../../kernel/pagination.js';
import { idList, parseList, queryValues, uuidList } from '../../kernel/query-lists.js';
import { isLocalDate } from '../../kernel/time.js';
import { PRIORITIES, type Priority, STATE_GROUPS } from '../../kernel/work-items.js';
import { projectOf } from './work-items.projects.js';
import { type IssueCondition, type IssueSortKey, priorityRank, type WorkItemsRepository } from './work-items.repository.js';
import type { IssueFilterProvider, IssueSortProvider, IssueWatchingProvider, WorkItemsDeps } from './work-items.deps.js';
import { stateOf } from './work-items.states.js';
import { issueCardView, issueSnapshot, issueView } from './work-items.views.js';

const CORE_SORTS: Record<string, IssueSortKey> = {
  sequence_id: (eb) => eb.ref('i.sequence_id'),
  created_at: (eb) => eb.ref('i.created_at'),
  updated_at: (eb) => eb.ref('i.updated_at'),
  priority: () => priorityRank,
  name: (eb) => eb.ref('i.name'),
  start_date: (eb) => eb.ref('i.start_date'),
  target_date: (eb) => eb.ref('i.target_date'),
  estimate_minutes: (eb) => eb.ref('i.estimate_minutes'),
};

/** Rows of `issue_count_changes` moved per run of the `issues.counts` job. */
const FOLD_ISSUE_COUNTS = 50_000;

type PlanningInput = Partial<IssuePlanning>;
const PLANNING_KEYS = ['start_date', 'target_date', 'estimate_minutes', 'remaining_minutes'] as const;

/**
 * The planning fields of an issue after `input` is applied to `current`; 400 for impossible or inverted dates, at
 * `base` + the field (`/set/target_date` in a bulk edit, whose message also names the issue: `subject`).
 */
function applyPlanning(current: IssuePlanning, input: PlanningInput, base = '', subject = ''): IssuePlanning {
  const next = { ...current };
  for (const key of PLANNING_KEYS) if (input[key] !== undefined) (next as Record<string, unknown>)[key] = input[key];
  const errors: FieldError[] = [];
  for (const key of ['start_date', 'target_date'] as const) {
    const value = input[key];
    if (typeof value === 'string' && !isLocalDate(value)) errors.push({ path: `${base}/${key}`, message: 'is not a date (YYYY-MM-DD)' });
  }
  if (!errors.length && next.start_date !== null && next.target_date !== null && next.start_date > next.target_date) {
    const path = input.start_date !== undefined ? `${base}/start_date` : `${base}/target_date`;
    errors.push({ path, message: `start_date (${next.start_date}) is after target_date (${next.target_date})${subject}` });
  }
  if (errors.length) throw new AppError('validation_failed', `${errors[0]!.path} ${errors[0]!.message}`, errors);
  return next;
}

/** What notifications compare across a change (the `issues.changed` event). */
const factsOf = (i: IssueRow): IssueFacts => ({
  id: i.id,
  projectId: i.project_id,
  stateId: i.state_id,
  stateGroup: i.state_group,
  priority: i.priority,
  assigneeIds: i.assignee_ids,
  description: i.description,
  targetDate: i.target_date,
});

const planningOf = (i: IssuePlanning): IssuePlanning => ({
  start_date: i.start_date,
  target_date: i.target_date,
  estimate_minutes: i.estimate_minutes,
  remaining_minutes: i.remaining_minutes,
});

const queryDate = (value: string | undefined, name: string): string | undefined => {
  if (value === undefined) return undefined;
  if (!isLocalDate(value)) throw invalid(`/querystring/${name}`, 'is not a date (YYYY-MM-DD)');
  return value;
};

const checkInstant = Compile(Type.String({ format: 'date-time' }));
/** The instants PostgreSQL and JavaScript both take: years 0001 to 9999 (PostgreSQL has no year 0). */
const INSTANT_RANGE = [Date.parse('0001-01-01T00:00:00.000Z'), Date.parse('9999-12-31T23:59:59.999Z')] as const;

/**
 * The bound of an instant filter (`created_from`, ...; contract 23.2): ISO 8601 date-times with an offset, compared at
 * the millisecond precision the service stores. Several values are ORed, so the widest bound holds: the earliest of
 * `*_from`, the latest of `*_to`. A fraction finer than a millisecond rounds up, which keeps both bounds exact on
 * stored instants (`>= .1231` is `>= .124`, and so is `< .1231`, `< .124`).
 */
function instantBound(raw: unknown, name: string, widest: 'earliest' | 'latest'): string | undefined {
  const values = queryValues(raw);
  if (values === undefined) return undefined;
  const instants = values.map((v) => {
    const finer = /[1-9]/.test(/\.\d{3}(\d+)/.exec(v)?.[1] ?? '');
    const ms = checkInstant.Check(v) ? Date.parse(v) + (finer ? 1 : 0) : Number.NaN;
    if (!(ms >= INSTANT_RANGE[0] && ms <= INSTANT_RANGE[1])) {
      throw invalid(
        `/querystring/${name}`,
        'must be ISO 8601 date-times with an offset, years 0001-9999, e.g. 2026-11-21T09:30:00Z (repeat the parameter or separate with commas)',
      );
    }
    return ms;
  });
  return new Date(widest === 'earliest' ? Math.min(...instants) : Math.max(...instants)).toISOString();
}

/** The issue of a project of the workspace (optionally locked), or 404. */
export async function issueOf(
  repo: Pick<WorkItemsRepository, 'findIssue'>,
  workspaceId: string,
  projectId: string,
  issueId: string,
  tx: Executor,
  lock = false,
) {
  const issue = await repo.findIssue(tx, workspaceId, issueId, lock);
  if (!issue || issue.project_id !== projectId) throw notFound('Issue');
  return issue;
}

/** What a PATCH or a bulk edit may change on an issue (contract 4, 18.1, 24). */
export type IssueChange = {
  name?: string;
  description?: string;
  state_id?: string;
  priority?: Priority;
  assignee_ids?: string[];
  /** The whole set (PATCH) ... */
  label_ids?: string[];
  /** ... or labels added and taken off (bulk edit). */
  add_label_ids?: string[];
  remove_label_ids?: string[];
  parent_id?: string | null;
} & PlanningInput;

type IssueRow = NonNullable<Awaited<ReturnType<WorkItemsRepository['findIssue']>>>;

const sortedIds = (ids: Iterable<string>) => [...new Set(ids)].sort();
const sameIds = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v, i) => v === b[i]);
const DONE_GROUPS: ReadonlySet<string> = new Set(['completed', 'cancelled']);
/** The view without `updated_at`: what tells whether a change changed anything a reader sees. */
const seen = (view: ReturnType<typeof issueView>) => JSON.stringify({ ...view, updated_at: undefined });

/** Ids as the database spells them (lower case), so that ids of the request compare with stored ones. */
function canonicalIds<T extends { label_ids?: string[]; add_label_ids?: string[]; remove_label_ids?: string[]; parent_id?: string | null }>(input: T): T {
  const lower = (ids: string[] | undefined) => ids?.map((id) => id.toLowerCase());
  return {
    ...input,
    ...(input.label_ids && { label_ids: lower(input.label_ids) }),
    ...(input.add_label_ids && { add_label_ids: lower(input.add_label_ids) }),
    ...(input.remove_label_ids && { remove_label_ids: lower(input.remove_label_ids) }),
    ...(typeof input.parent_id === 'string' && { parent_id: input.parent_id.toLowerCase() }),
  };
}

/** A repeatable query parameter as Fastify hands it over: one value, or several when repeated. */
type Repeated = string | string[];

/** The issue list's query (contract 4, 18.1, 23.2, 24); other modules' keys (`custom.*`) come beside these. */
export type IssueListInput = PageQuery & {
  state_group?: Repeated;
  priority?: Repeated;
  state_id?: Repeated;
  assignee_id?: Repeated;
  created_by?: Repeated;
  created_from?: Repeated;
  created_to?: Repeated;
  updated_from?: Repeated;
  updated_to?: Repeated;
  label_id?: Repeated;
  parent_id?: Repeated;
  /** Words to match (contract 23.2; the search module's filter). */
  q?: string;
  /** The workspace-wide list only. */
  project_id?: Repeated;
  order_by?: string;
  target_date_from?: string;
  target_date_to?: string;
  overdue?: boolean;
} & Record<string, unknown>;

export type IssuesService = ReturnType<typeof createIssuesService>;

/**
 * Issues: the list (filters and sorts, including those other modules register), create, update, bulk edit, delete.
 * A PATCH and a bulk edit are one code path (`changeIssues`), so each issue of a bulk edit changes exactly as a PATCH
 * would change it, and the work that does not depend on one issue (checks, history, events) is done once for all.
 */
export function createIssuesService(deps: Pick<WorkItemsDeps, 'db' | 'repo' | 'clock' | 'events' | 'identity' | 'outbox'>) {
  const { db, repo, clock, events, identity, outbox } = deps;
  const issueFilters: IssueFilterProvider[] = [];
  const issueSorts: IssueSortProvider[] = [];
  let issueWatching: IssueWatchingProvider | undefined;

  /** The views with `watching` for the caller (one call for all of them); the views as they are without a provider. */
  async function withWatching<T extends { id: string }>(
    tx: Executor,
    workspaceId: string,
    userId: string,
    views: T[],
  ): Promise<(T & { watching?: boolean })[]> {
    if (!issueWatching || !views.length) return views;
    const watched = await issueWatching(
      tx,
      workspaceId,
      userId,
      views.map((v) => v.id),
    );
    return views.map((v) => ({ ...v, watching: watched.has(v.id) }));
  }

  /** `order_by`: a core field or another module's key, `-` for descending. */
  async function sortOf(workspaceId: string, projectId: string | null, orderBy: string | undefined, query: Record<string, unknown> = {}) {
    if (orderBy === undefined) return undefined;
    const desc = orderBy.startsWith('-');
    const key = desc ? orderBy.slice(1) : orderBy;
    let sort: IssueSortKey | null | undefined = Object.hasOwn(CORE_SORTS, key) ? CORE_SORTS[key] : undefined;
    for (const provider of issueSorts) sort ??= await provider({ tx: db, workspaceId, projectId, key, query });
    if (!sort) {
      throw invalid(
        '/querystring/order_by',
        `cannot sort by "${key}": one of ${Object.keys(CORE_SORTS).join(', ')} or custom.<propertyId> of this ${projectId === null ? 'workspace' : 'project'}, with - for descending`,
      );
    }
    return { key: sort, desc };
  }

  /** 400 at `path/<index>` for the first id that is not a label of the project (the labels are locked against deletion). */
  async function assertLabels(tx: Executor, workspaceId: string, projectId: string, lists: { ids: string[] | undefined; path: string }[]) {
    const known = await repo.labelsOfProject(tx, workspaceId, projectId, [...new Set(lists.flatMap((l) => l.ids ?? []))]);
    for (const { ids, path } of lists) {
      const index = (ids ?? []).findIndex((id) => !known.has(id));
      if (index >= 0) throw invalid(`${path}/${index}`, 'is not a label of this project');
    }
  }

  /** The would-be parent of `issueIds`: an issue of the project that none of them is or is an ancestor of; else 400. */
  async function assertParent(tx: Executor, workspaceId: string, projectId: string, parentId: string, issueIds: string[], path: string) {
    if (issueIds.includes(parentId)) throw invalid(path, 'an issue cannot be its own parent');
    const parent = await repo.findIssue(tx, workspaceId, parentId);
    if (!parent || parent.project_id !== projectId) throw invalid(path, 'is not an issue of this project');
    if (!issueIds.length) return;
    const circle = await repo.ancestorAmong(tx, workspaceId, parentId, issueIds);
    if (circle) throw invalid(path, `would make issue ${circle} an ancestor of itself`);
  }

  /**
   * Applies `input` to each issue of `befores` (locked, of one project), as a PATCH does to one: checks once, one
   * UPDATE per issue, then the history, domain events and webhook events of the whole set in a fixed number of
   * statements. `base` is where the fields sit in the request (`''` for a PATCH, `/set` for a bulk edit). Answers
   * the issues as they now read, in the order of `befores`.
   */
  async function changeIssues(tx: Tx, workspaceId: string, actorId: string, projectId: string, befores: IssueRow[], change: IssueChange, base: string) {
    const input = canonicalIds(change);
    const now = clock.now();
    const ids = befores.map((b) => b.id);
    const state = input.state_id !== undefined ? await stateOf(repo, workspaceId, projectId, input.state_id, tx, `${base}/state_id`) : undefined;
    const assignees = input.assignee_ids !== undefined ? [...new Set(input.assignee_ids)] : undefined;
    if (assignees) await identity.assertMembers(tx, workspaceId, assignees, `${base}/assignee_ids`);
    if (input.label_ids || input.add_label_ids || input.remove_label_ids) {
      await assertLabels(tx, workspaceId, projectId, [
        { ids: input.label_ids, path: `${base}/label_ids` },
        { ids: input.add_label_ids, path: `${base}/add_label_ids` },
        { ids: input.remove_label_ids, path: `${base}/remove_label_ids` },
      ]);
    }
    if (typeof input.parent_id === 'string') await assertParent(tx, workspaceId, projectId, input.parent_id, ids, `${base}/parent_id`);
    const removed = new Set(input.remove_label_ids ?? []);

    const afters: IssueRow[] = [];
    for (const before of befores) {
      const planning = applyPlanning(planningOf(before), input, base, befores.length > 1 ? ` (issue ${before.id})` : '');
      const patch: Parameters<WorkItemsRepository['updateIssue']>[3] = { updated_at: now };
      for (const key of PLANNING_KEYS) if (input[key] !== undefined) (patch as Record<string, unknown>)[key] = planning[key];
      if (input.name !== undefined) patch.name = input.name.trim();
      if (input.description !== undefined) patch.description = input.description;
      if (input.priority !== undefined) patch.priority = input.priority;
      if (assignees) patch.assignee_ids = assignees;
      if (state && state.id !== before.state_id) {
        patch.state_id = state.id;
        patch.state_group = state.group;
        patch.completed_at = state.group === 'completed' ? (before.completed_at ?? now) : null;
      }
      if (input.label_ids || input.add_label_ids || input.remove_label_ids) {
        const labels = sortedIds([...(input.label_ids ?? before.label_ids), ...(input.add_label_ids ?? [])].filter((id) => !removed.has(id)));
        if (!sameIds(labels, before.label_ids)) patch.label_ids = labels;
      }
      if (input.parent_id !== undefined && input.parent_id !== before.parent_id) patch.parent_id = input.parent_id;
      afters.push(await repo.updateIssue(tx, workspaceId, before.id, patch));
    }

    const history: IssueHistoryEntry[] = [];
    const entry = (issueId: string, kind: 'labels' | 'parent', from: unknown, to: unknown) => ({
      id: newId(),
      workspace_id: workspaceId,
      issue_id: issueId,
      at: now,
      actor_id: actorId,
      kind,
      from,
      to,
    });
    const moved: { before: IssueSnapshot; after: IssueSnapshot }[] = [];
    const crossed: string[] = [];
    for (const [i, before] of befores.entries()) {
      const after = afters[i]!;
      if (!sameIds(before.label_ids, after.label_ids)) history.push(entry(after.id, 'labels', before.label_ids, after.label_ids));
      if (before.parent_id !== after.parent_id) history.push(entry(after.id, 'parent', before.parent_id, after.parent_id));
      if (after.priority !== before.priority || after.state_id !== before.state_id) moved.push({ before: issueSnapshot(before), after: issueSnapshot(after) });
      if (DONE_GROUPS.has(before.state_group) !== DONE_GROUPS.has(after.state_group)) crossed.push(after.id);
      if (PLANNING_KEYS.some((key) => before[key] !== after[key])) {
        await events.publish(tx, {
          type: 'issue.planning_changed',
          at: now,
          workspaceId,
          issueId: after.id,
          before: planningOf(before),
          after: planningOf(after),
          actorId,
        });
      }
    }
    await appendIssueHistory(tx, history);
    if (moved.length) await events.publish(tx, { type: 'issues.updated', at: now, workspaceId, changes: moved, actorId });
    const told = befores.flatMap((before, i) => {
      const after = afters[i]!;
      const same =
        sameIds(before.assignee_ids, after.assignee_ids) &&
        before.description === after.description &&
        before.state_id === after.state_id &&
        before.priority === after.priority &&
        before.target_date === after.target_date;
      return same ? [] : [{ before: factsOf(before), after: factsOf(after) }];
    });
    if (told.length) {
      // The states' names (the notifications show them), in one query only when a state changed.
      const states: Record<string, { name: string; group: StateGroup }> = {};
      if (told.some((c) => c.before.stateId !== c.after.stateId)) {
        for (const s of await repo.listStates(tx, workspaceId, projectId)) states[s.id] = { name: s.name, group: s.group };
      }
      await events.publish(tx, { type: 'issues.changed', at: now, workspaceId, actorId, changes: told, states });
    }

    // Within a bulk edit a later UPDATE can change what an earlier one answered (a parent's sub-issues, an issue's
    // blocker): read the set once more as it now is.
    const current = befores.length > 1 ? byId(await repo.readIssues(tx, workspaceId, ids)) : new Map([[afters[0]!.id, afters[0]!]]);
    const views = ids.map((id) => issueView(current.get(id)!));
    const changed = views.filter((view, i) => seen(view) !== seen(issueView(befores[i]!)));
    // An issue that blocks others opened or closed: their `blocked` changed too.
    const unblocked = crossed.length ? await repo.readIssues(tx, workspaceId, await repo.blockedBy(tx, workspaceId, crossed)) : [];
    await outbox.recordMany(
      tx,
      [...changed, ...unblocked.map(issueView)].map((data) => ({ workspaceId, type: 'issue.updated' as const, data })),
    );
    return views;
  }

  /**
   * Deletes the issues (locked, of one workspace) as one change: their children that stay become top-level (history
   * `parent`, `issue.updated`), the issues they blocked are told, and each gets `issue.deleted`.
   */
  async function removeIssues(tx: Tx, workspaceId: string, actorId: string, issues: IssueRow[]) {
    const now = clock.now();
    const ids = issues.map((i) => i.id);
    const children = await repo.childrenOutside(tx, workspaceId, ids);
    const orphans: IssueRow[] = [];
    for (const child of children) orphans.push(await repo.updateIssue(tx, workspaceId, child.id, { parent_id: null, updated_at: now }));
    await appendIssueHistory(
      tx,
      children.map((c) => ({
        id: newId(),
        workspace_id: workspaceId,
        issue_id: c.id,
        at: now,
        actor_id: actorId,
        kind: 'parent' as const,
        from: c.parent_id,
        to: null,
      })),
    );
    const openBlockers = issues.filter((i) => !DONE_GROUPS.has(i.state_group)).map((i) => i.id);
    const blocked = openBlockers.length ? await repo.blockedBy(tx, workspaceId, openBlockers) : [];
    for (const issue of issues) await events.publish(tx, { type: 'issue.deleted', at: now, issue: issueSnapshot(issue) });
    await repo.deleteIssues(tx, workspaceId, ids);
    const unblocked = await repo.readIssues(tx, workspaceId, blocked);
    await outbox.recordMany(tx, [
      ...issues.map((issue) => ({ workspaceId, type: 'issue.deleted' as const, data: issueView(issue) })),
      ...[...orphans, ...unblocked].map((issue) => ({ workspaceId, type: 'issue.updated' as const, data: issueView(issue) })),
    ]);
  }

  /** Locks the issues of a bulk request, in id order; 400 naming the first id that is not an issue of the project. */
  async function lockBulk(tx: Tx, workspaceId: string, projectId: string, requested: string[]) {
    const issueIds = requested.map((id) => id.toLowerCase());
    const twice = issueIds.findIndex((id, i) => issueIds.indexOf(id) !== i);
    if (twice >= 0) throw invalid(`/issue_ids/${twice}`, 'is named twice');
    const rows = byId(await repo.lockIssues(tx, workspaceId, projectId, issueIds));
    const missing = issueIds.findIndex((id) => !rows.has(id));
    if (missing >= 0) throw invalid(`/issue_ids/${missing}`, 'is not an issue of this project');
    return issueIds.map((id) => rows.get(id)!);
  }

  /**
   * A page of the issue list of a project, or (`projectId` null) of the whole workspace. The caller must be able to
   * read the workspace (guests too); a project of another workspace is 404. Ids of a filter that name nothing (another
   * workspace's, a deleted state's) match nothing; malformed values are 400 naming the parameter.
   */
  async function listIssuesOf(actor: Actor, slug: string, projectId: string | null, query: IssueListInput) {
    const ws = await identity.access(actor, slug, 'read');
    if (projectId !== null) await projectOf(repo, ws.workspaceId, projectId, db);
    const me = ws.userId;
    const targetDateFrom = queryDate(query.target_date_from, 'target_date_from');
    const targetDateTo = queryDate(query.target_date_to, 'target_date_to');
    const labelIds = uuidList(query.label_id, 'label_id');
    const parentIds = idList(query.parent_id, 'parent_id', { none: true });
    const projectIds = projectId === null ? uuidList(query.project_id, 'project_id') : undefined;
    const stateIds = uuidList(query.state_id, 'state_id');
    const createdBy = uuidList(query.created_by, 'created_by', me);
    const assignees = idList(query.assignee_id, 'assignee_id', { me, none: true });
    const createdFrom = instantBound(query.created_from, 'created_from', 'earliest');
    const createdTo = instantBound(query.created_to, 'created_to', 'latest');
    const updatedFrom = instantBound(query.updated_from, 'updated_from', 'earliest');
    const updatedTo = instantBound(query.updated_to, 'updated_to', 'latest');
    // "Today" is the workspace's (contract 18.1): an issue due today is not overdue until the local day is over.
    const overdue =
      query.overdue === undefined
        ? undefined
        : {
            overdue: query.overdue,
            today: DateTime.fromJSDate(clock.now(), { zone: await repo.workspaceTimeZone(db, ws.workspaceId) }).toISODate()!,
          };
    // `q` (contract 23.2) orders by relevance unless `order_by` is given (the search module's sort key `relevance`).
    const hasText = query.q !== undefined && query.q !== '';
    const order = await sortOf(ws.workspaceId, projectId, query.order_by ?? (hasText ? 'relevance' : undefined), query);
    const conditions: IssueCondition[] = [];
    for (const provider of issueFilters) {
      conditions.push(...(await provider({ tx: db, workspaceId: ws.workspaceId, projectId, query })));
    }
    const { rows, total } = await repo.listIssues(
      db,
      ws.workspaceId,
      projectId,
      {
        stateGroups: parseList(query.state_group, STATE_GROUPS, 'state_group'),
        priorities: parseList(query.priority, PRIORITIES, 'priority'),
        conditions,
        ...(projectIds && { projectIds }),
        ...(stateIds && { stateIds }),
        ...(createdBy && { createdBy }),
        ...(assignees && { assignees: { ids: assignees.filter((id) => id !== null), none: assignees.includes(null) } }),
        ...(createdFrom !== undefined && { createdFrom }),
        ...(createdTo !== undefined && { createdTo }),
        ...(updatedFrom !== undefined && { updatedFrom }),
        ...(updatedTo !== undefined && { updatedTo }),
        ...(targetDateFrom !== undefined && { targetDateFrom }),
        ...(targetDateTo !== undefined && { targetDateTo }),
        ...(overdue && { overdue }),
        ...(labelIds && { labelIds }),
        ...(parentIds && { parentIds }),
        ...(order ? { order } : {}),
      },
      query,
    );
    return pageOf(await withWatching(db, ws.workspaceId, me, rows.map(issueView)), total, query);
  }

  return {
    registerIssueFilter(provider: IssueFilterProvider) {
      issueFilters.push(provider);
    },

    registerIssueSort(provider: IssueSortProvider) {
      issueSorts.push(provider);
    },

    /** The notifications module tells whether the caller watches an issue (one provider; a later one replaces it). */
    registerIssueWatching(provider: IssueWatchingProvider) {
      issueWatching = provider;
    },

    /**
     * The `issues.counts` job: moves the changes of the kept issue counts (migration 1090) into them, a batch per run
     * (their sums never change, only how many rows hold them). Answers how many changes it moved.
     */
    async runIssueCounts() {
      return db.transaction().execute((tx) => repo.foldIssueCounts(tx, FOLD_ISSUE_COUNTS));
    },

    /** For other modules (search): the issues with these ids as cards, in the order given; ids not found are skipped. */
    async issueCards(tx: Executor, workspaceId: string, issueIds: string[]) {
      const rows = new Map((await repo.issueCards(tx, workspaceId, issueIds)).map((row) => [row.id, issueCardView(row)]));
      return issueIds.flatMap((id) => rows.get(id) ?? []);
    },

    /** For other modules: the issue of a workspace, or 404. */
    async findIssue(tx: Executor, workspaceId: string, issueId: string) {
      const issue = await repo.findIssue(tx, workspaceId, issueId);
      if (!issue) throw notFound('Issue');
      return issue;
    },

    /** The issues of a project, filtered and sorted (contract 4, 18.1, 23.2, 24), a page with its exact total. */
    listIssues(actor: Actor, slug: string, projectId: string, query: IssueListInput) {
      return listIssuesOf(actor, slug, projectId, query);
    },

    /** The issues of every project of the workspace (contract 23.2): the same filters and sorts, plus `project_id`. */
    listWorkspaceIssues(actor: Actor, slug: string, query: IssueListInput) {
      return listIssuesOf(actor, slug, null, query);
    },

    async createIssue(
      actor: Actor,
      slug: string,
      projectId: string,
      body: {
        name: string;
        description?: string;
        state_id?: string;
        priority?: Priority;
        assignee_ids?: string[];
        label_ids?: string[];
        parent_id?: string | null;
      } & PlanningInput,
    ) {
      const input = canonicalIds(body);
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'write_items', tx);
        await projectOf(repo, ws.workspaceId, projectId, tx);
        const planning = applyPlanning({ start_date: null, target_date: null, estimate_minutes: null, remaining_minutes: null }, input);
        const state = input.state_id
          ? await stateOf(repo, ws.workspaceId, projectId, input.state_id, tx, '/state_id')
          : await repo.defaultState(tx, ws.workspaceId, projectId);
        if (!state) throw conflict('The project has no states');
        const assignees = [...new Set(input.assignee_ids ?? [])];
        await identity.assertMembers(tx, ws.workspaceId, assignees, '/assignee_ids');
        if (input.label_ids?.length) await assertLabels(tx, ws.workspaceId, projectId, [{ ids: input.label_ids, path: '/label_ids' }]);
        // A new issue has no children: its parent cannot close a circle.
        if (input.parent_id) await assertParent(tx, ws.workspaceId, projectId, input.parent_id, [], '/parent_id');
        const now = clock.now();
        // Its `sequence_id` is taken from the project's counter in the insert, after search's work (migration 1103).
        const issue = await repo.insertIssue(tx, {
          id: newId(),
          workspace_id: ws.workspaceId,
          project_id: projectId,
          name: input.name.trim(),
          description: input.description ?? '',
          state_id: state.id,
          state_group: state.group,
          priority: input.priority ?? 'none',
          assignee_ids: assignees,
          label_ids: sortedIds(input.label_ids ?? []),
          parent_id: input.parent_id ?? null,
          created_by: actor.userId,
          created_at: now,
          updated_at: now,
          completed_at: state.group === 'completed' ? now : null,
          ...planning,
        });
        await events.publish(tx, {
          type: 'issue.created',
          at: now,
          issue: issueSnapshot(issue),
          assigneeIds: issue.assignee_ids,
          description: issue.description,
        });
        const view = issueView(issue);
        await outbox.record(tx, { workspaceId: ws.workspaceId, type: 'issue.created', data: view });
        return (await withWatching(tx, ws.workspaceId, actor.userId, [view]))[0]!;
      });
    },

    async getIssue(actor: Actor, slug: string, projectId: string, issueId: string) {
      const ws = await identity.access(actor, slug, 'read');
      return (await withWatching(db, ws.workspaceId, actor.userId, [issueView(await issueOf(repo, ws.workspaceId, projectId, issueId, db))]))[0]!;
    },

    async updateIssue(actor: Actor, slug: string, projectId: string, issueId: string, input: Omit<IssueChange, 'add_label_ids' | 'remove_label_ids'>) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'write_items', tx);
        if (typeof input.parent_id === 'string') await repo.lockHierarchy(tx, projectId);
        const before = await issueOf(repo, ws.workspaceId, projectId, issueId, tx, true);
        const views = await changeIssues(tx, ws.workspaceId, actor.userId, projectId, [before], input, '');
        return (await withWatching(tx, ws.workspaceId, actor.userId, views))[0]!;
      });
    },

    /** Up to 500 issues of the project changed together, each exactly as a PATCH would change it; all or nothing. */
    async bulkUpdateIssues(
      actor: Actor,
      slug: string,
      projectId: string,
      input: {
        issue_ids: string[];
        set: Pick<IssueChange, 'state_id' | 'priority' | 'assignee_ids' | 'add_label_ids' | 'remove_label_ids' | 'target_date' | 'parent_id'>;
      },
    ) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'write_items', tx);
        await projectOf(repo, ws.workspaceId, projectId, tx);
        if (typeof input.set.parent_id === 'string') await repo.lockHierarchy(tx, projectId);
        const befores = await lockBulk(tx, ws.workspaceId, projectId, input.issue_ids);
        const issues = await changeIssues(tx, ws.workspaceId, actor.userId, projectId, befores, input.set, '/set');
        return { updated: issues.length, issues: await withWatching(tx, ws.workspaceId, actor.userId, issues) };
      });
    },

    async deleteIssue(actor: Actor, slug: string, projectId: string, issueId: string) {
      await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'write_items', tx);
        const issue = await issueOf(repo, ws.workspaceId, projectId, issueId, tx, true);
        await removeIssues(tx, ws.workspaceId, actor.userId, [issue]);
      });
    },

    /** Up to 500 issues of the project deleted together, each as a DELETE would; all or nothing. */
    async bulkDeleteIssues(actor: Actor, slug: string, projectId: string, input: { issue_ids: string[] }) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'write_items', tx);
        await projectOf(repo, ws.workspaceId, projectId, tx);
        const issues = await lockBulk(tx, ws.workspaceId, projectId, input.issue_ids);
        await removeIssues(tx, ws.workspaceId, actor.userId, issues);
        return { deleted: issues.length };
      });
    },
  };
}

const byId = <T extends { id: string }>(rows: T[]) => new Map(rows.map((r) => [r.id, r]));

/** For the other parts of the module (relations, labels): `issue.updated` for each of these issues as it now reads. */
export async function recordIssuesUpdated(deps: Pick<WorkItemsDeps, 'repo' | 'outbox'>, tx: Tx, workspaceId: string, issueIds: string[]) {
  const rows = await deps.repo.readIssues(tx, workspaceId, issueIds);
  await deps.outbox.recordMany(
    tx,
    rows.map((issue) => ({ workspaceId, type: 'issue.updated' as const, data: issueView(issue) })),
  );
}
