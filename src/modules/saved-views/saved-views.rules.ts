import { AppError, type FieldError } from '../../kernel/errors.js';
import type { Role } from '../identity/index.js';

/**
 * The issue-list filters a view keeps (contract 23.2's keys), each a list of values as the list takes them
 * (`assignee_id: ["me"]` means the viewer, whoever runs the view). `project_id` only on a workspace-wide view.
 */
export const VIEW_FILTER_KEYS = [
  'state_group',
  'priority',
  'state_id',
  'assignee_id',
  'created_by',
  'created_from',
  'created_to',
  'updated_from',
  'updated_to',
  'label_id',
  'parent_id',
  'project_id',
  'q',
] as const;

const MAX_VALUES = 100;

/**
 * The filters of a view as stored: only known keys, each a non-empty list of distinct values, empty lists dropped.
 * The values themselves are checked by running the list (`validateBy`), which names the key of a malformed one.
 */
export function normalizeFilters(filters: Record<string, unknown>, workspaceWide: boolean): Record<string, string[]> {
  const errors: FieldError[] = [];
  const out: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(filters)) {
    const path = `/filters/${key}`;
    if (!(VIEW_FILTER_KEYS as readonly string[]).includes(key)) {
      errors.push({ path, message: `is not a filter of the issue list (one of ${VIEW_FILTER_KEYS.join(', ')})` });
      continue;
    }
    if (key === 'project_id' && !workspaceWide) {
      errors.push({ path, message: 'is only for a workspace-wide view (project_id null)' });
      continue;
    }
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
      errors.push({ path, message: 'must be an array of strings' });
      continue;
    }
    const values = [...new Set(value.map((v: string) => v.trim()))];
    if (values.length > MAX_VALUES) errors.push({ path, message: `must have at most ${MAX_VALUES} values` });
    else if (values.some((v) => v === '')) errors.push({ path, message: 'must not hold an empty value' });
    else if (values.length > 0) out[key] = values;
  }
  if (errors.length) throw new AppError('validation_failed', `${errors[0]!.path} ${errors[0]!.message}`, errors);
  return out;
}

/** The issue-list query a view runs: its filters and sort, and the page asked for. */
export function viewQuery(view: { filters: Record<string, string[]>; order_by: string | null }, page: { offset: number; per_page: number }) {
  return { ...view.filters, ...(view.order_by !== null && { order_by: view.order_by }), offset: page.offset, per_page: page.per_page };
}

/**
 * A list error about the query (`/querystring/state_id`) as an error of the view's body (`/filters/state_id`,
 * `/order_by`); any other error unchanged.
 */
export function asViewError(error: unknown): unknown {
  if (!(error instanceof AppError) || error.code !== 'validation_failed' || !error.errors) return error;
  const moved = error.errors.map((e) => {
    const key = e.path.replace(/^\/querystring\//, '');
    return { path: key === 'order_by' ? '/order_by' : `/filters/${key}`, message: e.message };
  });
  return new AppError('validation_failed', `${moved[0]!.path} ${moved[0]!.message}`, moved);
}

export type ViewAccess = 'ok' | 'forbidden' | 'not_found';

/** Who sees a view: its owner; everyone in the workspace when it is shared. Others get 404 (admins included). */
export function canSee(view: { owner_id: string; shared: boolean }, userId: string): boolean {
  return view.owner_id === userId || view.shared;
}

/** Who edits or deletes a view: its owner; an admin also a shared one; a member on another's shared view is 403. */
export function canEdit(view: { owner_id: string; shared: boolean }, userId: string, role: Role): ViewAccess {
  if (!canSee(view, userId)) return 'not_found';
  if (view.owner_id === userId) return 'ok';
  return role === 'admin' ? 'ok' : 'forbidden';
}
