import { Type } from 'typebox';
import { NullableTimestamp, PageQuery, Slug, Timestamp, Uuid } from '../../http/schemas.js';
import { MAX_TARGET_HOURS } from './sla.domain.js';

const RulePrioritySchema = Type.Enum(['urgent', 'high', 'medium', 'low'], { description: 'Priority the rule covers' });
const IssuePrioritySchema = Type.Enum(['urgent', 'high', 'medium', 'low', 'none']);
const StateGroupSchema = Type.Enum(['backlog', 'unstarted', 'started', 'completed', 'cancelled']);

const Hours = (what: string) =>
  Type.Number({
    exclusiveMinimum: 0,
    maximum: MAX_TARGET_HOURS,
    description: `${what} target in hours, > 0; fractions allowed (0.5 is 30 minutes)`,
  });

export const Rule = Type.Object({
  priority: RulePrioritySchema,
  response_time_h: Hours('Response'),
  resolution_time_h: Hours('Resolution (at least the response target)'),
});

const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S', description: 'Policy name, 1..255 characters' });
const Description = Type.String({ maxLength: 100_000 });
const Rules = Type.Array(Rule, { maxItems: 100, description: 'At most one rule per priority' });

export const PolicyParams = Type.Object({ slug: Slug, policyId: Uuid });
export const IssueSlaParams = Type.Object({ slug: Slug, issueId: Uuid });

export const Policy = Type.Object({
  id: Uuid,
  workspace_id: Uuid,
  name: Type.String(),
  description: Type.String(),
  is_default: Type.Boolean({ description: 'The workspace default: applies to projects that name no policy' }),
  rules: Type.Array(Rule, { description: 'Ordered urgent, high, medium, low' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const CreatePolicyBody = Type.Object({
  name: Name,
  description: Type.Optional(Description),
  is_default: Type.Optional(Type.Boolean({ description: 'Makes this the default (unsetting the previous one); default false' })),
  rules: Type.Optional(Rules),
});

export const UpdatePolicyBody = Type.Object({
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  is_default: Type.Optional(Type.Boolean()),
  rules: Type.Optional(Type.Array(Rule, { maxItems: 100, description: 'Replaces every rule of the policy' })),
});

export const Tracker = Type.Object({
  id: Uuid,
  issue_id: Uuid,
  policy_id: Uuid,
  priority: RulePrioritySchema,
  response_due_at: Timestamp,
  resolution_due_at: Timestamp,
  responded_at: NullableTimestamp,
  resolved_at: NullableTimestamp,
  response_breached: Type.Boolean({ description: 'Responded late, or not yet and now is past the due time' }),
  resolution_breached: Type.Boolean({ description: 'Resolved late, or not yet and now is past the due time' }),
});

export const IssueSummary = Type.Object({
  id: Uuid,
  name: Type.String(),
  project_id: Uuid,
  sequence_id: Type.Integer(),
  priority: IssuePrioritySchema,
  state_group: StateGroupSchema,
});

export const BreachedTracker = Type.Object({ ...Tracker.properties, issue: IssueSummary });

export const BreachedQuery = PageQuery;
