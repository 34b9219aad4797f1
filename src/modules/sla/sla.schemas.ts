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

const CalendarRef = Type.Union([Uuid, Type.Null()], {
  description:
    'SLA calendar of this workspace whose working time the clocks count; null: all time is working time (round 1). ' +
    'Example: Mon-Fri 09:00-17:00 Europe/Istanbul, an issue created Friday 16:00 local with a 4-hour response target ' +
    'is due Monday 12:00 local (09:00 UTC).',
});
const AtRiskPercent = Type.Union([Type.Integer({ minimum: 1, maximum: 99 }), Type.Null()], {
  description: 'A target is at risk once its clock has counted this share of it (1..99); null: no warning. Default 75',
});

export const Policy = Type.Object({
  id: Uuid,
  workspace_id: Uuid,
  name: Type.String(),
  description: Type.String(),
  is_default: Type.Boolean({ description: 'The workspace default: applies to projects that name no policy' }),
  calendar_id: CalendarRef,
  at_risk_percent: AtRiskPercent,
  rules: Type.Array(Rule, { description: 'Ordered urgent, high, medium, low' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const CreatePolicyBody = Type.Object({
  name: Name,
  description: Type.Optional(Description),
  is_default: Type.Optional(Type.Boolean({ description: 'Makes this the default (unsetting the previous one); default false' })),
  calendar_id: Type.Optional(CalendarRef),
  at_risk_percent: Type.Optional(AtRiskPercent),
  rules: Type.Optional(Rules),
});

export const UpdatePolicyBody = Type.Object({
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  is_default: Type.Optional(Type.Boolean()),
  calendar_id: Type.Optional(CalendarRef),
  at_risk_percent: Type.Optional(AtRiskPercent),
  rules: Type.Optional(Type.Array(Rule, { maxItems: 100, description: 'Replaces every rule of the policy' })),
});

export const Tracker = Type.Object(
  {
    id: Uuid,
    issue_id: Uuid,
    policy_id: Uuid,
    priority: RulePrioritySchema,
    response_due_at: Timestamp,
    resolution_due_at: Timestamp,
    responded_at: NullableTimestamp,
    resolved_at: NullableTimestamp,
    response_breached: Type.Boolean({
      description: 'The response clock has counted more working time than the target (responded late, or not yet and past due)',
    }),
    resolution_breached: Type.Boolean({
      description: 'The resolution clock has counted more working time than the target (resolved late, or not yet and past due)',
    }),
    calendar_id: Type.Union([Uuid, Type.Null()], { description: "The policy's SLA calendar; null: all time is working time" }),
    paused: Type.Boolean({ description: 'The issue is in a state with pauses_sla and not resolved: its clocks do not run' }),
    response_remaining_seconds: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Target minus the working time counted so far, whole seconds rounded toward zero; negative once breached; null once responded',
    }),
    resolution_remaining_seconds: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Target minus the working time counted so far, whole seconds rounded toward zero; negative once breached; null once resolved',
    }),
    at_risk: Type.Boolean({
      description: "Not paused, and an unmet, unbreached target has counted at least the policy's at_risk_percent of its time",
    }),
  },
  {
    description:
      'Each target has a clock that starts at the issue creation and counts only working time of the policy calendar, and not ' +
      'while the issue is in a state with pauses_sla. Example: Mon-Fri 09:00-17:00 Europe/Istanbul, an issue created Friday ' +
      '16:00 local with a 4-hour response target is due Monday 12:00 local (09:00 UTC). While paused, the due instants of ' +
      'unmet targets are projected as if the pause ended at the moment of the read, so they move later as the pause goes on.',
  },
);

export const IssueSummary = Type.Object({
  id: Uuid,
  name: Type.String(),
  project_id: Uuid,
  sequence_id: Type.Integer(),
  priority: IssuePrioritySchema,
  state_group: StateGroupSchema,
});

export const BreachedTracker = Type.Object({ ...Tracker.properties, issue: IssueSummary });

const BoardProject = Type.Optional({
  ...Uuid,
  description: "Only trackers of this project's issues; a project that is not the workspace's answers 404",
});

