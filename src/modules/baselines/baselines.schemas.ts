import { Type } from 'typebox';
import { LocalDate, PageQuery, Slug, Timestamp, Uuid } from '../../http/schemas.js';
import { PRIORITIES, STATE_GROUPS } from '../../kernel/work-items.js';
import { DEFAULT_ITEMS_LIMIT, MAX_ITEMS_LIMIT } from './baselines.logic.js';

const StateGroupSchema = Type.Enum([...STATE_GROUPS]);
const PrioritySchema = Type.Enum([...PRIORITIES]);
const Count = Type.Integer({ minimum: 0 });
const Delta = Type.Integer({ description: 'current minus baseline: positive is an increase since the baseline' });
const NullableDate = (description: string) => Type.Union([LocalDate, Type.Null()], { description });
const Minutes = (description: string) => Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description });
const OLD = 'a baseline taken before schedule and effort were recorded (migration 1010)';
const PRE_1010 = `null on ${OLD}`;

export const ProjectParams = Type.Object({ slug: Slug, projectId: Uuid });
export const BaselineParams = Type.Object({ slug: Slug, baselineId: Uuid });

export const CreateBaselineBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S', description: 'Name of the baseline, 1..255 characters' }),
});

const stateMap = <T extends ReturnType<typeof Type.Integer>>(value: T, description: string) =>
  Type.Object(
    { backlog: value, unstarted: value, started: value, completed: value, cancelled: value },
    { description: `${description}; every state group is present` },
  );
const priorityMap = <T extends ReturnType<typeof Type.Integer>>(value: T, description: string) =>
  Type.Object({ urgent: value, high: value, medium: value, low: value, none: value }, { description: `${description}; every priority is present` });

export const Baseline = Type.Object({
  id: Uuid,
  workspace_id: Uuid,
  project_id: Uuid,
  name: Type.String(),
  total_issues: Type.Integer({ minimum: 0, description: 'Issues in the project at snapshot time' }),
  completed_issues: Type.Integer({ minimum: 0, description: 'Issues in a completed state at snapshot time' }),
  state_breakdown: stateMap(Count, 'Issues by state group at snapshot time, summing to total_issues'),
  priority_breakdown: priorityMap(Count, 'Issues by priority at snapshot time, summing to total_issues'),
  snapshot_at: Timestamp,
  created_by: Uuid,
  created_at: Timestamp,
  schedule_id: Type.Union([Uuid, Type.Null()], { description: 'The schedule that took it; null when taken by hand' }),
  planned_finish: NullableDate(`The latest target_date of its issues not cancelled; null when none has one, or ${PRE_1010}`),
  total_estimate_minutes: Minutes(`Sum of its issues' estimate_minutes (an issue without one adds 0); ${PRE_1010}`),
  total_time_spent_minutes: Minutes(`Sum of its issues' time_spent_minutes; ${PRE_1010}`),
});

const IssueAt = Type.Object({
  state_group: StateGroupSchema,
  priority: PrioritySchema,
  target_date: Type.Union([LocalDate, Type.Null()]),
  estimate_minutes: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
});
const FieldChange = <T extends Parameters<typeof Type.Object>[0][string]>(value: T) => Type.Object({ from: value, to: value });
const ChangedFields = Type.Object(
  {
    state_group: Type.Optional(FieldChange(StateGroupSchema)),
    priority: Type.Optional(FieldChange(PrioritySchema)),
    target_date: Type.Optional(FieldChange(Type.Union([LocalDate, Type.Null()]))),
    estimate_minutes: Type.Optional(FieldChange(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]))),
  },
  {
    description: 'Each field that differs, as {from, to}: state_group, priority, and (when both sides recorded them) target_date and estimate_minutes',
  },
);
const ChangedItem = Type.Object({
  id: Uuid,
  sequence_id: Type.Integer(),
  name: Type.String({ description: 'Current name' }),
  from: IssueAt,
  to: IssueAt,
  fields: ChangedFields,
});

const Schedule = Type.Object(
  {
    planned_finish_baseline: NullableDate("The baseline's planned_finish"),
    planned_finish_now: NullableDate("The latest target_date of the issues not cancelled now (or the against baseline's planned_finish)"),
    finish_variance_days: Type.Union([Type.Integer(), Type.Null()], {
      description: 'planned_finish_now minus planned_finish_baseline in days (positive: later); null when either is null',
    }),
    slipped_issues: Type.Integer({ minimum: 0, description: 'Issues on both sides whose target_date moved later or was removed' }),
    pulled_in_issues: Type.Integer({ minimum: 0, description: 'Issues on both sides whose target_date moved earlier' }),
    total_slip_days: Type.Integer({ minimum: 0, description: 'Sum of the days slipped issues with both dates moved later' }),
    added_estimate_minutes: Minutes('Sum of the estimates of the issues added since the baseline; null when compared against ' + OLD),
    removed_estimate_minutes: Minutes('Sum of the estimates, at snapshot time, of the issues removed since the baseline; ' + PRE_1010),
    estimate_delta_minutes: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Total estimate now minus at the baseline; null when either side is ' + OLD,
    }),
    time_spent_delta_minutes: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Total time spent now minus at the baseline; null when either side is ' + OLD,
    }),
  },
  { description: 'Schedule and effort variance (contract 18.4)' },
);
const listOf = <T extends ReturnType<typeof Type.Object>>(item: T, description: string) =>
  Type.Object(
    {
      count: Type.Integer({ minimum: 0, description: 'How many issues in all (the items list may be cut short)' }),
      items: Type.Array(item, { description: 'At most items_limit issues, by sequence_id' }),
    },
    { description },
  );

