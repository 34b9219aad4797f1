import { iso } from '../../kernel/time.js';
import type { TimeTrackingRepository } from './time-tracking.repository.js';

type WorklogRow = Awaited<ReturnType<TimeTrackingRepository['insertWorklog']>>;
type TimerRow = Awaited<ReturnType<TimeTrackingRepository['insertTimer']>>;

/** A worklog as the API (and the `worklog.*` webhooks) show it. */
export const worklogView = (w: WorklogRow) => ({
  id: w.id,
  issue_id: w.issue_id,
  user_id: w.user_id,
  started_at: iso(w.started_at),
  duration_minutes: w.duration_minutes,
  note: w.note,
  created_at: iso(w.created_at),
  updated_at: iso(w.updated_at),
});

export const timerView = (t: TimerRow) => ({ issue_id: t.issue_id, started_at: iso(t.started_at) });
