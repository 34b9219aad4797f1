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
] as const;
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
    issues.push({ index, project, name, priority, state, values, comment, later, offsetMs });
  }
  return { issues, firstHalf, baselineOffsetsMs: [6 * DAY + HOUR, 13 * DAY + 12 * HOUR], laterOffsetMs: 6 * DAY + 2 * HOUR, spanMs };
}
