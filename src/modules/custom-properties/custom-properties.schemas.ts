import { Type } from 'typebox';
import { Slug, Timestamp, Uuid } from '../../http/schemas.js';
import { MAX_OPTION_CHARS, MAX_OPTIONS, PROPERTY_TYPES } from './custom-properties.domain.js';

export const PropertyTypeSchema = Type.Enum([...PROPERTY_TYPES], {
  description: 'text, number, date, select, multi_select, checkbox or url; fixed at creation',
});

const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S', description: 'Unique in the project, ignoring case' });
const Description = Type.String({ maxLength: 10_000 });
const Options = Type.Array(Type.String({ minLength: 1, maxLength: MAX_OPTION_CHARS }), {
  maxItems: MAX_OPTIONS,
  description:
    'The allowed choices of a select or multi_select property: non-empty, distinct (case-sensitive) strings. ' + 'Empty or absent for the other types.',
});

export const ProjectParams = Type.Object({ slug: Slug, projectId: Uuid });
export const PropertyParams = Type.Object({ slug: Slug, propertyId: Uuid });
export const IssueValuesParams = Type.Object({ slug: Slug, projectId: Uuid, issueId: Uuid });
export const ValueParams = Type.Object({ slug: Slug, issueId: Uuid, propertyId: Uuid });

export const Property = Type.Object({
  id: Uuid,
  workspace_id: Uuid,
  project_id: Uuid,
  name: Type.String(),
  description: Type.String(),
  type: PropertyTypeSchema,
  options: Type.Array(Type.String()),
  is_required: Type.Boolean({ description: 'A value, once set, cannot be cleared' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const CreatePropertyBody = Type.Object({
  name: Name,
  description: Type.Optional(Description),
  type: PropertyTypeSchema,
  options: Type.Optional(Options),
  is_required: Type.Optional(Type.Boolean({ default: false })),
});

export const UpdatePropertyBody = Type.Object({
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  options: Type.Optional(Options),
  is_required: Type.Optional(Type.Boolean()),
  rename_options: Type.Optional(
    Type.Record(Type.String({ minLength: 1, maxLength: MAX_OPTION_CHARS }), Type.String({ maxLength: MAX_OPTION_CHARS }), {
      description:
        'Renames options of a select or multi_select property: {"old": "new"}; every value that used an old option ' +
        'follows, in the same transaction. A new name that is empty or already an option is a 400. Not with `options`.',
    }),
  ),
  type: Type.Optional(Type.Enum([...PROPERTY_TYPES], { description: 'Accepted only when equal to the current type: the type never changes (400)' })),
});

export const UpdatePropertyQuery = Type.Object({
  force: Type.Boolean({
    default: false,
    description: 'true: removing options that issues use also removes them from those values (409 option_in_use otherwise)',
  }),
});

const AnyValue = Type.Unknown({
  description:
    'By type: text and url a string, number a number, date an ISO 8601 string, select one option, ' +
    'multi_select an array of options, checkbox a boolean; null when unset',
});

export const IssueValue = Type.Object({
  property_id: Uuid,
  name: Type.String(),
  type: PropertyTypeSchema,
  value: AnyValue,
});

export const SetValueBody = Type.Object({
  value: Type.Unknown({
    description:
      'text: a string of at most 10,000 characters; url: an absolute http or https URL; number: a finite number; ' +
      'date: YYYY-MM-DD or an ISO 8601 timestamp with a time zone; select: one of the options; ' +
      'multi_select: an array of distinct options (may be empty); checkbox: a boolean; null: clear the value ' +
      '(400 value_required for a required property)',
  }),
});

export const StoredValue = Type.Object({
  issue_id: Uuid,
  property_id: Uuid,
  value: AnyValue,
  updated_at: Timestamp,
});

export const PropertyUsage = Type.Object({
  values: Type.Integer({ description: 'Issues that have a value of this property' }),
  options: Type.Array(Type.Object({ option: Type.String(), count: Type.Integer({ description: 'Issues whose value uses this option' }) }), {
    description: 'Every option of a select or multi_select property, in order, zeros included; empty for other types',
  }),
});

export const MergeOptionsBody = Type.Object(
  {
    from: Type.Array(Type.String({ minLength: 1, maxLength: MAX_OPTION_CHARS }), { minItems: 1, maxItems: MAX_OPTIONS, description: 'Options to merge away' }),
    into: Type.String({ minLength: 1, maxLength: MAX_OPTION_CHARS, description: 'The option that takes their place (an option of the property)' }),
    dry_run: Type.Optional(Type.Boolean({ description: 'true: only count the issues it would change' })),
  },
  { additionalProperties: false },
);
export const MergeOptionsResult = Type.Object({ affected_issues: Type.Integer() });
