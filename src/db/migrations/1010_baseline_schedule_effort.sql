-- Baselines of schedule and effort (contract 18.4): each issue's dates, estimate and time spent at snapshot time, and
-- the baseline's planned finish and effort totals. Only adds nullable columns (no rewrite of either table, no backfill):
-- a baseline written before this migration did not record these figures, and it keeps saying so. NULL in
-- baseline_items.time_spent_minutes (never NULL on an issue) and in baselines.total_time_spent_minutes marks a row
-- written before 1010; the service reads such a baseline's schedule and effort as unknown (null), see
-- docs/decisions/baselines-schedule.md.

ALTER TABLE baseline_items
  ADD COLUMN start_date date,
  ADD COLUMN target_date date,
  ADD COLUMN estimate_minutes integer,
  ADD COLUMN time_spent_minutes integer;

ALTER TABLE baselines
  -- the latest target_date of the baseline's issues not cancelled; null when none has one
  ADD COLUMN planned_finish date,
  -- sums over every issue of the baseline (an issue without an estimate adds 0); bigint: 10^6 minutes x 10^5 issues
  ADD COLUMN total_estimate_minutes bigint CHECK (total_estimate_minutes >= 0),
  ADD COLUMN total_time_spent_minutes bigint CHECK (total_time_spent_minutes >= 0);
