/**
 * What the demo contains, decided before anything is written: every name, value and random choice comes from a
 * seeded sequence, so every run (a first one, a second one, one that completes an interrupted one) plans exactly
 * the same demo, and the steps can compare what exists with what is planned.
 */

export const DEMO_ACCOUNT = { email: 'demo@example.com', password: 'demo-password', displayName: 'Demo Admin' } as const;
export const DEMO_SLUG = 'demo';
export const DEMO_WORKSPACE_NAME = 'Acme Support';
export const DEMO_MEMBERS = [
  { name: 'Grace Member', email: `grace.${DEMO_SLUG}@example.com`, role: 'member' },
  { name: 'Gus Guest', email: `gus.${DEMO_SLUG}@example.com`, role: 'guest' },
  { name: 'Hana Member', email: `hana.${DEMO_SLUG}@example.com`, role: 'member' },
] as const;
/** The workspace's time zone (contract 18.1): its "today", the timesheet's days and the forecast's weeks. */
export const DEMO_TIME_ZONE = 'Europe/Istanbul';
/** Who logs time in the demo (contract 18.2): the demo admin (logging for the others too) and the two members. */
export const DEMO_LOGGERS = [DEMO_ACCOUNT.email, `grace.${DEMO_SLUG}@example.com`, `hana.${DEMO_SLUG}@example.com`] as const;
export const DEFAULT_ISSUE_COUNT = 240;

export type Priority = 'urgent' | 'high' | 'medium' | 'low' | 'none';
export type StateGroup = 'backlog' | 'unstarted' | 'started' | 'completed' | 'cancelled';
/** A state group (its first state), or the Service Desk's own pausing state. */
export type StateKey = StateGroup | 'waiting';
export type ProjectKey = 'SD' | 'WEB';

export const PROJECTS = [
  { key: 'SD', name: 'Service Desk', identifier: 'SD', description: 'Customer requests', policy: 'live' },
  { key: 'WEB', name: 'Web Platform', identifier: 'WEB', description: 'The product', policy: null },
] as const;

/** The Service Desk's extra state: waiting on the customer stops the SLA clock (section 11.2). */
export const WAITING_STATE = { name: 'Waiting on customer', group: 'started', pauses_sla: true } as const;

export const CALENDAR = {
  name: 'Istanbul office hours',
  time_zone: 'Europe/Istanbul',
  working_hours: (['mon', 'tue', 'wed', 'thu', 'fri'] as const).flatMap((day) => [
    { day, start: '09:00', end: '12:30' },
    { day, start: '13:30', end: '18:00' },
  ]),
  holidays: [
    { date: '2026-01-01', name: "New Year's Day", recurring: true },
    { date: '2026-04-23', name: "National Sovereignty and Children's Day", recurring: true },
    { date: '2026-10-29', name: 'Republic Day', recurring: true },
  ],
};

export const POLICIES = {
  standard: {
    name: 'Standard support',
    description: 'Business-hours targets for every project without its own policy',
    is_default: true,
    at_risk_percent: 75,
    rules: [
      { priority: 'urgent', response_time_h: 1, resolution_time_h: 8 },
      { priority: 'high', response_time_h: 4, resolution_time_h: 24 },
      { priority: 'medium', response_time_h: 8, resolution_time_h: 72 },
      { priority: 'low', response_time_h: 24, resolution_time_h: 120 },
    ],
  },
  // Seconds-long targets for the urgent issues, and an at-risk share of 1 %: whatever is created through the console
  // on the Service Desk turns at risk and then breached while one watches.
  live: {
    name: 'Live desk (demo: targets in seconds)',
    at_risk_percent: 1,
    rules: [
      { priority: 'urgent', response_time_h: 0.002, resolution_time_h: 0.004 },
      { priority: 'high', response_time_h: 0.1, resolution_time_h: 0.5 },
      { priority: 'medium', response_time_h: 2, resolution_time_h: 8 },
      { priority: 'low', response_time_h: 8, resolution_time_h: 40 },
    ],
  },
} as const;

export const PROPERTIES = [
  { key: 'tier', name: 'Customer tier', type: 'select', options: ['gold', 'silver', 'bronze'] },
  { key: 'points', name: 'Story points', type: 'number' },
  { key: 'due', name: 'Promised date', type: 'date' },
  { key: 'components', name: 'Components', type: 'multi_select', options: ['api', 'web', 'mobile', 'billing'] },
  { key: 'qa', name: 'Needs QA', type: 'checkbox' },
] as const;
export type PropertyKey = (typeof PROPERTIES)[number]['key'];

export const BASELINES = ['Sprint 1 start', 'Sprint 2 start'] as const;

export const WEBHOOK = {
  // A documentation address (TEST-NET-3, RFC 5737): no DNS look-up, and nothing there. The endpoint is created
  // paused, so the demo sends nothing anywhere; point it at a receiver of yours and turn it on.
  url: 'https://203.0.113.10/demo-receiver',
  description: 'Demo endpoint (paused): point it at your own receiver and turn it on',
  event_types: ['*'],
};

