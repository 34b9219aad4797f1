import { Type } from 'typebox';
import { LOCAL_DATE_PATTERN, Slug, Uuid } from '../../http/schemas.js';
import { MAX_REPORT_DAYS, REPORT_GROUPS, REPORT_PRIORITIES } from './sla-reports.logic.js';

const Day = Type.String({ pattern: LOCAL_DATE_PATTERN });

export const ReportParams = Type.Object({ slug: Slug });

export const ReportQuery = Type.Object({
  from: { ...Day, description: 'First local date, YYYY-MM-DD, in the workspace time zone' },
  to: { ...Day, description: `Last local date, inclusive; at most ${MAX_REPORT_DAYS} days in all` },
  group_by: Type.Enum([...REPORT_GROUPS], {
    description: 'day, week (from Monday) or month: every period of the range, empty ones included; priority, policy, project: only keys with data',
  }),
  project_id: Type.Optional({ ...Uuid, description: 'Only issues of this project' }),
  priority: Type.Optional(Type.Enum([...REPORT_PRIORITIES], { description: 'Only trackers of this priority' })),
  policy_id: Type.Optional({ ...Uuid, description: 'Only trackers under this SLA policy' }),
  format: Type.Optional(Type.Enum(['json', 'csv'], { description: 'csv (or Accept: text/csv): the rows as CSV' })),
});

const Count = Type.Integer({ minimum: 0 });
const Seconds = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]);

export const TargetBlock = Type.Object(
  {
    met: { ...Count, description: 'Targets met (stopped, not after the target was breached) in the period' },
    breached: { ...Count, description: 'Targets breached in the period (counted at their due instant)' },
    achievement_percent: Type.Union([Type.Number(), Type.Null()], { description: 'met / (met + breached) * 100, one decimal; null when both are 0' }),
    median_seconds: { ...Seconds, description: 'Nearest-rank median of the working seconds until the target stopped; null when none' },
    p90_seconds: { ...Seconds, description: 'Nearest-rank 90th percentile of the same; null when none' },
  },
  { description: 'One target: met and breached counts, achievement, and working time until the outcome' },
);

const Targets = Type.Object({ response: TargetBlock, resolution: TargetBlock });

export const ReportRow = Type.Object({
  key: Type.String({ description: "The period's first local date (YYYY-MM-DD), the priority, or the policy or project id" }),
  label: Type.String({ description: 'The period as people read it, the priority, or the policy or project name' }),
  response: TargetBlock,
  resolution: TargetBlock,
});

export const Report = Type.Object({
  from: Type.String(),
  to: Type.String(),
  time_zone: Type.String({ description: 'The workspace time zone the dates are read in' }),
  group_by: Type.Enum([...REPORT_GROUPS]),
  totals: Targets,
  rows: Type.Array(ReportRow),
});
