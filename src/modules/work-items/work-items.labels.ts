import { conflictIfUnique } from '../../db/pg-errors.js';
import type { Actor } from '../../kernel/actor.js';
import { conflict, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { nameKey } from '../../kernel/names.js';
import { recordIssuesUpdated } from './work-items.issues.js';
import { projectOf } from './work-items.projects.js';
import type { WorkItemsDeps } from './work-items.deps.js';
import { labelView } from './work-items.views.js';

/** A label without a colour gets this grey (Plane's and Linear's neutral). */
export const DEFAULT_LABEL_COLOR = '#6b7280';
/** Rows of `label_issue_counts` folded per run of the `labels.counts` job (labels with several rows). */
const FOLD_LABELS = 1000;

const taken = (name: string) => conflict(`A label named "${name}" already exists in this project`);

export type LabelsService = ReturnType<typeof createLabelsService>;

/**
 * Labels of a project (contract 24.1): admins and members manage them, guests read. Deleting one takes it off its
 * issues (each gets `issue.updated`; their history and `updated_at` are left alone: nobody changed those issues).
 */
export function createLabelsService(deps: Pick<WorkItemsDeps, 'db' | 'repo' | 'clock' | 'identity' | 'outbox'>) {
  const { db, repo, clock, identity } = deps;

  return {
    async listLabels(actor: Actor, slug: string, projectId: string) {
      const ws = await identity.access(actor, slug, 'read');
      await projectOf(repo, ws.workspaceId, projectId, db);
      return (await repo.listLabels(db, ws.workspaceId, projectId)).map(labelView);
    },

    async createLabel(actor: Actor, slug: string, projectId: string, input: { name: string; color?: string; description?: string }) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'write_items', tx);
        await projectOf(repo, ws.workspaceId, projectId, tx);
        const now = clock.now();
        const name = input.name.trim();
        const label = await repo.insertLabel(tx, {
          id: newId(),
          workspace_id: ws.workspaceId,
          project_id: projectId,
          name,
          name_key: nameKey(name),
          color: (input.color ?? DEFAULT_LABEL_COLOR).toLowerCase(),
          description: input.description ?? '',
          created_at: now,
          updated_at: now,
        });
        if (!label) throw taken(name);
        return labelView(label);
      });
    },

    async updateLabel(actor: Actor, slug: string, projectId: string, labelId: string, input: { name?: string; color?: string; description?: string }) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'write_items', tx);
        if (!(await repo.findLabel(tx, ws.workspaceId, projectId, labelId))) throw notFound('Label');
        const name = input.name?.trim();
        try {
          const label = await repo.updateLabel(tx, ws.workspaceId, labelId, {
            ...(name !== undefined && { name, name_key: nameKey(name) }),
            ...(input.color !== undefined && { color: input.color.toLowerCase() }),
            ...(input.description !== undefined && { description: input.description }),
            updated_at: clock.now(),
          });
          if (!label) throw notFound('Label');
          return labelView(label);
        } catch (error) {
          throw conflictIfUnique(error, taken(name ?? '').message);
        }
      });
    },

    async deleteLabel(actor: Actor, slug: string, projectId: string, labelId: string) {
      await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'write_items', tx);
        if (!(await repo.findLabel(tx, ws.workspaceId, projectId, labelId))) throw notFound('Label');
        const issueIds = await repo.deleteLabel(tx, ws.workspaceId, labelId);
        await recordIssuesUpdated(deps, tx, ws.workspaceId, issueIds);
      });
    },

    /** The `labels.counts` job: folds the kept label counts (their sum never changes, only how many rows hold it). */
    async runLabelCounts() {
      return db.transaction().execute((tx) => repo.foldLabelCounts(tx, FOLD_LABELS));
    },
  };
}
