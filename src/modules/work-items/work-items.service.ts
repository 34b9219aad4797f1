import type { Db, Executor, Tx } from '../../db/database.js';
import { conflictIfUnique } from '../../db/pg-errors.js';
import type { Actor } from '../../kernel/actor.js';
import type { Clock } from '../../kernel/clock.js';
import { conflict, invalid, notFound } from '../../kernel/errors.js';
import type { EventBus, IssueSnapshot } from '../../kernel/events.js';
import { PRIORITIES, type Priority, STATE_GROUPS, type StateGroup } from '../../kernel/work-items.js';
import { newId } from '../../kernel/ids.js';
import type { Outbox } from '../../kernel/outbox.js';
import { pageOf, type PageQuery } from '../../kernel/pagination.js';
import type { PlanGate } from '../../kernel/plan-gate.js';
import { iso, isoOrNull } from '../../kernel/time.js';
import type { IdentityService } from '../identity/index.js';
import { type IssueCondition, type IssueSortKey, priorityRank, type WorkItemsRepository } from './work-items.repository.js';


const DEFAULT_STATES: { name: string; group: StateGroup; color: string; is_default: boolean }[] = [
  { name: 'Backlog', group: 'backlog', color: '#A3A3A3', is_default: true },
  { name: 'Todo', group: 'unstarted', color: '#3A3A3A', is_default: false },
  { name: 'In Progress', group: 'started', color: '#F59E0B', is_default: false },
  { name: 'Done', group: 'completed', color: '#16A34A', is_default: false },
  { name: 'Cancelled', group: 'cancelled', color: '#EF4444', is_default: false },
];

/** Sorts of the issue list another module owns (custom properties: `custom.<id>`): a sort key, or null if not its key. */
export type IssueSortProvider = (ctx: { tx: Executor; workspaceId: string; projectId: string; key: string }) => Promise<IssueSortKey | null>;

const CORE_SORTS: Record<string, IssueSortKey> = {
  sequence_id: (eb) => eb.ref('i.sequence_id'),
  created_at: (eb) => eb.ref('i.created_at'),
  updated_at: (eb) => eb.ref('i.updated_at'),
  priority: () => priorityRank,
  name: (eb) => eb.ref('i.name'),
};

/** Lets another module narrow the issue list by query parameters it owns (custom properties: `custom.<id>`). */
export type IssueFilterProvider = (ctx: {
  tx: Executor;
  workspaceId: string;
  projectId: string;
  query: Record<string, unknown>;
}) => Promise<IssueCondition[]>;

export interface WorkItemsDeps {
  db: Db;
  repo: WorkItemsRepository;
  clock: Clock;
  events: EventBus<Tx>;
  planGate: PlanGate<Tx>;
  identity: Pick<IdentityService, 'access' | 'assertMembers'>;
  /** Events that leave the service (webhooks), recorded in the transaction of the change. */
  outbox: Outbox<Tx>;
}

type ProjectRow = Awaited<ReturnType<WorkItemsRepository['insertProject']>> & {};
type StateRow = Awaited<ReturnType<WorkItemsRepository['listStates']>>[number];
type IssueRow = Awaited<ReturnType<WorkItemsRepository['insertIssue']>>;
type CommentRow = Awaited<ReturnType<WorkItemsRepository['insertComment']>>;

export const projectView = (p: ProjectRow) => ({
  id: p.id,
  workspace_id: p.workspace_id,
  name: p.name,
  identifier: p.identifier,
  description: p.description,
  sla_policy_id: p.sla_policy_id,
  created_by: p.created_by,
  created_at: iso(p.created_at),
  updated_at: iso(p.updated_at),
});

const stateView = (s: StateRow) => ({
  id: s.id,
  project_id: s.project_id,
  name: s.name,
  group: s.group,
  color: s.color,
  sequence: s.sequence,
  is_default: s.is_default,
  pauses_sla: s.pauses_sla,
  created_at: iso(s.created_at),
  updated_at: iso(s.updated_at),
});

export const issueView = (i: IssueRow) => ({
  id: i.id,
  workspace_id: i.workspace_id,
  project_id: i.project_id,
  sequence_id: i.sequence_id,
  name: i.name,
  description: i.description,
  state_id: i.state_id,
  state_group: i.state_group,
  priority: i.priority,
  assignee_ids: i.assignee_ids,
  created_by: i.created_by,
  created_at: iso(i.created_at),
  updated_at: iso(i.updated_at),
  completed_at: isoOrNull(i.completed_at),
});

