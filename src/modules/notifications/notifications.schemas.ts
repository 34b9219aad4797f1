import { Type } from 'typebox';
import { NOTIFICATION_KINDS } from '../../kernel/notices.js';
import { PageQuery, pageSchema, Slug, Timestamp, NullableTimestamp, Uuid } from '../../http/schemas.js';

export const IssueWatchParams = Type.Object({ slug: Slug, projectId: Uuid, issueId: Uuid });
export const NotificationParams = Type.Object({ notificationId: Uuid });

export const Watching = Type.Object({ watching: Type.Boolean({ description: 'The caller now watches the issue' }) });

export const Watcher = Type.Object({ id: Uuid, display_name: Type.String(), email: Type.String() });

export const Notification = Type.Object({
  id: Uuid,
  workspace_slug: Type.String(),
  issue: Type.Union([Type.Object({ id: Uuid, key: Type.String({ description: 'e.g. WEB-12' }), name: Type.String() }), Type.Null()], {
    description: 'The issue the notification is about; null for `invited`',
  }),
  kind: Type.Enum([...NOTIFICATION_KINDS]),
  actor: Type.Union([Type.Object({ id: Uuid, display_name: Type.String() }), Type.Null()], {
    description: 'Who made the change; null for the system (SLA)',
  }),
  data: Type.Record(Type.String(), Type.Unknown(), {
    description:
      'What changed, by kind (always `project_id` for issue notifications): state_changed `{from, to}` as `{id, name, group}`; ' +
      'priority_changed and due_date_changed `{from, to}`; commented and mentioned `{comment_id?, excerpt}`; assigned `{}`; ' +
      'sla_at_risk and sla_breached `{metric: response | resolution, due_at}`',
  }),
  created_at: Timestamp,
  read_at: NullableTimestamp,
  archived_at: NullableTimestamp,
  snoozed_until: Type.Union([Timestamp, Type.Null()], { description: 'Hidden, and counted nowhere, until then' }),
});

const Flag = Type.Boolean({ description: 'true or false' });

export const InboxQuery = Type.Object(
  {
    ...PageQuery.properties,
    unread: Type.Optional({ ...Flag, description: 'true: unread ones only' }),
    archived: Type.Optional({ ...Flag, description: 'true: the archive instead of the inbox (default: not archived)' }),
    workspace: Type.Optional({ ...Slug, description: 'One workspace (its slug); 404 if you are not a member' }),
    kind: Type.Optional(Type.Enum([...NOTIFICATION_KINDS], { description: 'One kind only (`total` counts that kind)' })),
  },
  { additionalProperties: false },
);

export const UnreadQuery = Type.Object(
  { workspace: Type.Optional({ ...Slug, description: 'One workspace (its slug); 404 if you are not a member' }) },
  { additionalProperties: false },
);

export const InboxPage = Type.Object({
  ...pageSchema(Notification).properties,
  unread_count: Type.Integer({ description: 'Unread, not archived, not snoozed (in `workspace` when given)' }),
});

export const ReadBody = Type.Object(
  {
    ids: Type.Optional(Type.Array(Uuid, { minItems: 1, maxItems: 500, description: 'Your notifications to mark read (others are ignored)' })),
    all: Type.Optional(Type.Literal(true, { description: 'Every unread notification (not snoozed ones)' })),
    workspace: Type.Optional({ ...Slug, description: 'With `all`: of this workspace only' }),
  },
  { additionalProperties: false, description: '`{ids}` or `{all: true, workspace?}`' },
);

export const ReadResult = Type.Object({ updated: Type.Integer({ description: 'Notifications marked read now' }) });

export const SnoozeBody = Type.Object(
  {
    until: Type.Union([Timestamp, Type.Null()], { description: 'A future instant (a past one: 400); null wakes it now' }),
  },
  { additionalProperties: false },
);

export const UnreadCount = Type.Object({ unread: Type.Integer() });