export const Deviation = Type.Object({
  baseline: Baseline,
  current_total: Type.Integer({ minimum: 0, description: 'Issues in the project now' }),
  current_completed: Type.Integer({ minimum: 0, description: 'Issues in a completed state now' }),
  issues_delta: Delta,
  completion_delta: Delta,
  state_delta: stateMap(Delta, 'Change of the count of each state group'),
  priority_delta: priorityMap(Delta, 'Change of the count of each priority'),
  current_state_breakdown: stateMap(Count, 'Issues by state group now'),
  current_priority_breakdown: priorityMap(Count, 'Issues by priority now'),
  items_limit: Type.Integer({ minimum: 0, description: 'The cap applied to each of added, removed and changed' }),
  added: listOf(
    Type.Object({ id: Uuid, sequence_id: Type.Integer(), name: Type.String(), state_group: StateGroupSchema, priority: PrioritySchema }),
    'Issues created since the baseline, with their state group and priority now',
  ),
  removed: listOf(
    Type.Object({ id: Uuid, sequence_id: Type.Integer(), name: Type.String(), state_group: StateGroupSchema, priority: PrioritySchema }),
    'Issues deleted since the baseline, as they were at snapshot time',
  ),
  changed: listOf(ChangedItem, 'Issues whose state group, priority, target_date or estimate_minutes differs from the baseline'),
  schedule: Schedule,
});

export const DeviationQuery = Type.Object({
  against: Type.Optional({ ...Uuid, description: 'Compare with this baseline of the same project instead of now' }),
  items_limit: Type.Integer({
    minimum: 0,
    maximum: MAX_ITEMS_LIMIT,
    default: DEFAULT_ITEMS_LIMIT,
    description: `Cap on each of added, removed and changed, 0..${MAX_ITEMS_LIMIT} (default ${DEFAULT_ITEMS_LIMIT}); counts are never cut`,
  }),
});

const Transition = (description: string) => Type.Record(Type.String({ pattern: '^[a-z]+->[a-z]+$' }), Type.Integer({ minimum: 1 }), { description });

export const DeviationResponse = Type.Intersect([
  Deviation,
  Type.Object({
    against: Type.Union([Baseline, Type.Null()], { description: 'The baseline compared with, or null: compared with now' }),
    transitions: Type.Object({
      state: Transition('Issues on both sides whose state group moved, by "from->to"'),
      priority: Transition('Issues on both sides whose priority moved, by "from->to"'),
    }),
  }),
]);

export const ChangesQuery = Type.Object({
  ...PageQuery.properties,
  kind: Type.Enum(['added', 'removed', 'changed'], { description: 'Which list' }),
  against: Type.Optional({ ...Uuid, description: 'Compare with this baseline of the same project instead of now' }),
});

export const ChangeItem = Type.Union([
  Type.Object({ id: Uuid, sequence_id: Type.Integer(), name: Type.String(), state_group: StateGroupSchema, priority: PrioritySchema }),
  ChangedItem,
]);

const WeekdaySchema = Type.Enum(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']);
const At = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'Local wall-clock time HH:MM (00:00..23:59)' });
const NamePrefix = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'Baselines are named "{name_prefix} YYYY-MM-DD"' });
const TimeZone = Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone, e.g. Europe/Istanbul' });
const KeepLast = Type.Integer({ minimum: 1, maximum: 365, description: 'Scheduled baselines kept; older ones are deleted' });

export const ScheduleParams = Type.Object({ slug: Slug, projectId: Uuid, scheduleId: Uuid });

export const BaselineSchedule = Type.Object({
  id: Uuid,
  project_id: Uuid,
  name_prefix: Type.String(),
  every: Type.Enum(['day', 'week']),
  weekday: Type.Union([WeekdaySchema, Type.Null()], { description: 'For weekly schedules; null for daily ones' }),
  at: Type.String(),
  time_zone: Type.String(),
  keep_last: Type.Integer(),
  next_run_at: Timestamp,
  created_at: Timestamp,
});

export const CreateScheduleBody = Type.Object(
  {
    name_prefix: NamePrefix,
    every: Type.Enum(['day', 'week']),
    weekday: Type.Optional(Type.Union([WeekdaySchema, Type.Null()], { description: 'Required for every: week' })),
    at: At,
    time_zone: TimeZone,
    keep_last: KeepLast,
  },
  { additionalProperties: false },
);

export const UpdateScheduleBody = Type.Object(
  {
    name_prefix: Type.Optional(NamePrefix),
    every: Type.Optional(Type.Enum(['day', 'week'])),
    weekday: Type.Optional(Type.Union([WeekdaySchema, Type.Null()])),
    at: Type.Optional(At),
    time_zone: Type.Optional(TimeZone),
    keep_last: Type.Optional(KeepLast),
  },
  { additionalProperties: false },
);