const SUBJECTS = [
  'Login page',
  'Invoice PDF',
  'Password reset',
  'Search',
  'Dashboard',
  'Mobile app',
  'Export to CSV',
  'Notifications',
  'Billing page',
  'API rate limits',
  'SSO setup',
  'Dark mode',
];
const PROBLEMS = ['is slow', 'shows an error', 'does not load', 'has a typo', 'times out', 'looks broken on mobile', 'needs a new option', 'returns 500'];
const PRIORITIES: Priority[] = ['urgent', 'high', 'high', 'medium', 'medium', 'medium', 'low', 'low', 'none'];
const STATES: StateKey[] = ['backlog', 'unstarted', 'unstarted', 'started', 'started', 'completed', 'completed', 'cancelled'];
const COMMENTS = ['Looking into it.', 'Reproduced on staging.', 'Customer confirmed the workaround.', 'Fix is in review.'];

export interface PlannedIssue {
  /** 0-based position in the whole plan: the order of creation. */
  index: number;
  project: ProjectKey;
  name: string;
  priority: Priority;
  state: StateKey;
  /** Custom values (Service Desk only), by property key. */
  values: Partial<Record<PropertyKey, unknown>>;
  comment: string | null;
  /** "The sprint moves on" after the first baseline: a first-half issue that starts or finishes (and may escalate). */
  later: { state: StateKey; priority?: Priority } | null;
  /** When it was created, as an offset in ms from the start of the demo's timeline (in process only). */
  offsetMs: number;
  /**
   * Dates and estimate (contract 18.1), dates as days from the first day of the timeline (the step turns them into
   * dates in the workspace's time zone); null: an issue nobody planned.
   */
  planning: { startDay: number; targetDay: number; estimateMinutes: number } | null;
  /** A target that slips after the first baseline (days later) with a larger estimate (minutes more); first half only. */
  slip: { days: number; moreMinutes: number } | null;
}

/** Time logged on an issue (contract 18.2): by `logger` (an index into DEMO_LOGGERS), `atMs` before the anchor. */
export interface PlannedWorklog {
  logger: number;
  atMs: number;
  minutes: number;
  note: string;
}

/**
 * The delivery history of Web Platform (contract 18.5): issues created over the past ~13 weeks, started, and completed
 * at past instants, so the forecast's weekly throughput has twelve full weeks of data. Instants are ms before the
 * anchor (the workspace's creation).
 */
export interface HistoryIssue {
  name: string;
  priority: Priority;
  createdMs: number;
  startedMs: number;
  completedMs: number;
  estimateMinutes: number;
  worklogs: PlannedWorklog[];
}

export interface DemoPlan {
  issues: PlannedIssue[];
  /** The first `firstHalf` issues exist before the first baseline; the rest arrive after the sprint moved on. */
  firstHalf: number;
  /** Offsets of the baselines and of the sprint's changes on the timeline. */
  baselineOffsetsMs: [number, number];
  laterOffsetMs: number;
  /** The timeline's length: it ends this long before the workspace was created (its anchor). */
  spanMs: number;
  /** Worklogs on the sprint's issues, by planned issue index. */
  worklogs: Map<number, PlannedWorklog[]>;
  history: HistoryIssue[];
}

/** A deterministic pseudo-random sequence (a linear congruential generator), so every demo looks the same. */
export function seeded(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  return { next, pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]! };
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * The demo's issues on a timeline of two weeks: the first half over the first six days, the first baseline, a day
 * in which the sprint moves on, the second half over the next six days, the second baseline.
 */
