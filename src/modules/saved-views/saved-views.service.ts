import type { Actor } from '../../kernel/actor.js';
import { forbidden, invalid, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import type { SavedViewsDeps } from './saved-views.deps.js';
import type { SavedViewRow } from './saved-views.repository.js';
import { asViewError, canEdit, canSee, normalizeFilters, viewQuery } from './saved-views.rules.js';
import { savedViewView } from './saved-views.views.js';

const nameOf = (name: string): string => {
  const trimmed = name.trim();
  if (!trimmed) throw invalid('/name', 'must not be blank');
  return trimmed;
};

export type SavedViewsService = ReturnType<typeof createSavedViewsService>;

interface ViewInput {
  name?: string;
  project_id?: string | null;
  filters?: Record<string, unknown>;
  order_by?: string | null;
  shared?: boolean;
}

/**
 * Saved views (contract 23.3): a named set of issue-list filters and a sort, private to its owner or shared with the
 * workspace. Admins and members keep views (guests run the shared ones); a private view is 404 to anyone but its
 * owner, admins included. A view's filters are checked by running the list with them, so a view is valid exactly
 * when the list would take its filters.
 */
export function createSavedViewsService(deps: SavedViewsDeps) {
  const { db, repo, clock, identity, listIssues } = deps;

  const visible = async (actor: Actor, slug: string, viewId: string) => {
    const ws = await identity.access(actor, slug, 'read');
    const view = await repo.find(db, ws.workspaceId, viewId);
    if (!view || !canSee(view, ws.userId)) throw notFound('View');
    return { ws, view };
  };

  /** Normalised filters and a project of the workspace, checked by running the list once (its 400s, re-pathed). */
  async function checked(
    actor: Actor,
    slug: string,
    workspaceId: string,
    next: Pick<SavedViewRow, 'project_id' | 'order_by'> & { filters: Record<string, unknown> },
  ) {
    if (next.project_id !== null && !(await repo.projectExists(db, workspaceId, next.project_id))) {
      throw invalid('/project_id', 'is not a project of this workspace');
    }
    const filters = normalizeFilters(next.filters, next.project_id === null);
    try {
      await listIssues(actor, slug, next.project_id, viewQuery({ filters, order_by: next.order_by }, { offset: 0, per_page: 1 }));
    } catch (error) {
      throw asViewError(error);
    }
    return filters;
  }

  return {
    async list(actor: Actor, slug: string) {
      const ws = await identity.access(actor, slug, 'read');
      return (await repo.listVisible(db, ws.workspaceId, ws.userId)).map(savedViewView);
    },

    async get(actor: Actor, slug: string, viewId: string) {
      return savedViewView((await visible(actor, slug, viewId)).view);
    },

    async create(actor: Actor, slug: string, input: ViewInput & { name: string }) {
      const ws = await identity.access(actor, slug, 'write_items');
      const projectId = input.project_id?.toLowerCase() ?? null;
      const orderBy = input.order_by ?? null;
      const filters = await checked(actor, slug, ws.workspaceId, { project_id: projectId, order_by: orderBy, filters: input.filters ?? {} });
      const now = clock.now();
      const row = await repo.insert(db, {
        id: newId(),
        workspace_id: ws.workspaceId,
        project_id: projectId,
        owner_id: ws.userId,
        name: nameOf(input.name),
        filters,
        order_by: orderBy,
        shared: input.shared ?? false,
        created_at: now,
        updated_at: now,
      });
      return savedViewView(row);
    },

    async update(actor: Actor, slug: string, viewId: string, input: ViewInput) {
      const ws = await identity.access(actor, slug, 'write_items');
      const current = await repo.find(db, ws.workspaceId, viewId);
      const allowed = current ? canEdit(current, ws.userId, ws.role) : 'not_found';
      if (!current || allowed === 'not_found') throw notFound('View');
      if (allowed === 'forbidden') throw forbidden("Only the view's owner or an admin can change a shared view");
      const projectId = input.project_id === undefined ? current.project_id : (input.project_id?.toLowerCase() ?? null);
      const orderBy = input.order_by === undefined ? current.order_by : input.order_by;
      const filters =
        input.filters === undefined && input.project_id === undefined && input.order_by === undefined
          ? current.filters
          : await checked(actor, slug, ws.workspaceId, { project_id: projectId, order_by: orderBy, filters: input.filters ?? current.filters });
      const row = await repo.update(db, ws.workspaceId, viewId, {
        ...(input.name !== undefined && { name: nameOf(input.name) }),
        project_id: projectId,
        order_by: orderBy,
        filters,
        ...(input.shared !== undefined && { shared: input.shared }),
        updated_at: clock.now(),
      });
      return savedViewView(row);
    },

    async remove(actor: Actor, slug: string, viewId: string) {
      const ws = await identity.access(actor, slug, 'write_items');
      const current = await repo.find(db, ws.workspaceId, viewId);
      const allowed = current ? canEdit(current, ws.userId, ws.role) : 'not_found';
      if (allowed === 'not_found') throw notFound('View');
      if (allowed === 'forbidden') throw forbidden("Only the view's owner or an admin can delete a shared view");
      await repo.remove(db, ws.workspaceId, viewId);
    },

    /** Runs a view: the issue list with its filters and sort, a page of it. */
    async issues(actor: Actor, slug: string, viewId: string, page: { offset: number; per_page: number }) {
      const { view } = await visible(actor, slug, viewId);
      return listIssues(actor, slug, view.project_id, viewQuery(view, page));
    },
  };
}
