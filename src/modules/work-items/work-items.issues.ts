import type { Executor } from '../../db/database.js';
import { DateTime } from 'luxon';
import type { Actor } from '../../kernel/actor.js';
import { AppError, conflict, type FieldError, invalid, notFound } from '../../kernel/errors.js';
import type { IssuePlanning } from '../../kernel/events.js';
import { newId } from '../../kernel/ids.js';
import { pageOf, type PageQuery } from '../../kernel/pagination.js';
import { isLocalDate } from '../../kernel/time.js';
import { PRIORITIES, type Priority, STATE_GROUPS } from '../../kernel/work-items.js';
import { projectOf } from './work-items.projects.js';
import { type IssueCondition, type IssueSortKey, priorityRank, type WorkItemsRepository } from './work-items.repository.js';
import type { IssueFilterProvider, IssueSortProvider, WorkItemsDeps } from './work-items.deps.js';
import { stateOf } from './work-items.states.js';
import { issueSnapshot, issueView } from './work-items.views.js';

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

type PlanningInput = Partial<IssuePlanning>;
const PLANNING_KEYS = ['start_date', 'target_date', 'estimate_minutes', 'remaining_minutes'] as const;

/** The planning fields of an issue after `input` is applied to `current`; 400 for impossible or inverted dates. */
function applyPlanning(current: IssuePlanning, input: PlanningInput): IssuePlanning {
  const next = { ...current };
  for (const key of PLANNING_KEYS) if (input[key] !== undefined) (next as Record<string, unknown>)[key] = input[key];
  const errors: FieldError[] = [];
  for (const key of ['start_date', 'target_date'] as const) {
    const value = input[key];
    if (typeof value === 'string' && !isLocalDate(value)) errors.push({ path: `/${key}`, message: 'is not a date (YYYY-MM-DD)' });
  }
  if (!errors.length && next.start_date !== null && next.target_date !== null && next.start_date > next.target_date) {
    const path = input.start_date !== undefined ? '/start_date' : '/target_date';
    errors.push({ path, message: `start_date (${next.start_date}) is after target_date (${next.target_date})` });
  }
  if (errors.length) throw new AppError('validation_failed', `${errors[0]!.path} ${errors[0]!.message}`, errors);
  return next;
}

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

const parseList = <T extends string>(raw: string | undefined, allowed: readonly T[], name: string): T[] | undefined => {
  if (raw === undefined || raw === '') return undefined;
  const values = raw.split(',').map((v) => v.trim());
  const bad = values.filter((v) => !allowed.includes(v as T));
  if (bad.length) throw invalid(`/querystring/${name}`, `must be one of ${allowed.join(', ')} (comma-separated)`);
  return values as T[];
};

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

export type IssuesService = ReturnType<typeof createIssuesService>;

