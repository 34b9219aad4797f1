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
/** Who the demo's issues are assigned to: the demo admin and the two members (a guest is not given work). */
export const DEMO_ASSIGNEES = [DEMO_ACCOUNT.email, `grace.${DEMO_SLUG}@example.com`, `hana.${DEMO_SLUG}@example.com`] as const;

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

/** Labels (contract 24.1): one colour per name, the same in both projects. */
export const LABELS = {
  bug: { color: '#dc2626', description: 'Something does not work as it should' },
  feature: { color: '#2563eb', description: 'A new capability or option' },
  customer: { color: '#db2777', description: 'Reported by a customer, or promised to one' },
  billing: { color: '#16a34a', description: 'Invoices, payments and plans' },
  performance: { color: '#f59e0b', description: 'Slow pages, timeouts, load' },
  docs: { color: '#7c3aed', description: 'Help pages, texts and typos' },
  security: { color: '#0f766e', description: 'Sign-in, SSO and access' },
} as const;
export type LabelName = keyof typeof LABELS;
export const PROJECT_LABELS: Record<ProjectKey, readonly LabelName[]> = {
  SD: ['bug', 'feature', 'customer', 'billing', 'performance', 'docs'],
  WEB: ['bug', 'feature', 'performance', 'security', 'billing', 'docs'],
};

export const BASELINES = ['Sprint 1 start', 'Sprint 2 start'] as const;

/**
 * Requests in Turkish and English on the service desk, with descriptions and comments, so that search (contract 23.1)
 * has words to find: `odeme` finds "Ödeme", `istanbul` finds "İSTANBUL", `ışık` finds "IŞIK", `deploy` finds
 * "deployment", `deplyoment` (a typo) finds it by a similar name.
 */
export const SEARCH_EXAMPLES: { name: string; description: string; comment: string; priority: Priority; state: StateKey }[] = [
  {
    name: 'Ödeme sayfası açılmıyor',
    description: 'Müşteri kartla ödeme yaparken sayfa boş kalıyor. Tarayıcı: Safari 18.',
    comment: 'Aynı sorun İSTANBUL şubesinde de görüldü.',
    priority: 'urgent',
    state: 'started',
  },
  {
    name: 'İSTANBUL ofisinde IŞIK arızası',
    description: 'Toplantı odasının ışıkları yanmıyor; teknik servis çağrıldı.',
    comment: 'Servis yarın sabah geliyor.',
    priority: 'medium',
    state: 'unstarted',
  },
  {
    name: 'Fatura PDF dosyasında KDV hatası',
    description: 'Kurumsal müşterilerin faturalarında KDV oranı yanlış görünüyor.',
    comment: 'Muhasebe ekibi etkilenen faturaları listeliyor.',
    priority: 'high',
    state: 'backlog',
  },
  {
    name: 'Deployment pipeline fails on the release branch',
    description: 'The deployment to staging stops at the database migration step with a timeout.',
    comment: 'Deploying by hand works; the runner lost its cache.',
    priority: 'high',
    state: 'started',
  },
  {
    name: 'Customer cannot reset the password',
    description: 'The reset e-mail arrives, but the link says it expired.',
    comment: 'The link expires after one hour; the customer opened it the next day.',
    priority: 'medium',
    state: 'unstarted',
  },
];

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
  /** Labels of its project (contract 24.1), 0 to 3. */
  labels: LabelName[];
  /** Who it is assigned to, as indexes into DEMO_ASSIGNEES: one person on most issues, two on some, none on a few. */
  assignees: number[];
  /**
   * An issue planned started or done is created to do (unstarted) and moved on later, as a team works it: answered
   * (started) `respondMs` after its creation, resolved (completed or cancelled) `resolveMs` after it. Its SLA
   * targets then measure real working time (the SLA report's medians are not 0). Null: created in its state.
   */
  progress: { respondMs: number; resolveMs: number } | null;
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
  /** The sub-issue trees (contract 24.2), parents before their children. */
  subIssues: PlannedSubIssue[];
  /** Relations between the demo's issues (contract 24.3), across both projects. */
  relations: PlannedRelation[];
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
  // The labels have a sequence of their own: the issues' other choices stay those of every demo made before them.
  const tags = seeded(2424);
  // So do the assignees and the pace of work.
  const people = seeded(4141);
  const pace = seeded(5151);
  const firstHalf = Math.ceil(issueCount / 2);
  const spanMs = 14 * DAY;
  const issues: PlannedIssue[] = [];
  for (let index = 0; index < issueCount; index++) {
    const project: ProjectKey = index % 3 === 2 ? 'WEB' : 'SD';
    const subject = rnd.pick(SUBJECTS);
    const problem = rnd.pick(PROBLEMS);
    const name = `${subject} ${problem}`;
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
    const labels = labelsOf(project, subject, problem, tags);
    const assignees = assigneesOf(people);
    const progress = progressOf(state, pace);
    issues.push({ index, project, name, priority, state, values, comment, later, offsetMs, planning, slip, labels, assignees, progress });
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
  const subIssues = subIssuePlan();
  return {
    issues,
    firstHalf,
    subIssues,
    relations: relationPlan(issues, subIssues, spanMs),
    baselineOffsetsMs: [6 * DAY + HOUR, 13 * DAY + 12 * HOUR],
    laterOffsetMs: 6 * DAY + 2 * HOUR,
    spanMs,
    worklogs,
    // A smaller demo (a test's) gets a short history: three weeks of one issue each.
    history: issueCount >= DEFAULT_ISSUE_COUNT ? deliveryHistory(12, 4) : deliveryHistory(3, 1),
  };
}

