import { Type } from 'typebox';
import { LOCAL_DATE_PATTERN, LocalDate, NullableTimestamp, PageQuery, Slug, Timestamp, Uuid } from '../../http/schemas.js';
import { PRIORITIES, STATE_GROUPS } from '../../kernel/work-items.js';

export const StateGroupSchema = Type.Enum([...STATE_GROUPS]);
export const PrioritySchema = Type.Enum([...PRIORITIES]);

const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' });
const Description = Type.String({ maxLength: 100_000 });
const Color = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: 'Hex colour, e.g. #16A34A' });

export const ProjectParams = Type.Object({ slug: Slug, projectId: Uuid });
export const StateParams = Type.Object({ slug: Slug, projectId: Uuid, stateId: Uuid });
export const IssueParams = Type.Object({ slug: Slug, projectId: Uuid, issueId: Uuid });
export const LabelParams = Type.Object({ slug: Slug, projectId: Uuid, labelId: Uuid });
export const RelationParams = Type.Object({ slug: Slug, projectId: Uuid, issueId: Uuid, relationId: Uuid });
export const CommentParams = Type.Object({ slug: Slug, projectId: Uuid, issueId: Uuid, commentId: Uuid });

export const Project = Type.Object({
  id: Uuid,
  workspace_id: Uuid,
  name: Type.String(),
  identifier: Type.String(),
  description: Type.String(),
  sla_policy_id: Type.Union([Uuid, Type.Null()], { description: 'SLA policy overriding the workspace default' }),
  created_by: Uuid,
  created_at: Timestamp,
  updated_at: Timestamp,
});

const Identifier = Type.String({ pattern: '^[A-Z][A-Z0-9]{0,9}$', description: 'Upper-case key, e.g. WEB' });
const PolicyRef = Type.Union([Uuid, Type.Null()]);

export const CreateProjectBody = Type.Object({
  name: Name,
  identifier: Identifier,
  description: Type.Optional(Description),
  sla_policy_id: Type.Optional(PolicyRef),
});

export const UpdateProjectBody = Type.Object({
  name: Type.Optional(Name),
  identifier: Type.Optional(Identifier),
  description: Type.Optional(Description),
  sla_policy_id: Type.Optional(PolicyRef),
});