/** Issues: the list (filters and sorts, including those other modules register), create, update, delete. */
export function createIssuesService(deps: Pick<WorkItemsDeps, 'db' | 'repo' | 'clock' | 'events' | 'identity' | 'outbox'>) {
  const { db, repo, clock, events, identity, outbox } = deps;
  const issueFilters: IssueFilterProvider[] = [];
  const issueSorts: IssueSortProvider[] = [];

  /** `order_by`: a core field or another module's key, `-` for descending. */
  async function sortOf(workspaceId: string, projectId: string, orderBy: string | undefined) {
    if (orderBy === undefined) return undefined;
    const desc = orderBy.startsWith('-');
    const key = desc ? orderBy.slice(1) : orderBy;
    let sort: IssueSortKey | null | undefined = Object.hasOwn(CORE_SORTS, key) ? CORE_SORTS[key] : undefined;
    for (const provider of issueSorts) sort ??= await provider({ tx: db, workspaceId, projectId, key });
    if (!sort) {
      throw invalid(
        '/querystring/order_by',
        `cannot sort by "${key}": one of ${Object.keys(CORE_SORTS).join(', ')} or custom.<propertyId> of this project, with - for descending`,
      );
    }
    return { key: sort, desc };
  }

  return {
    registerIssueFilter(provider: IssueFilterProvider) {
      issueFilters.push(provider);
    },

    registerIssueSort(provider: IssueSortProvider) {
      issueSorts.push(provider);
    },

    /** For other modules: the issue of a workspace, or 404. */
    async findIssue(tx: Executor, workspaceId: string, issueId: string) {
      const issue = await repo.findIssue(tx, workspaceId, issueId);
      if (!issue) throw notFound('Issue');
      return issue;
    },

    async listIssues(
      actor: Actor,
      slug: string,
      projectId: string,
      query: PageQuery & {
        state_group?: string;
        priority?: string;
        order_by?: string;
        target_date_from?: string;
        target_date_to?: string;
        overdue?: boolean;
      } & Record<string, unknown>,
    ) {
      const ws = await identity.access(actor, slug, 'read');
      await projectOf(repo, ws.workspaceId, projectId, db);
      const targetDateFrom = queryDate(query.target_date_from, 'target_date_from');
      const targetDateTo = queryDate(query.target_date_to, 'target_date_to');
      // "Today" is the workspace's (contract 18.1): an issue due today is not overdue until the local day is over.
      const overdue =
        query.overdue === undefined
          ? undefined
          : {
              overdue: query.overdue,
              today: DateTime.fromJSDate(clock.now(), { zone: await repo.workspaceTimeZone(db, ws.workspaceId) }).toISODate()!,
            };
      const order = await sortOf(ws.workspaceId, projectId, query.order_by);
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
          ...(targetDateFrom !== undefined && { targetDateFrom }),
          ...(targetDateTo !== undefined && { targetDateTo }),
          ...(overdue && { overdue }),
          ...(order ? { order } : {}),
        },
        query,
      );
      return pageOf(rows.map(issueView), total, query);
    },

    async createIssue(
      actor: Actor,
      slug: string,
      projectId: string,
      input: { name: string; description?: string; state_id?: string; priority?: Priority; assignee_ids?: string[] } & PlanningInput,
    ) {
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
        const now = clock.now();
        const issue = await repo.insertIssue(tx, {
          id: newId(),
          workspace_id: ws.workspaceId,
          project_id: projectId,
          sequence_id: await repo.nextSequenceId(tx, ws.workspaceId, projectId),
          name: input.name.trim(),
          description: input.description ?? '',
          state_id: state.id,
          state_group: state.group,
          priority: input.priority ?? 'none',
          assignee_ids: assignees,
          created_by: actor.userId,
          created_at: now,
          updated_at: now,
          completed_at: state.group === 'completed' ? now : null,
          ...planning,
        });
        await events.publish(tx, { type: 'issue.created', at: now, issue: issueSnapshot(issue) });
        const view = issueView(issue);
        await outbox.record(tx, { workspaceId: ws.workspaceId, type: 'issue.created', data: view });
        return view;
      });
    },

    async getIssue(actor: Actor, slug: string, projectId: string, issueId: string) {
      const ws = await identity.access(actor, slug, 'read');
      return issueView(await issueOf(repo, ws.workspaceId, projectId, issueId, db));
    },

    async updateIssue(
      actor: Actor,
      slug: string,
      projectId: string,
      issueId: string,
      input: { name?: string; description?: string; state_id?: string; priority?: Priority; assignee_ids?: string[] } & PlanningInput,
    ) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'write_items', tx);
        const before = await issueOf(repo, ws.workspaceId, projectId, issueId, tx, true);
        const now = clock.now();
        const planning = applyPlanning(planningOf(before), input);
        const patch: Parameters<WorkItemsRepository['updateIssue']>[3] = { updated_at: now };
        for (const key of PLANNING_KEYS) if (input[key] !== undefined) (patch as Record<string, unknown>)[key] = planning[key];
        if (input.name !== undefined) patch.name = input.name.trim();
        if (input.description !== undefined) patch.description = input.description;
        if (input.priority !== undefined) patch.priority = input.priority;
        if (input.assignee_ids !== undefined) {
          patch.assignee_ids = [...new Set(input.assignee_ids)];
          await identity.assertMembers(tx, ws.workspaceId, patch.assignee_ids, '/assignee_ids');
        }
        if (input.state_id !== undefined && input.state_id !== before.state_id) {
          const state = await stateOf(repo, ws.workspaceId, projectId, input.state_id, tx, '/state_id');
          patch.state_id = state.id;
          patch.state_group = state.group;
          if (state.group === 'completed') patch.completed_at = before.completed_at ?? now;
          else patch.completed_at = null;
        }
        const after = await repo.updateIssue(tx, ws.workspaceId, issueId, patch);
        if (after.priority !== before.priority || after.state_id !== before.state_id) {
          await events.publish(tx, { type: 'issue.updated', at: now, before: issueSnapshot(before), after: issueSnapshot(after), actorId: actor.userId });
        }
        if (PLANNING_KEYS.some((key) => before[key] !== after[key])) {
          await events.publish(tx, {
            type: 'issue.planning_changed',
            at: now,
            workspaceId: ws.workspaceId,
            issueId,
            before: planningOf(before),
            after: planningOf(after),
            actorId: actor.userId,
          });
        }
        const view = issueView(after);
        const { updated_at: _was, ...previous } = issueView(before);
        const { updated_at: _now, ...current } = view;
        if (JSON.stringify(previous) !== JSON.stringify(current)) {
          await outbox.record(tx, { workspaceId: ws.workspaceId, type: 'issue.updated', data: view });
        }
        return view;
      });
    },

    async deleteIssue(actor: Actor, slug: string, projectId: string, issueId: string) {
      await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'write_items', tx);
        const issue = await issueOf(repo, ws.workspaceId, projectId, issueId, tx, true);
        await events.publish(tx, { type: 'issue.deleted', at: clock.now(), issue: issueSnapshot(issue) });
        await outbox.record(tx, { workspaceId: ws.workspaceId, type: 'issue.deleted', data: issueView(issue) });
        await repo.deleteIssue(tx, ws.workspaceId, issueId);
      });
    },
  };
}
