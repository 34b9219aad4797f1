import type { Executor } from '../../db/database.js';
import { conflictIfUnique } from '../../db/pg-errors.js';
import type { Actor } from '../../kernel/actor.js';
import { conflict, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import type { StateGroup } from '../../kernel/work-items.js';
import type { WorkItemsRepository } from './work-items.repository.js';
import type { WorkItemsDeps } from './work-items.deps.js';
import { projectView } from './work-items.views.js';

/** The states every new project starts with (contract section 4); a new state of a group takes its colour. */
export const DEFAULT_STATES: { name: string; group: StateGroup; color: string; is_default: boolean }[] = [
  { name: 'Backlog', group: 'backlog', color: '#A3A3A3', is_default: true },
  { name: 'Todo', group: 'unstarted', color: '#3A3A3A', is_default: false },
  { name: 'In Progress', group: 'started', color: '#F59E0B', is_default: false },
  { name: 'Done', group: 'completed', color: '#16A34A', is_default: false },
  { name: 'Cancelled', group: 'cancelled', color: '#EF4444', is_default: false },
];

/** The project of a workspace (optionally locked), or 404. */
export async function projectOf(repo: Pick<WorkItemsRepository, 'findProject'>, workspaceId: string, projectId: string, tx: Executor, lock = false) {
  const project = await repo.findProject(tx, workspaceId, projectId, lock);
  if (!project) throw notFound('Project');
  return project;
}

export type ProjectsService = ReturnType<typeof createProjectsService>;

/** Projects: a new one comes with the five default states; its SLA policy change is a domain event. */
export function createProjectsService(deps: Pick<WorkItemsDeps, 'db' | 'repo' | 'clock' | 'events' | 'planGate' | 'identity'>) {
  const { db, repo, clock, events, identity } = deps;

  return {
    /** For other modules: the project of a workspace, or 404. */
    findProject: (tx: Executor, workspaceId: string, projectId: string) => projectOf(repo, workspaceId, projectId, tx),

    async listProjects(actor: Actor, slug: string) {
      const ws = await identity.access(actor, slug, 'read');
      return (await repo.listProjects(db, ws.workspaceId)).map(projectView);
    },

    async createProject(actor: Actor, slug: string, input: { name: string; identifier: string; description?: string; sla_policy_id?: string | null }) {
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
          created_at: now,
          updated_at: now,
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
          return projectView(await repo.updateProject(tx, ws.workspaceId, project.id, { sla_policy_id: input.sla_policy_id, updated_at: now }));
        }
        return projectView(project);
      });
    },

    async getProject(actor: Actor, slug: string, projectId: string) {
      const ws = await identity.access(actor, slug, 'read');
      return projectView(await projectOf(repo, ws.workspaceId, projectId, db));
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
          const project = await projectOf(repo, ws.workspaceId, projectId, tx, true);
          const now = clock.now();
          const updated = await repo.updateProject(tx, ws.workspaceId, project.id, {
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
        await projectOf(repo, ws.workspaceId, projectId, tx, true);
        await repo.deleteProject(tx, ws.workspaceId, projectId);
      });
    },
  };
}
