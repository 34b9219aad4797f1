import type { Executor } from '../../db/database.js';
import { conflictIfUnique } from '../../db/pg-errors.js';
import type { Actor } from '../../kernel/actor.js';
import { conflict, invalid, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import type { StateGroup } from '../../kernel/work-items.js';
import { DEFAULT_STATES, projectOf } from './work-items.projects.js';
import type { WorkItemsRepository } from './work-items.repository.js';
import type { WorkItemsDeps } from './work-items.deps.js';
import { stateView } from './work-items.views.js';

/** A state of the project, or 400 at `path` (a request naming a state of another project). */
export async function stateOf(
  repo: Pick<WorkItemsRepository, 'findState'>,
  workspaceId: string,
  projectId: string,
  stateId: string,
  tx: Executor,
  path: string,
) {
  const state = await repo.findState(tx, workspaceId, projectId, stateId);
  if (!state) throw invalid(path, 'is not a state of this project');
  return state;
}

export type StatesService = ReturnType<typeof createStatesService>;

/** A project's workflow states; a state in use cannot be deleted or change its group. */
export function createStatesService(deps: Pick<WorkItemsDeps, 'db' | 'repo' | 'clock' | 'identity' | 'events'>) {
  const { db, repo, clock, identity, events } = deps;

  return {
    async listStates(actor: Actor, slug: string, projectId: string) {
      const ws = await identity.access(actor, slug, 'read');
      await projectOf(repo, ws.workspaceId, projectId, db);
      return (await repo.listStates(db, ws.workspaceId, projectId)).map(stateView);
    },

    async createState(actor: Actor, slug: string, projectId: string, input: { name: string; group: StateGroup; color?: string; pauses_sla?: boolean }) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        await projectOf(repo, ws.workspaceId, projectId, tx, true);
        const now = clock.now();
        const [state] = await repo.insertStates(tx, [
          {
            id: newId(),
            workspace_id: ws.workspaceId,
            project_id: projectId,
            name: input.name.trim(),
            group: input.group,
            color: input.color ?? DEFAULT_STATES.find((s) => s.group === input.group)!.color,
            sequence: (await repo.maxStateSequence(tx, ws.workspaceId, projectId)) + 1000,
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
          await projectOf(repo, ws.workspaceId, projectId, tx, true);
          const state = await repo.findState(tx, ws.workspaceId, projectId, stateId);
          if (!state) throw notFound('State');
          // Issues carry their state's group; changing it under them would silently move them (and their SLA).
          if (input.group !== undefined && input.group !== state.group && (await repo.stateInUse(tx, ws.workspaceId, stateId))) {
            throw conflict('The group of a state that issues use cannot change; move the issues first');
          }
          const now = clock.now();
          const updated = await repo.updateState(tx, ws.workspaceId, stateId, {
            ...(input.name !== undefined && { name: input.name.trim() }),
            ...(input.group !== undefined && { group: input.group }),
            ...(input.color !== undefined && { color: input.color }),
            ...(input.pauses_sla !== undefined && { pauses_sla: input.pauses_sla }),
            updated_at: now,
          });
          if (input.pauses_sla !== undefined && input.pauses_sla !== state.pauses_sla) {
            await events.publish(tx, {
              type: 'state.pauses_changed',
              at: now,
              workspaceId: ws.workspaceId,
              stateId,
              group: updated!.group,
              pausesSla: input.pauses_sla,
              actorId: actor.userId,
            });
          }
          return stateView(updated!);
        });
      } catch (error) {
        throw conflictIfUnique(error, 'A state with this name already exists in the project');
      }
    },

    async deleteState(actor: Actor, slug: string, projectId: string, stateId: string) {
      await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        await projectOf(repo, ws.workspaceId, projectId, tx, true);
        const state = await repo.findState(tx, ws.workspaceId, projectId, stateId);
        if (!state) throw notFound('State');
        if (await repo.stateInUse(tx, ws.workspaceId, stateId)) throw conflict('The state is in use by issues');
        if ((await repo.countStates(tx, ws.workspaceId, projectId)) <= 1) throw conflict('A project needs at least one state');
        await repo.deleteState(tx, ws.workspaceId, stateId);
      });
    },
  };
}