export function demoPlan(issueCount = DEFAULT_ISSUE_COUNT): DemoPlan {
  const rnd = seeded(42);
  const firstHalf = Math.ceil(issueCount / 2);
  const spanMs = 14 * DAY;
  const issues: PlannedIssue[] = [];
  for (let index = 0; index < issueCount; index++) {
    const project: ProjectKey = index % 3 === 2 ? 'WEB' : 'SD';
    const name = `${rnd.pick(SUBJECTS)} ${rnd.pick(PROBLEMS)}`;
    const priority = rnd.pick(PRIORITIES);
    let state = rnd.pick(STATES);
    if (project === 'SD' && state === 'started' && rnd.next() < 0.3) state = 'waiting';
    const values: PlannedIssue['values'] = {};
    if (project === 'SD') {
      values.tier = rnd.pick(['gold', 'silver', 'bronze']);
      if (rnd.next() < 0.7) values.points = rnd.pick([1, 2, 3, 5, 8, 13]);
      if (rnd.next() < 0.4) values.due = `2026-12-${String(1 + Math.floor(rnd.next() * 28)).padStart(2, '0')}`;
      if (rnd.next() < 0.6) values.components = [...new Set([rnd.pick(['api', 'web', 'mobile', 'billing']), rnd.pick(['api', 'web'])])];
      values.qa = rnd.next() < 0.5;
    }
    const comment = rnd.next() < 0.35 ? rnd.pick(COMMENTS) : null;
    const first = index < firstHalf;
    const later =
      first && index % 4 === 0
        ? { state: rnd.pick<StateKey>(['started', 'completed', 'completed']), ...(rnd.next() < 0.3 ? { priority: 'urgent' as const } : {}) }
        : null;
    const offsetMs = first
      ? Math.floor((index * 6 * DAY) / firstHalf)
      : 7 * DAY + Math.floor(((index - firstHalf) * 6 * DAY) / Math.max(1, issueCount - firstHalf));
    // Four issues in five are planned: a start near their creation, a target one to four weeks later, an estimate.
    const createdDay = Math.floor(offsetMs / DAY);
    const planning =
      index % 5 === 4
        ? null
        : {
            startDay: createdDay + Math.floor(rnd.next() * 3),
            targetDay: createdDay + 7 + Math.floor(rnd.next() * 22),
            estimateMinutes: rnd.pick([30, 60, 120, 240, 480, 960]),
          };
    const slip = first && planning && index % 6 === 1 ? { days: 2 + Math.floor(rnd.next() * 9), moreMinutes: rnd.pick([60, 120, 240]) } : null;
    issues.push({ index, project, name, priority, state, values, comment, later, offsetMs, planning, slip });
  }
  // Time on every fourth started or finished issue, within the timeline (the anchor is 14 days + 1 hour after its
  // start): one to three worklogs a day apart from the day after its creation.
  const worklogs = new Map<number, PlannedWorklog[]>();
  for (const issue of issues) {
    const worked = issue.later?.state ?? issue.state;
    if (issue.index % 4 !== 1 || !['started', 'waiting', 'completed'].includes(worked)) continue;
    const count = 1 + (issue.index % 3);
    const list: PlannedWorklog[] = [];
    for (let n = 0; n < count; n++) {
      const at = issue.offsetMs + (n + 1) * DAY;
      if (at >= spanMs) break;
      list.push({ logger: (issue.index + n) % 3, atMs: spanMs + HOUR - at, minutes: rnd.pick([15, 30, 45, 60, 90, 120, 180]), note: rnd.pick(WORK_NOTES) });
    }
    if (list.length) worklogs.set(issue.index, list);
  }
  return {
    issues,
    firstHalf,
    baselineOffsetsMs: [6 * DAY + HOUR, 13 * DAY + 12 * HOUR],
    laterOffsetMs: 6 * DAY + 2 * HOUR,
    spanMs,
    worklogs,
    // A smaller demo (a test's) gets a short history: three weeks of one issue each.
    history: issueCount >= DEFAULT_ISSUE_COUNT ? deliveryHistory(12, 4) : deliveryHistory(3, 1),
  };
}

const WORK_NOTES = ['Investigation', 'Implementation', 'Code review', 'Testing on staging', 'Call with the customer', 'Deploy and verify', ''];
const ROADMAP = ['Onboarding tour', 'Audit log', 'Bulk edit', 'Saved filters', 'Webhook retries', 'Two-factor sign-in', 'CSV import', 'Public status page'];
const WEEK = 7 * DAY;

/**
 * Twelve weeks of Web Platform deliveries: 1 to 4 issues completed a week (a seeded mix), each created one to three
 * weeks before it was completed and started a few days before, with one or two worklogs while it was worked on.
 */
function deliveryHistory(weeks: number, perWeek: number): HistoryIssue[] {
  const rnd = seeded(1812);
  const out: HistoryIssue[] = [];
  for (let week = weeks; week >= 1; week--) {
    const completions = 1 + Math.floor(rnd.next() * perWeek);
    for (let n = 0; n < completions; n++) {
      const completedMs = week * WEEK - Math.floor(((n + 0.5) * WEEK) / completions);
      const startedMs = completedMs + DAY + Math.floor(rnd.next() * 4 * DAY);
      const createdMs = startedMs + WEEK + Math.floor(rnd.next() * 2 * WEEK);
      const worklogs: PlannedWorklog[] = [];
      for (let w = 0; w < 1 + (out.length % 2); w++) {
        worklogs.push({
          logger: (out.length + w) % 3,
          atMs: startedMs - Math.floor((0.1 + w * 0.4) * DAY),
          minutes: rnd.pick([60, 90, 120, 180, 240]),
          note: rnd.pick(WORK_NOTES),
        });
      }
      out.push({
        name: `${rnd.pick(ROADMAP)}, part ${out.length + 1}`,
        priority: rnd.pick(PRIORITIES),
        createdMs,
        startedMs,
        completedMs,
        estimateMinutes: rnd.pick([240, 480, 960, 1440]),
        worklogs,
      });
    }
  }
  return out.sort((a, b) => b.createdMs - a.createdMs);
}