/** Nine issues in ten have an assignee (one in ten of those a second one); the demo admin has a third of them. */
function assigneesOf(people: ReturnType<typeof seeded>): number[] {
  const r = people.next();
  if (r < 0.1) return [];
  const first = Math.floor(people.next() * DEMO_ASSIGNEES.length);
  return r < 0.19 ? [first, (first + 1) % DEMO_ASSIGNEES.length] : [first];
}

const RESPONSE_DELAYS = [40 * 60_000, 75 * 60_000, 2 * HOUR, 3 * HOUR, 5 * HOUR, 9 * HOUR];
const RESOLUTION_DELAYS = [4 * HOUR, 10 * HOUR, 26 * HOUR, 2 * DAY, 3 * DAY];
/** How long a started or finished issue waited to be answered and resolved (none for one still to do). */
function progressOf(state: StateKey, pace: ReturnType<typeof seeded>): PlannedIssue['progress'] {
  const respondMs = pace.pick(RESPONSE_DELAYS);
  const resolveMs = respondMs + pace.pick(RESOLUTION_DELAYS);
  return state === 'backlog' || state === 'unstarted' ? null : { respondMs, resolveMs };
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

/** What kind of work an issue's problem makes it. */
const PROBLEM_LABELS: Record<string, LabelName> = {
  'is slow': 'performance',
  'times out': 'performance',
  'shows an error': 'bug',
  'does not load': 'bug',
  'looks broken on mobile': 'bug',
  'returns 500': 'bug',
  'needs a new option': 'feature',
  'has a typo': 'docs',
};
/** The area an issue's subject belongs to, where it has one (and its project has the label). */
const SUBJECT_LABELS: Record<string, LabelName> = {
  'Invoice PDF': 'billing',
  'Billing page': 'billing',
  'Login page': 'security',
  'Password reset': 'security',
  'SSO setup': 'security',
};

/**
 * An issue's labels, as a triager would put them: its kind (seven in ten), its area, and on the Service Desk "customer"
 * on about a third; at most three, and some issues none.
 */
function labelsOf(project: ProjectKey, subject: string, problem: string, tags: ReturnType<typeof seeded>): LabelName[] {
  const labels = new Set<LabelName>();
  if (tags.next() < 0.7) labels.add(PROBLEM_LABELS[problem]!);
  const area = SUBJECT_LABELS[subject];
  if (area) labels.add(area);
  if (project === 'SD' && tags.next() < 0.35) labels.add('customer');
  return [...labels].filter((l) => PROJECT_LABELS[project].includes(l)).slice(0, 3);
}

/** An issue of a sub-issue tree: a parent with its children (contract 24.2). Names are unique across the trees. */
interface TreeIssue {
  name: string;
  priority: Priority;
  state: StateGroup;
  labels: LabelName[];
  children?: TreeIssue[];
}

/**
 * Four pieces of work split into sub-issues, some done, so the sub-issues panel shows progress: a Web Platform epic
 * two levels deep, a feature in its first steps, a customer's onboarding and an incident on the Service Desk.
 */
const SUB_ISSUE_TREES: { project: ProjectKey; root: TreeIssue }[] = [
  {
    project: 'WEB',
    root: {
      name: 'Checkout redesign',
      priority: 'high',
      state: 'started',
      labels: ['feature', 'billing'],
      children: [
        { name: 'Checkout: new address form', priority: 'medium', state: 'completed', labels: ['feature'] },
        {
          name: 'Checkout: card form with 3-D Secure',
          priority: 'high',
          state: 'started',
          labels: ['feature', 'billing', 'security'],
          children: [
            { name: '3-D Secure: redirect to the bank and back', priority: 'high', state: 'completed', labels: ['feature'] },
            { name: '3-D Secure: test cards in the sandbox', priority: 'medium', state: 'completed', labels: [] },
            { name: '3-D Secure: messages for declined cards', priority: 'medium', state: 'unstarted', labels: ['docs'] },
          ],
        },
        { name: 'Checkout: VAT on the order summary', priority: 'medium', state: 'completed', labels: ['billing'] },
        { name: 'Checkout: receipt e-mail', priority: 'low', state: 'unstarted', labels: ['feature'] },
      ],
    },
  },
  {
    project: 'WEB',
    root: {
      name: 'Mobile app: offline mode',
      priority: 'medium',
      state: 'unstarted',
      labels: ['feature'],
      children: [
        { name: 'Offline mode: cache of the issue list', priority: 'medium', state: 'started', labels: ['feature', 'performance'] },
        { name: 'Offline mode: sync conflicts', priority: 'medium', state: 'backlog', labels: [] },
        { name: 'Offline mode: settings toggle', priority: 'low', state: 'completed', labels: [] },
      ],
    },
  },
  {
    project: 'SD',
    root: {
      name: 'Onboarding: Globex Corporation',
      priority: 'high',
      state: 'started',
      labels: ['customer'],
      children: [
        { name: 'Globex: import 300 users from CSV', priority: 'medium', state: 'completed', labels: ['customer'] },
        { name: 'Globex: SSO setup with Azure AD', priority: 'high', state: 'started', labels: ['customer'] },
        { name: 'Globex: training session for admins', priority: 'medium', state: 'unstarted', labels: ['customer', 'docs'] },
        { name: 'Globex: billing contact for invoices', priority: 'low', state: 'completed', labels: ['customer', 'billing'] },
      ],
    },
  },
  {
    project: 'SD',
    root: {
      name: 'Invoice PDF: wrong VAT for EU customers',
      priority: 'urgent',
      state: 'started',
      labels: ['bug', 'billing', 'customer'],
      children: [
        { name: 'Find the affected invoices', priority: 'high', state: 'completed', labels: ['billing'] },
        { name: 'Re-issue the affected invoices', priority: 'high', state: 'unstarted', labels: ['billing'] },
      ],
    },
  },
];

/** An issue of the sub-issue trees as the demo creates it: after its parent (by name), at its own instant. */
export interface PlannedSubIssue {
  project: ProjectKey;
  name: string;
  parent: string | null;
  priority: Priority;
  state: StateGroup;
  labels: LabelName[];
  offsetMs: number;
}

/** The trees flattened, parents first: each created in the second sprint, a day apart, its issues 25 minutes apart. */
function subIssuePlan(): PlannedSubIssue[] {
  const out: PlannedSubIssue[] = [];
  for (const [t, { project, root }] of SUB_ISSUE_TREES.entries()) {
    let offsetMs = 7 * DAY + 12 * HOUR + t * DAY;
    const visit = (issue: TreeIssue, parent: string | null) => {
      out.push({ project, name: issue.name, parent, priority: issue.priority, state: issue.state, labels: issue.labels, offsetMs });
      offsetMs += 25 * 60_000;
      for (const child of issue.children ?? []) visit(child, issue.name);
    };
    visit(root, null);
  }
  return out;
}

export type RelationType = 'blocks' | 'blocked_by' | 'duplicate_of' | 'duplicates' | 'relates_to';
/** An issue of the demo: a planned one (by index) or one of the sub-issue trees (by name). */
export type IssueRef = { planned: number } | { tree: string };
/** `from <type> to`, recorded at `offsetMs` (after both issues exist). */
export interface PlannedRelation {
  from: IssueRef;
  type: RelationType;
  to: IssueRef;
  offsetMs: number;
}

const OPEN: ReadonlySet<StateKey> = new Set(['backlog', 'unstarted', 'started', 'waiting']);

/**
 * A handful of relations: within the trees (a step blocked by an open one, an onboarding step waiting on SSO) and from
 * the Service Desk to the Web Platform (the VAT incident and the checkout's VAT; a customer's report blocked by the
 * open platform issue of the same name); among the sprint's issues, a later report of the same problem closed as a
 * duplicate of the first, and a desk issue related to a platform one of the same subject. The last three are found in
 * the plan, so a smaller demo (a test's) may have fewer.
 */
function relationPlan(issues: PlannedIssue[], subIssues: PlannedSubIssue[], spanMs: number): PlannedRelation[] {
  const offsetOf = (ref: IssueRef) => ('planned' in ref ? issues[ref.planned]!.offsetMs : subIssues.find((s) => s.name === ref.tree)!.offsetMs);
  const relation = (from: IssueRef, type: RelationType, to: IssueRef): PlannedRelation => ({
    from,
    type,
    to,
    offsetMs: Math.min(spanMs, Math.max(offsetOf(from), offsetOf(to)) + 2 * HOUR),
  });
  const out = [
    relation({ tree: 'Checkout: receipt e-mail' }, 'blocked_by', { tree: 'Checkout: card form with 3-D Secure' }),
    relation({ tree: 'Globex: training session for admins' }, 'blocked_by', { tree: 'Globex: SSO setup with Azure AD' }),
    relation({ tree: 'Invoice PDF: wrong VAT for EU customers' }, 'relates_to', { tree: 'Checkout: VAT on the order summary' }),
  ];
  const finalState = (i: PlannedIssue) => i.later?.state ?? i.state;
  const used = new Set<number>();
  const desk = issues.filter((i) => i.project === 'SD');
  const web = issues.filter((i) => i.project === 'WEB');
  const take = (...found: (PlannedIssue | undefined)[]) => {
    if (found.some((i) => !i || used.has(i.index))) return false;
    for (const i of found) used.add(i!.index);
    return true;
  };
  // A later report of a problem the desk already has, cancelled as its duplicate.
  for (const later of desk.filter((i) => finalState(i) === 'cancelled')) {
    const first = desk.find((i) => i.index < later.index && i.name === later.name);
    if (take(later, first)) {
      out.push(relation({ planned: later.index }, 'duplicate_of', { planned: first!.index }));
      break;
    }
  }
  // A customer's open report waiting on the platform's open issue of the same name.
  for (const report of desk.filter((i) => OPEN.has(finalState(i)))) {
    const cause = web.find((i) => i.name === report.name && OPEN.has(finalState(i)));
    if (take(report, cause)) {
      out.push(relation({ planned: report.index }, 'blocked_by', { planned: cause!.index }));
      break;
    }
  }
  // A desk issue and a platform issue about the same thing.
  for (const report of desk) {
    const subject = SUBJECTS.find((s) => report.name.startsWith(`${s} `));
    const other = web.find((i) => i.name !== report.name && i.name.startsWith(`${subject} `));
    if (take(report, other)) {
      out.push(relation({ planned: report.index }, 'relates_to', { planned: other!.index }));
      break;
    }
  }
  return out;
}
