import { Type } from 'typebox';
import { Slug, Timestamp, Uuid } from '../../http/schemas.js';
import { VIEW_FILTER_KEYS } from './saved-views.rules.js';

export const ViewsParams = Type.Object({ slug: Slug });
export const ViewParams = Type.Object({ slug: Slug, viewId: Uuid });

const FilterValues = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 });
const Filters = Type.Record(Type.String({ maxLength: 64 }), FilterValues, {
  description:
    `The issue list's filters (contract 23.2), each a list of values as the list takes them: ${VIEW_FILTER_KEYS.join(', ')} ` +
    '(`project_id` only on a workspace-wide view). `me` in `assignee_id` or `created_by` is whoever runs the view. ' +
    'A value naming something deleted later (a label, a state, a member) matches nothing.',
  examples: [{ assignee_id: ['me'], state_group: ['unstarted', 'started'] }],
});
const Name = Type.String({ minLength: 1, maxLength: 100, description: 'Name, 1..100 characters' });
const OrderBy = Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()], {
  description: "The list's `order_by` (a field, `-` for descending); null: the list's default (newest first)",
});

export const SavedView = Type.Object({
  id: Uuid,
  name: Type.String(),
  project_id: Type.Union([Uuid, Type.Null()], { description: 'The project of the view; null: the workspace-wide list' }),
  filters: Filters,
  order_by: Type.Union([Type.String(), Type.Null()]),
  shared: Type.Boolean({ description: 'Visible to every member of the workspace; else to its owner alone' }),
  owner_id: Uuid,
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const CreateViewBody = Type.Object(
  {
    name: Name,
    project_id: Type.Optional(Type.Union([Uuid, Type.Null()], { description: 'A project of the workspace; null or absent: workspace-wide' })),
    filters: Type.Optional(Filters),
    order_by: Type.Optional(OrderBy),
    shared: Type.Optional(Type.Boolean({ default: false, description: 'Default false: only you see it' })),
  },
  { additionalProperties: false },
);

export const UpdateViewBody = Type.Object(
  {
    name: Type.Optional(Name),
    project_id: Type.Optional(Type.Union([Uuid, Type.Null()])),
    filters: Type.Optional(Filters),
    order_by: Type.Optional(OrderBy),
    shared: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