export const BreachedQuery = Type.Object({
  ...PageQuery.properties,
  project_id: BoardProject,
  status: Type.Optional(
    Type.Enum(['open', 'resolved'], {
      description: 'open: only issues not resolved (no resolved_at); resolved: only resolved ones; absent: both. The order stays most overdue first',
    }),
  ),
});
export const AtRiskQuery = Type.Object({ ...PageQuery.properties, project_id: BoardProject });

// ---- calendars (contract 11.1) ----------------------------------------------------------------------------------

const WeekdaySchema = Type.Enum(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']);
const Clock = (what: string) => Type.String({ pattern: '^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$', description: `${what}, local wall-clock HH:MM` });
export const WorkingHoursSchema = Type.Object({
  day: WeekdaySchema,
  start: Clock('Start'),
  end: Clock('End (after start; 24:00 allowed)'),
});
export const HolidaySchema = Type.Object({
  date: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'YYYY-MM-DD; the whole local day is not working time' }),
  name: Type.String({ maxLength: 255, description: 'Optional label' }),
  recurring: Type.Boolean({ description: 'Repeats every year on this month and day' }),
});
const HolidayInput = Type.Object({
  date: HolidaySchema.properties.date,
  name: Type.Optional(HolidaySchema.properties.name),
  recurring: Type.Optional(Type.Boolean({ description: 'Repeats every year on this month and day; default false' })),
});
const CalendarName = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S', description: 'Calendar name, 1..255 characters' });
const TimeZone = Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone, e.g. Europe/Istanbul, America/New_York, UTC' });
const HoursList = Type.Array(WorkingHoursSchema, {
  maxItems: 700,
  description:
    'At least one interval; intervals of one day may touch but not overlap. Local wall-clock times: on a DST day 09:00-17:00 stays 09:00-17:00 local',
});
const HolidayList = Type.Array(HolidayInput, { maxItems: 1000 });

export const CalendarParams = Type.Object({ slug: Slug, calendarId: Uuid });

export const Calendar = Type.Object({
  id: Uuid,
  workspace_id: Uuid,
  name: Type.String(),
  description: Type.String(),
  time_zone: Type.String(),
  working_hours: Type.Array(WorkingHoursSchema, { description: 'Sorted by day (mon first), then start' }),
  holidays: Type.Array(HolidaySchema),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const CreateCalendarBody = Type.Object({
  name: CalendarName,
  description: Type.Optional(Description),
  time_zone: TimeZone,
  working_hours: HoursList,
  holidays: Type.Optional(HolidayList),
});

export const UpdateCalendarBody = Type.Object({
  name: Type.Optional(CalendarName),
  description: Type.Optional(Description),
  time_zone: Type.Optional(TimeZone),
  working_hours: Type.Optional(HoursList),
  holidays: Type.Optional(HolidayList),
});

// ---- issue history (contract 11.3) ------------------------------------------------------------------------------

export const HistoryParams = Type.Object({ slug: Slug, projectId: Uuid, issueId: Uuid });
export const HistoryEntry = Type.Object({
  id: Uuid,
  at: Timestamp,
  actor_id: Type.Union([Uuid, Type.Null()], { description: 'Who made the change; null when unknown (system)' }),
  kind: Type.Enum(['created', 'state', 'priority', 'comment', 'project_policy', 'dates', 'estimate', 'labels', 'parent']),
  from: Type.Unknown({
    description:
      'state: {state_id, group, pauses_sla}; priority: the priority; project_policy: the policy id or null; ' +
      'dates: {start_date, target_date}; estimate: {estimate_minutes, remaining_minutes} (as stored); ' +
      'labels: the label ids, sorted; parent: the parent issue id or null; else null',
  }),
  to: Type.Unknown({
    description:
      'created: {state_id, group, pauses_sla, priority}; state: {state_id, group, pauses_sla}; priority: the priority; ' +
      'comment: {comment_id}; project_policy: the policy id or null (the workspace default); dates and estimate: as from',
  }),
});
