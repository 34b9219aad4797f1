import { iso } from '../../kernel/time.js';
import type { Role } from '../identity/index.js';

/** A workspace as the API shows it, with the caller's role in it. */
type Row = { id: string; slug: string; name: string; time_zone: string; search_language: string; created_by: string; created_at: Date; updated_at: Date };

export const workspaceView = (w: Row, role: Role) => ({
  id: w.id,
  slug: w.slug,
  name: w.name,
  time_zone: w.time_zone,
  search_language: w.search_language,
  created_by: w.created_by,
  created_at: iso(w.created_at),
  updated_at: iso(w.updated_at),
  role,
});
