import { Type } from 'typebox';
import { LocalDate, Slug, Uuid } from '../../http/schemas.js';
import { DEFAULT_WEEKS, HORIZON_WEEKS, MAX_WEEKS, MIN_WEEKS, RUNS } from './forecast.logic.js';

export const ForecastParams = Type.Object({ slug: Slug, projectId: Uuid });

export const ForecastQuery = Type.Object({
  weeks: Type.Integer({
    minimum: MIN_WEEKS,
    maximum: MAX_WEEKS,
    default: DEFAULT_WEEKS,
    description: `Full weeks of throughput to draw from, ${MIN_WEEKS}..${MAX_WEEKS} (default ${DEFAULT_WEEKS})`,
  }),
  baseline_id: Type.Optional({ ...Uuid, description: 'A baseline of this project: its planned finish is answered as baseline_planned_finish' }),
});

const NullableDate = (description: string) => Type.Union([LocalDate, Type.Null()], { description });

export const Forecast = Type.Object({
  remaining_issues: Type.Integer({ description: 'Open issues of the project now: neither completed nor cancelled' }),
  throughput: Type.Array(
    Type.Object({
      week_start: { ...LocalDate, description: 'The Monday of the week, in the workspace time zone' },
      completed: Type.Integer({ description: 'Issues that entered the completed group that week (each issue once a week)' }),
    }),
    { description: 'The last N full weeks, oldest first, zeros included; the current week is not one of them' },
  ),
  finish_p50: NullableDate(
    `The Sunday of the week by which half of the ${RUNS} runs have finished (the current week is the first); ` +
      'today when nothing is left; null when the throughput is all zero (see reason)',
  ),
  finish_p85: NullableDate('As finish_p50, for 85 % of the runs'),
  finish_p95: NullableDate('As finish_p50, for 95 % of the runs'),
  planned_finish: NullableDate('The latest target_date of the issues of the project not cancelled, or null'),
  baseline_planned_finish: NullableDate('The planned finish of baseline_id, or null without one'),
  probability_by_planned_finish: Type.Union([Type.Number(), Type.Null()], {
    description:
      'Percent of the runs that finish by planned_finish, one decimal (100 when nothing is left); null without a planned finish or without throughput',
  }),
  reason: Type.Optional(
    Type.String({
      description: `Present when a finish date is null: why (no throughput in the window, or runs that do not finish within ${HORIZON_WEEKS} weeks)`,
    }),
  ),
});
