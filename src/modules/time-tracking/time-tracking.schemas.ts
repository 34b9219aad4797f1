import { Type } from 'typebox';
import { LOCAL_DATE_PATTERN, PageQuery, Slug, Timestamp, Uuid } from '../../http/schemas.js';

export const WorklogsParams = Type.Object({ slug: Slug, projectId: Uuid, issueId: Uuid });
export const WorklogParams = Type.Object({ slug: Slug, projectId: Uuid, issueId: Uuid, worklogId: Uuid });
export const WorkspaceParams = Type.Object({ slug: Slug });
export const WorklogListQuery = PageQuery;

export const Worklog = Type.Object({
  id: Uuid,
  issue_id: Uuid,
  user_id: Uuid,
  started_at: Timestamp,
  duration_minutes: Type.Integer(),
  note: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const Duration = Type.Integer({ minimum: 1, maximum: 1440, description: 'Minutes, 1..1440' });
const StartedAt = Type.String({ format: 'date-time', description: 'When the work started; at most 24 hours ahead' });
const Note = Type.String({ maxLength: 2000 });

export const CreateWorklogBody = Type.Object({
  duration_minutes: Duration,
  started_at: Type.Optional({ ...StartedAt, description: 'When the work started (default: now minus the duration); at most 24 hours ahead' }),
  note: Type.Optional(Note),
  user_id: Type.Optional({ ...Uuid, description: 'Log for another member (admins only); default: you' }),
});

export const UpdateWorklogBody = Type.Object({
  duration_minutes: Type.Optional(Duration),
  started_at: Type.Optional(StartedAt),
  note: Type.Optional(Note),
});

export const Timer = Type.Object({ issue_id: Uuid, started_at: Timestamp });
export const TimerOrNull = Type.Union([Timer, Type.Null()], { description: 'Your running timer, or null' });
export const StartTimerBody = Type.Object({ issue_id: Uuid });

const Day = Type.String({ pattern: LOCAL_DATE_PATTERN, description: 'YYYY-MM-DD' });

export const TimesheetQuery = Type.Object({
  from: { ...Day, description: 'First day, YYYY-MM-DD (workspace time zone)' },
  to: { ...Day, description: 'Last day, inclusive; at most 366 days in all' },
  group_by: Type.Enum(['user', 'project', 'issue']),
  user_id: Type.Optional(Uuid),
  project_id: Type.Optional(Uuid),
  format: Type.Optional(Type.Enum(['json', 'csv'], { description: 'csv (or Accept: text/csv): one row per key, one column per day' })),
});

export const Timesheet = Type.Object({
  from: Type.String(),
  to: Type.String(),
  time_zone: Type.String(),
  group_by: Type.Enum(['user', 'project', 'issue']),
  total_minutes: Type.Integer(),
  days: Type.Array(Type.String()),
  rows: Type.Array(
    Type.Object({
      key: Uuid,
      label: Type.String({ description: 'user: display name; project: name; issue: IDENT-seq name' }),
      minutes: Type.Integer(),
      by_day: Type.Record(Type.String(), Type.Integer(), { description: 'Minutes by local day; days without time are left out' }),
    }),
  ),
});
