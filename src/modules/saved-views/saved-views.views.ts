import type { SavedViewRow } from './saved-views.repository.js';

/** A saved view as the API shows it. */
export function savedViewView(row: SavedViewRow) {
  return {
    id: row.id,
    name: row.name,
    project_id: row.project_id,
    filters: row.filters,
    order_by: row.order_by,
    shared: row.shared,
    owner_id: row.owner_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
