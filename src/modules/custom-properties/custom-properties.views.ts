import { iso } from '../../kernel/time.js';
import type { CustomPropertiesRepository } from './custom-properties.repository.js';

/** A property definition as the API shows it. */
type PropertyRow = NonNullable<Awaited<ReturnType<CustomPropertiesRepository['findProperty']>>>;

export const propertyView = (p: PropertyRow) => ({
  id: p.id,
  workspace_id: p.workspace_id,
  project_id: p.project_id,
  name: p.name,
  description: p.description,
  type: p.type,
  options: p.options,
  is_required: p.is_required,
  created_at: iso(p.created_at),
  updated_at: iso(p.updated_at),
});