const commentView = (c: CommentRow) => ({
  id: c.id,
  issue_id: c.issue_id,
  author_id: c.author_id,
  body: c.body,
  created_at: iso(c.created_at),
  updated_at: iso(c.updated_at),
});

export const issueSnapshot = (i: IssueRow): IssueSnapshot => ({
  id: i.id,
  workspaceId: i.workspace_id,
  projectId: i.project_id,
  priority: i.priority,
  stateId: i.state_id,
  stateGroup: i.state_group,
  createdBy: i.created_by,
  createdAt: i.created_at,
});

const parseList = <T extends string>(raw: string | undefined, allowed: readonly T[], name: string): T[] | undefined => {
  if (raw === undefined || raw === '') return undefined;
  const values = raw.split(',').map((v) => v.trim());
  const bad = values.filter((v) => !allowed.includes(v as T));
  if (bad.length) throw invalid(`/querystring/${name}`, `must be one of ${allowed.join(', ')} (comma-separated)`);
  return values as T[];
};

export type WorkItemsService = ReturnType<typeof createWorkItemsService>;

export function createWorkItemsService(deps: WorkItemsDeps) {
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
      throw invalid('/querystring/order_by', `cannot sort by "${key}": one of ${Object.keys(CORE_SORTS).join(', ')} or custom.<propertyId> of this project, with - for descending`);
    }
    return { key: sort, desc };
  }

  async function projectOf(workspaceId: string, projectId: string, tx: Executor = db, lock = false) {
    const project = await repo.findProject(workspaceId, projectId, tx, lock);
    if (!project) throw notFound('Project');
    return project;
  }

  async function issueOf(workspaceId: string, projectId: string, issueId: string, tx: Executor = db, lock = false) {
    const issue = await repo.findIssue(workspaceId, issueId, tx, lock);
    if (!issue || issue.project_id !== projectId) throw notFound('Issue');
    return issue;
  }

  async function stateOf(projectId: string, stateId: string, tx: Executor, path: string) {
    const state = await repo.findState(projectId, stateId, tx);
    if (!state) throw invalid(path, 'is not a state of this project');
    return state;
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
      const issue = await repo.findIssue(workspaceId, issueId, tx);
      if (!issue) throw notFound('Issue');
      return issue;
    },

    /** For other modules: the project of a workspace, or 404. */
    findProject: (tx: Executor, workspaceId: string, projectId: string) => projectOf(workspaceId, projectId, tx),

    // ---- projects --------------------------------------------------------------------------------------------

    async listProjects(actor: Actor, slug: string) {
      const ws = await identity.access(actor, slug, 'read');
      return (await repo.listProjects(ws.workspaceId)).map(projectView);
    },

    async createProject(
      actor: Actor,
      slug: string,
      input: { name: string; identifier: string; description?: string; sla_policy_id?: string | null },
    ) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        // The gate locks the workspace row before counting, so concurrent creations cannot both take the last place.
        await deps.planGate.assertCanAddProject(tx, ws.workspaceId);
        const now = clock.now();
        const project = await repo.insertProject(tx, {
          id: newId(),
          workspace_id: ws.workspaceId,
          name: input.name.trim(),
          identifier: input.identifier,
          description: input.description ?? '',
          sla_policy_id: null,
          created_by: actor.userId,
          now,
        });
        if (!project) throw conflict('A project with this identifier already exists in the workspace');
        await repo.insertStates(
          tx,
          DEFAULT_STATES.map((s, index) => ({
            ...s,
            id: newId(),
            workspace_id: ws.workspaceId,
            project_id: project.id,
            sequence: (index + 1) * 1000,
            created_at: now,
            updated_at: now,
          })),
        );
        if (input.sla_policy_id) {
          await events.publish(tx, {
            type: 'project.sla_policy_changed',
            at: now,
            workspaceId: ws.workspaceId,
            projectId: project.id,
            policyId: input.sla_policy_id,
          });
          return projectView(await repo.updateProject(tx, project.id, { sla_policy_id: input.sla_policy_id, updated_at: now }));
        }
        return projectView(project);
      });
    },

    async getProject(actor: Actor, slug: string, projectId: string) {
      const ws = await identity.access(actor, slug, 'read');
      return projectView(await projectOf(ws.workspaceId, projectId));
    },

    async updateProject(
      actor: Actor,
      slug: string,
      projectId: string,
      input: { name?: string; identifier?: string; description?: string; sla_policy_id?: string | null },
    ) {
      try {
        return await db.transaction().execute(async (tx) => {
          const ws = await identity.access(actor, slug, 'manage', tx);
          const project = await projectOf(ws.workspaceId, projectId, tx, true);
          const now = clock.now();
          const updated = await repo.updateProject(tx, project.id, {
            ...(input.name !== undefined && { name: input.name.trim() }),
            ...(input.identifier !== undefined && { identifier: input.identifier }),
            ...(input.description !== undefined && { description: input.description }),
            ...(input.sla_policy_id !== undefined && { sla_policy_id: input.sla_policy_id }),
            updated_at: now,
          });
          if (input.sla_policy_id !== undefined && input.sla_policy_id !== project.sla_policy_id) {
            await events.publish(tx, {
              type: 'project.sla_policy_changed',
              at: now,
              workspaceId: ws.workspaceId,
              projectId: project.id,
              policyId: input.sla_policy_id,
              previousPolicyId: project.sla_policy_id,
              actorId: actor.userId,
            });
          }
          return projectView(updated);
        });
      } catch (error) {
        throw conflictIfUnique(error, 'A project with this identifier already exists in the workspace');
      }
    },

    async deleteProject(actor: Actor, slug: string, projectId: string) {
      await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        await projectOf(ws.workspaceId, projectId, tx, true);
        await repo.deleteProject(tx, projectId);
      });
    },

    // ---- states ----------------------------------------------------------------------------------------------

    async listStates(actor: Actor, slug: string, projectId: string) {
      const ws = await identity.access(actor, slug, 'read');
      await projectOf(ws.workspaceId, projectId);
      return (await repo.listStates(projectId)).map(stateView);
    },

    async createState(actor: Actor, slug: string, projectId: string, input: { name: string; group: StateGroup; color?: string; pauses_sla?: boolean }) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        await projectOf(ws.workspaceId, projectId, tx, true);
        const now = clock.now();
        const [state] = await repo.insertStates(tx, [
          {
            id: newId(),
            workspace_id: ws.workspaceId,
            project_id: projectId,
            name: input.name.trim(),
            group: input.group,
            color: input.color ?? DEFAULT_STATES.find((s) => s.group === input.group)!.color,
            sequence: (await repo.maxStateSequence(projectId, tx)) + 1000,
            is_default: false,
            pauses_sla: input.pauses_sla ?? false,
            created_at: now,
            updated_at: now,
          },
        ]);
        if (!state) throw conflict('A state with this name already exists in the project');
        return stateView(state);
      });
    },

    async updateState(
      actor: Actor,
      slug: string,
      projectId: string,
      stateId: string,
      input: { name?: string; group?: StateGroup; color?: string; pauses_sla?: boolean },
    ) {
      try {
        return await db.transaction().execute(async (tx) => {
          const ws = await identity.access(actor, slug, 'manage', tx);
          await projectOf(ws.workspaceId, projectId, tx, true);
          const state = await repo.findState(projectId, stateId, tx);
          if (!state) throw notFound('State');
          // Issues carry their state's group; changing it under them would silently move them (and their SLA).
          if (input.group !== undefined && input.group !== state.group && (await repo.stateInUse(stateId, tx))) {
            throw conflict('The group of a state that issues use cannot change; move the issues first');
          }
          const updated = await repo.updateState(tx, stateId, {
            ...(input.name !== undefined && { name: input.name.trim() }),
            ...(input.group !== undefined && { group: input.group }),
            ...(input.color !== undefined && { color: input.color }),
            ...(input.pauses_sla !== undefined && { pauses_sla: input.pauses_sla }),
            updated_at: clock.now(),
          });
          return stateView(updated!);
        });
      } catch (error) {
        throw conflictIfUnique(error, 'A state with this name already exists in the project');
      }
    },

    async deleteState(actor: Actor, slug: string, projectId: string, stateId: string) {
      await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        await projectOf(ws.workspaceId, projectId, tx, true);
        const state = await repo.findState(projectId, stateId, tx);
        if (!state) throw notFound('State');
        if (await repo.stateInUse(stateId, tx)) throw conflict('The state is in use by issues');
        if ((await repo.countStates(projectId, tx)) <= 1) throw conflict('A project needs at least one state');
        await repo.deleteState(tx, stateId);
      });
    },

    // ---- issues ----------------------------------------------------------------------------------------------

    async listIssues(
      actor: Actor,
      slug: string,
      projectId: string,
      query: PageQuery & { state_group?: string; priority?: string; order_by?: string } & Record<string, unknown>,
    ) {
      const ws = await identity.access(actor, slug, 'read');
      await projectOf(ws.workspaceId, projectId);
      const order = await sortOf(ws.workspaceId, projectId, query.order_by);
      const conditions: IssueCondition[] = [];
      for (const provider of issueFilters) {
        conditions.push(...(await provider({ tx: db, workspaceId: ws.workspaceId, projectId, query })));
      }
      const { rows, total } = await repo.listIssues(
        projectId,
        {
          stateGroups: parseList(query.state_group, STATE_GROUPS, 'state_group'),
          priorities: parseList(query.priority, PRIORITIES, 'priority'),
          conditions,
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
      input: { name: string; description?: string; state_id?: string; priority?: Priority; assignee_ids?: string[] },
    ) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'write_items', tx);
        await projectOf(ws.workspaceId, projectId, tx);
        const state = input.state_id
          ? await stateOf(projectId, input.state_id, tx, '/state_id')
          : await repo.defaultState(projectId, tx);
        if (!state) throw conflict('The project has no states');
        const assignees = [...new Set(input.assignee_ids ?? [])];
        await identity.assertMembers(tx, ws.workspaceId, assignees, '/assignee_ids');
        const now = clock.now();
        const issue = await repo.insertIssue(tx, {
          id: newId(),
          workspace_id: ws.workspaceId,
          project_id: projectId,
          sequence_id: await repo.nextSequenceId(tx, projectId),
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
        });
        await events.publish(tx, { type: 'issue.created', at: now, issue: issueSnapshot(issue) });
        const view = issueView(issue);
        await outbox.record(tx, { workspaceId: ws.workspaceId, type: 'issue.created', data: view });
        return view;
      });
    },

    async getIssue(actor: Actor, slug: string, projectId: string, issueId: string) {
      const ws = await identity.access(actor, slug, 'read');
      return issueView(await issueOf(ws.workspaceId, projectId, issueId));
    },

    async updateIssue(
      actor: Actor,
      slug: string,
      projectId: string,
      issueId: string,
      input: { name?: string; description?: string; state_id?: string; priority?: Priority; assignee_ids?: string[] },
    ) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'write_items', tx);
        const before = await issueOf(ws.workspaceId, projectId, issueId, tx, true);
        const now = clock.now();
        const patch: Parameters<WorkItemsRepository['updateIssue']>[2] = { updated_at: now };
        if (input.name !== undefined) patch.name = input.name.trim();
        if (input.description !== undefined) patch.description = input.description;
        if (input.priority !== undefined) patch.priority = input.priority;
        if (input.assignee_ids !== undefined) {
          patch.assignee_ids = [...new Set(input.assignee_ids)];
          await identity.assertMembers(tx, ws.workspaceId, patch.assignee_ids, '/assignee_ids');
        }
        if (input.state_id !== undefined && input.state_id !== before.state_id) {
          const state = await stateOf(projectId, input.state_id, tx, '/state_id');
          patch.state_id = state.id;
          patch.state_group = state.group;
          if (state.group === 'completed') patch.completed_at = before.completed_at ?? now;
          else patch.completed_at = null;
        }
        const after = await repo.updateIssue(tx, issueId, patch);
        if (after.priority !== before.priority || after.state_id !== before.state_id) {
          await events.publish(tx, { type: 'issue.updated', at: now, before: issueSnapshot(before), after: issueSnapshot(after), actorId: actor.userId });
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
        const issue = await issueOf(ws.workspaceId, projectId, issueId, tx, true);
        await events.publish(tx, { type: 'issue.deleted', at: clock.now(), issue: issueSnapshot(issue) });
        await outbox.record(tx, { workspaceId: ws.workspaceId, type: 'issue.deleted', data: issueView(issue) });
        await repo.deleteIssue(tx, issueId);
      });
    },

    // ---- comments --------------------------------------------------------------------------------------------

    async listComments(actor: Actor, slug: string, projectId: string, issueId: string) {
      const ws = await identity.access(actor, slug, 'read');
      await issueOf(ws.workspaceId, projectId, issueId);
      return (await repo.listComments(issueId)).map(commentView);
    },

    async createComment(actor: Actor, slug: string, projectId: string, issueId: string, input: { body: string }) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'comment', tx);
        const issue = await issueOf(ws.workspaceId, projectId, issueId, tx);
        const now = clock.now();
        const comment = await repo.insertComment(tx, {
          id: newId(),
          workspace_id: ws.workspaceId,
          issue_id: issueId,
          author_id: actor.userId,
          body: input.body,
          created_at: now,
          updated_at: now,
        });
        await events.publish(tx, {
          type: 'comment.created',
          at: now,
          issue: issueSnapshot(issue),
          authorId: actor.userId,
          commentId: comment.id,
        });
        const view = commentView(comment);
        await outbox.record(tx, { workspaceId: ws.workspaceId, type: 'comment.created', data: { comment: view, issue: issueView(issue) } });
        return view;
      });
    },
  };
}