export const State = Type.Object({
  id: Uuid,
  project_id: Uuid,
  name: Type.String(),
  group: StateGroupSchema,
  color: Type.String(),
  sequence: Type.Number(),
  is_default: Type.Boolean(),
  pauses_sla: Type.Boolean({ description: 'The SLA clocks stop while an issue is in this state (e.g. "Waiting on customer")' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const PausesSla = Type.Boolean({ description: 'The SLA clocks stop while an issue is in this state; default false' });
export const CreateStateBody = Type.Object({ name: Name, group: StateGroupSchema, color: Type.Optional(Color), pauses_sla: Type.Optional(PausesSla) });
export const UpdateStateBody = Type.Object({
  name: Type.Optional(Name),
  group: Type.Optional(StateGroupSchema),
  color: Type.Optional(Color),
  pauses_sla: Type.Optional(PausesSla),
});

export const Issue = Type.Object({
  id: Uuid,
  workspace_id: Uuid,
  project_id: Uuid,
  sequence_id: Type.Integer({ description: '1, 2, ... within the project' }),
  name: Type.String(),
  description: Type.String(),
  state_id: Uuid,
  state_group: StateGroupSchema,
  priority: PrioritySchema,
  assignee_ids: Type.Array(Uuid),
  created_by: Uuid,
  created_at: Timestamp,
  updated_at: Timestamp,
  completed_at: NullableTimestamp,
  start_date: Type.Union([LocalDate, Type.Null()]),
  target_date: Type.Union([LocalDate, Type.Null()]),
  estimate_minutes: Type.Union([Type.Integer(), Type.Null()], { description: 'The original estimate' }),
  remaining_minutes: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Set by a user, or else max(0, estimate_minutes - time_spent_minutes); null without an estimate',
  }),
  time_spent_minutes: Type.Integer({ description: "The sum of the issue's worklogs (read-only)" }),
  label_ids: Type.Array(Uuid, { description: "Labels of the issue's project, sorted" }),
  parent_id: Type.Union([Uuid, Type.Null()], { description: 'The parent issue (same project), or null' }),
  sub_issues: Type.Object(
    { total: Type.Integer(), completed: Type.Integer({ description: 'Children in a state of the completed group' }) },
    { description: 'Direct children (read-only)' },
  ),
  blocked: Type.Boolean({ description: 'An issue that blocks this one is neither completed nor cancelled (read-only)' }),
  attachment_count: Type.Integer({ description: 'Files attached to the issue, including those of its comments (read-only)' }),
  watching: Type.Optional(
    Type.Boolean({
      description:
        'The caller watches the issue (contract 26.1; read-only). On the issue, the issue lists and the answers of create, ' +
        'update and bulk edit; not in webhook payloads',
    }),
  ),
});

/** An issue as search results and similar issues show it (contract 23.1): the record with its key and its state by name. */
export const IssueCard = Type.Object({
  ...Issue.properties,
  key: Type.String({ description: "The project's identifier and the issue's sequence_id, e.g. WEB-12" }),
  state: Type.Object({ id: Uuid, name: Type.String(), group: StateGroupSchema }),
});

const AssigneeIds = Type.Array(Uuid, { maxItems: 100, description: 'Members of the workspace' });
const NullableDate = Type.Union([LocalDate, Type.Null()]);
const Minutes = (description: string) => Type.Union([Type.Integer({ minimum: 0, maximum: 1_000_000 }), Type.Null()], { description });
const planningFields = {
  start_date: Type.Optional(NullableDate),
  target_date: Type.Optional(NullableDate),
  estimate_minutes: Type.Optional(Minutes('Original estimate, 0..1,000,000 minutes, or null')),
  remaining_minutes: Type.Optional(Minutes('Remaining estimate, 0..1,000,000 minutes; null: follow the original estimate')),
};

const LabelIds = (description: string) => Type.Array(Uuid, { maxItems: 100, description });
const ParentId = Type.Union([Uuid, Type.Null()], {
  description: 'An issue of the same project, or null; never the issue itself or one of its descendants',
});

export const CreateIssueBody = Type.Object({
  name: Name,
  description: Type.Optional(Description),
  state_id: Type.Optional(Uuid),
  priority: Type.Optional(PrioritySchema),
  assignee_ids: Type.Optional(AssigneeIds),
  label_ids: Type.Optional(LabelIds("Labels of the issue's project")),
  parent_id: Type.Optional(ParentId),
  ...planningFields,
});

export const UpdateIssueBody = Type.Object({
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  state_id: Type.Optional(Uuid),
  priority: Type.Optional(PrioritySchema),
  assignee_ids: Type.Optional(AssigneeIds),
  label_ids: Type.Optional(LabelIds("The whole set of labels (of the issue's project)")),
  parent_id: Type.Optional(ParentId),
  ...planningFields,
});

const BulkIssueIds = Type.Array(Uuid, { minItems: 1, maxItems: 500, uniqueItems: true, description: 'Issues of the project, 1..500, each once' });

export const BulkUpdateBody = Type.Object({
  issue_ids: BulkIssueIds,
  set: Type.Object(
    {
      state_id: Type.Optional(Uuid),
      priority: Type.Optional(PrioritySchema),
      assignee_ids: Type.Optional(AssigneeIds),
      add_label_ids: Type.Optional(LabelIds('Labels added to each issue')),
      remove_label_ids: Type.Optional(LabelIds('Labels taken off each issue')),
      target_date: Type.Optional(NullableDate),
      parent_id: Type.Optional(ParentId),
    },
    { minProperties: 1, additionalProperties: false, description: 'What to change on every issue, as a PATCH of each would (nothing else)' },
  ),
});
export const BulkUpdateResult = Type.Object({ updated: Type.Integer(), issues: Type.Array(Issue) });
export const BulkDeleteBody = Type.Object({ issue_ids: BulkIssueIds });
export const BulkDeleteResult = Type.Object({ deleted: Type.Integer() });

export const Label = Type.Object({
  id: Uuid,
  project_id: Uuid,
  name: Type.String(),
  color: Type.String({ description: '#rrggbb' }),
  description: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
const LabelName = Type.String({ minLength: 1, maxLength: 64, pattern: '\\S', description: 'Unique in the project, ignoring case' });
const LabelDescription = Type.String({ maxLength: 500 });
export const CreateLabelBody = Type.Object({
  name: LabelName,
  color: Type.Optional(Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: '#rrggbb; default #6b7280' })),
  description: Type.Optional(LabelDescription),
});
export const UpdateLabelBody = Type.Object({
  name: Type.Optional(LabelName),
  color: Type.Optional(Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: '#rrggbb' })),
  description: Type.Optional(LabelDescription),
});

export const RelationTypeSchema = Type.Enum(['blocks', 'blocked_by', 'duplicate_of', 'duplicates', 'relates_to'], {
  description: 'Read from the issue of the path; the other side reads the inverse (blocks/blocked_by, duplicate_of/duplicates, relates_to)',
});
export const Relation = Type.Object({
  id: Uuid,
  type: RelationTypeSchema,
  issue: Type.Object({
    id: Uuid,
    key: Type.String({ description: 'The project identifier and sequence id, e.g. WEB-12' }),
    name: Type.String(),
    sequence_id: Type.Integer(),
    project_id: Uuid,
    state: Type.Object({ id: Uuid, name: Type.String(), group: StateGroupSchema }),
  }),
  created_at: Timestamp,
});
export const CreateRelationBody = Type.Object({
  type: RelationTypeSchema,
  issue_id: Type.String({ format: 'uuid', description: 'The other issue: any project of the same workspace' }),
});

/**
 * A filter of the issue list that may be repeated (`?state_id=a&state_id=b`) or given comma-separated
 * (`?state_id=a,b`): its values are ORed; different filters are ANDed (contract 23.2). The values are checked by the
 * service, which names the parameter of a malformed one (`/querystring/state_id`).
 */
const Repeatable = (description: string) => Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { description }));
const INSTANT = 'an ISO 8601 date-time with an offset, e.g. 2026-11-21T09:30:00Z';

const issueListFilters = {
  state_group: Repeatable('Issues in any of these state groups: backlog, unstarted, started, completed, cancelled'),
  priority: Repeatable('Issues of any of these priorities: urgent, high, medium, low, none'),
  state_id: Repeatable('Issues in any of these states (UUIDs); a state of another project or workspace matches nothing'),
  assignee_id: Repeatable(
    'Issues assigned to any of these: member UUIDs, `me` (the caller) or `none` (no assignee); ' +
      'an id that is not a member matches nothing. `assignee_id=me&state_group=unstarted&state_group=started`: "my issues"',
  ),
  created_by: Repeatable('Issues created by any of these users: UUIDs or `me` (the caller)'),
  created_from: Repeatable(`created_at at or after this instant (inclusive): ${INSTANT}. Repeated: the earliest`),
  created_to: Repeatable(`created_at before this instant (exclusive): ${INSTANT}. Repeated: the latest`),
  updated_from: Repeatable(`updated_at at or after this instant (inclusive): ${INSTANT}. Repeated: the earliest`),
  updated_to: Repeatable(`updated_at before this instant (exclusive): ${INSTANT}. Repeated: the latest`),
  target_date_from: Type.Optional(Type.String({ pattern: LOCAL_DATE_PATTERN, description: 'target_date on or after this date (YYYY-MM-DD)' })),
  target_date_to: Type.Optional(Type.String({ pattern: LOCAL_DATE_PATTERN, description: 'target_date on or before this date (YYYY-MM-DD)' })),
  label_id: Repeatable('Issues with any of these labels (UUIDs)'),
  parent_id: Repeatable('Children of any of these issues (UUIDs); `none`: top-level issues'),
  q: Type.Optional(
    Type.String({
      maxLength: 1000,
      description:
        'Issues matching these words (the search syntax of GET /api/workspaces/{slug}/search/: words ANDed, "phrases", ' +
        '`or`, `-word`, the last word as a prefix), ordered by relevance unless order_by is given (order_by=relevance sorts so too)',
    }),
  ),
  overdue: Type.Optional(
    Type.Boolean({
      description: 'true: a target_date before today (workspace time zone), neither completed nor cancelled; false: every other issue',
    }),
  ),
};

const SORTS =
  'sequence_id, created_at, updated_at, priority (urgent first), name, start_date, target_date, estimate_minutes or ' +
  'custom.<propertyId> (relevance with q); a leading - sorts descending. Issues without a value come last either way.';

export const IssueListQuery = Type.Object(
  {
    ...PageQuery.properties,
    ...issueListFilters,
    order_by: Type.Optional(Type.String({ maxLength: 100, description: `Sort: ${SORTS} Ties by sequence_id descending. Default: sequence_id descending.` })),
  },
  { additionalProperties: true },
);

export const WorkspaceIssueListQuery = Type.Object(
  {
    ...PageQuery.properties,
    project_id: Repeatable("Issues of any of these projects of the workspace (UUIDs); another workspace's project matches nothing"),
    ...issueListFilters,
    order_by: Type.Optional(
      Type.String({
        maxLength: 100,
        description:
          `Sort: ${SORTS} A custom property belongs to one project: the other projects' issues have no value and come last. ` +
          'Ties newest first (created_at, then id, descending). Default: newest first.',
      }),
    ),
  },
  { additionalProperties: true },
);

/** A file on an issue or on one of its comments (contract 25.1): the record, never the bytes. */
export const Attachment = Type.Object({
  id: Uuid,
  issue_id: Uuid,
  comment_id: Type.Union([Uuid, Type.Null()], { description: 'The comment the file belongs to, or null for a file of the issue itself' }),
  filename: Type.String({ description: 'As uploaded, without any path or control characters (at most 255 bytes of UTF-8)' }),
  content_type: Type.String({ description: 'Read from the bytes, not from what the client claimed; unknown: application/octet-stream' }),
  size_bytes: Type.Integer({ minimum: 0 }),
  sha256: Type.String({ description: 'Hex SHA-256 of the bytes' }),
  created_by: Uuid,
  created_at: Timestamp,
  image: Type.Union([Type.Object({ width: Type.Integer(), height: Type.Integer() }), Type.Null()], {
    description: 'The pixel size of a raster image, else null',
  }),
});

export const Comment = Type.Object({
  id: Uuid,
  issue_id: Uuid,
  author_id: Uuid,
  body: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  edited_at: Type.Union([Timestamp, Type.Null()], { description: 'When the author last edited the body, or null if never' }),
  attachments: Type.Array(Attachment, { description: 'Files attached to the comment' }),
});

const CommentBody = Type.String({ minLength: 1, maxLength: 100_000, pattern: '\\S' });
export const CreateCommentBody = Type.Object({ body: CommentBody });
export const UpdateCommentBody = Type.Object({ body: CommentBody });
