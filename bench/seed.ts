/**
 * Set-based seeding of realistic workspaces: every bulk table is filled by INSERT ... SELECT over generate_series,
 * in chunks (for the progress bar and to keep statements bounded). Deterministic: the mix comes from hashint4() of
 * the issue's sequence number, not from random(). The shapes follow the product's rules (see each step).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Query } from './raw.js';

const CHUNK = 25_000;

// ---- progress -------------------------------------------------------------------------------------------------------

export class Progress {
  private done = 0;
  private readonly started = Date.now();
  private lastDraw = 0;
  constructor(
    private readonly label: string,
    private readonly total: number,
  ) {
    this.draw(true);
  }
  add(n: number) {
    this.done = Math.min(this.total, this.done + n);
    this.draw(this.done === this.total);
  }
  private draw(force: boolean) {
    const now = Date.now();
    if (!force && now - this.lastDraw < 200) return;
    this.lastDraw = now;
    const width = 30;
    const share = this.total ? this.done / this.total : 1;
    const bar = '#'.repeat(Math.round(share * width)).padEnd(width, '.');
    const secs = ((now - this.started) / 1000).toFixed(1);
    const line = `  ${this.label.padEnd(28)} [${bar}] ${String(Math.round(share * 100)).padStart(3)}% ${this.done.toLocaleString('en')}/${this.total.toLocaleString('en')} rows ${secs}s`;
    if (process.stderr.isTTY) process.stderr.write(`\r${line}`);
    else if (this.done === this.total) process.stderr.write(`${line}\n`);
    if (process.stderr.isTTY && this.done === this.total) process.stderr.write('\n');
  }
}

// ---- identities ---------------------------------------------------------------------------------------------------

export const sha256 = (v: string) => createHash('sha256').update(v).digest('hex');

/** A user with a personal API token, by SQL (used for PGlite, where the server is not up while seeding). */
export async function insertUserWithToken(q: Query, email: string, now: Date) {
  const userId = randomUUID();
  await q(
    `insert into users (id, email, display_name, password_hash, is_instance_admin, created_at, updated_at)
     values ($1, $2, $3, 'bench-no-password', false, $4, $4)`,
    [userId, email, email.split('@')[0], now],
  );
  const secret = `wis_${randomBytes(24).toString('base64url')}`;
  await q(
    `insert into api_tokens (id, user_id, kind, name, token_hash, prefix, created_at, expires_at)
     values ($1, $2, 'personal', 'bench', $3, $4, $5, null)`,
    [randomUUID(), userId, sha256(secret), secret.slice(0, 8), now],
  );
  return { userId, token: secret };
}

export async function insertWorkspace(q: Query, ownerId: string, slug: string, now: Date) {
  const id = randomUUID();
  await q(`insert into workspaces (id, slug, name, created_by, created_at, updated_at) values ($1, $2, $3, $4, $5, $5)`, [
    id,
    slug,
    `Bench ${slug}`,
    ownerId,
    now,
  ]);
  await q(`insert into workspace_members (workspace_id, user_id, role, created_at) values ($1, $2, 'admin', $3)`, [id, ownerId, now]);
  return id;
}

/** A Pro trial, as POST billing/trial/ would leave it (for PGlite; on PostgreSQL the run calls the endpoint). */
export async function insertTrial(q: Query, workspaceId: string, now: Date) {
  const end = new Date(now.getTime() + 14 * 86_400_000);
  await q(`insert into workspace_trials (workspace_id, plan_slug, started_at, ends_at) values ($1, 'pro', $2, $3)`, [workspaceId, now, end]);
  await q(
    `insert into subscriptions (id, workspace_id, plan_slug, status, billing_interval, currency, amount_per_period,
       current_period_start, current_period_end, cancel_at_period_end, canceled_at, created_at, updated_at)
     values ($1, $2, 'pro', 'trialing', 'month', 'TRY', 0, $3, $4, false, null, $3, $3)`,
    [randomUUID(), workspaceId, now, end],
  );
}

// ---- workspace content --------------------------------------------------------------------------------------------

export interface ProjectPlan {
  identifier: string;
  issues: number;
}

export interface SeedOptions {
  workspaceId: string;
  ownerId: string;
  projects: ProjectPlan[];
  /** Average comments per issue (0 = none). */
  comments: number;
  trackers: boolean;
  customValues: boolean;
  /** Extra members (assignees, commenters), created by SQL. */
  members: number;
  now: Date;
  label: string;
  /**
   * Labels per project (contract 24.1), 0 or absent for none: 0-3 per issue (35/35/20/10 %), each drawn from a Zipf
   * distribution (s = 1) over the labels, so with 30 the most common is on about 23 % of the issues and the rarest on
   * under 1 %. Set at insert, so the database's own triggers keep `label_issue_counts` (a row per label per chunk).
   */
  labels?: number;
}

export interface SeededProject {
  id: string;
  identifier: string;
  issues: number;
  properties: { severity: string; estimate: string; customer: string; due: string };
  /** The project's labels, most common first (empty without `labels`). */
  labels: string[];
}

const RULES: [string, number, number][] = [
  ['urgent', 1, 4],
  ['high', 4, 24],
  ['medium', 24, 72],
  ['low', 72, 240],
];
const STATES: [string, string, string, boolean][] = [
  ['Backlog', 'backlog', '#A3A3A3', true],
  ['Todo', 'unstarted', '#3A3A3A', false],
  ['In Progress', 'started', '#F59E0B', false],
  ['Done', 'completed', '#16A34A', false],
  ['Cancelled', 'cancelled', '#EF4444', false],
];

/** Issue rows of one chunk: priority mix 5/15/35/25/20 % (urgent..none); old issues mostly closed, new ones mostly open. */
const ISSUES_SQL = `
  INSERT INTO issues (id, workspace_id, project_id, sequence_id, name, description, state_id, state_group, priority,
                      assignee_ids, created_by, created_at, updated_at, completed_at, label_ids)
  SELECT gen_random_uuid(), $1, $2, x.g, 'Issue ' || x.g || ': ' || x.word || ' does not ' || x.verb, '',
         s.id, s."group", x.priority,
         CASE WHEN x.h3 % 3 = 0 THEN '{}'::uuid[] ELSE ARRAY[($7::uuid[])[1 + x.h3 % cardinality($7::uuid[])]] END,
         $3, x.created_at,
         CASE WHEN x.grp IN ('completed', 'cancelled') THEN x.created_at + x.closed_after ELSE x.created_at END,
         CASE WHEN x.grp = 'completed' THEN x.created_at + x.closed_after END,
         -- labels: k = 0..3 draws by the inverse of the Zipf CDF ($10, the lower bounds of the ranks), stored sorted
         CASE WHEN cardinality($9::uuid[]) = 0 THEN '{}'::uuid[] ELSE ARRAY(
           SELECT DISTINCT ($9::uuid[])[width_bucket((abs(hashint4(x.g * 4 + j)) % 1000000) / 1000000.0::float8, $10::float8[])]
           FROM generate_series(1, CASE WHEN x.h4 < 35 THEN 0 WHEN x.h4 < 70 THEN 1 WHEN x.h4 < 90 THEN 2 ELSE 3 END) j
           ORDER BY 1) END
  FROM (
    SELECT r.g, r.h3, abs(hashint4(r.g + 15485863)) % 100 AS h4,
      $6::timestamptz - interval '90 days' + (r.g::float8 / $8::int) * interval '90 days' AS created_at,
      (ARRAY['export', 'login', 'search', 'billing', 'sync', 'upload', 'report', 'invite'])[1 + r.h3 % 8] AS word,
      (ARRAY['work', 'load', 'save', 'finish', 'respond'])[1 + r.h2 % 5] AS verb,
      CASE WHEN r.h1 < 5 THEN 'urgent' WHEN r.h1 < 20 THEN 'high' WHEN r.h1 < 55 THEN 'medium' WHEN r.h1 < 80 THEN 'low' ELSE 'none' END AS priority,
      CASE WHEN r.g <= $8::int * 0.8 THEN
             CASE WHEN r.h2 < 70 THEN 'completed' WHEN r.h2 < 85 THEN 'cancelled' WHEN r.h2 < 95 THEN 'backlog' WHEN r.h2 < 98 THEN 'unstarted' ELSE 'started' END
           ELSE
             CASE WHEN r.h2 < 25 THEN 'backlog' WHEN r.h2 < 50 THEN 'unstarted' WHEN r.h2 < 75 THEN 'started' WHEN r.h2 < 95 THEN 'completed' ELSE 'cancelled' END
      END AS grp,
      -- closed after 0.1 .. 1.2 times the resolution target of its priority: about 18 % late
      (CASE WHEN r.h1 < 5 THEN 4 WHEN r.h1 < 20 THEN 24 WHEN r.h1 < 55 THEN 72 WHEN r.h1 < 80 THEN 240 ELSE 72 END)
        * (0.1 + (r.h3 % 1000) / 909.0) * interval '1 hour' AS closed_after
    FROM (SELECT g, abs(hashint4(g)) % 100 AS h1, abs(hashint4(g + 7919)) % 100 AS h2, abs(hashint4(g + 104729)) % 100000 AS h3
          FROM generate_series($4::int, $5::int) g) r
  ) x
  JOIN states s ON s.project_id = $2 AND s."group" = x.grp`;

/**
 * Tracker rows as the SLA module keeps them with no calendar and no pause: one per issue; where a rule applies, due
 * times from the creation and, per target, the at-risk instant (75 %) and the breach instant, null once met before
 * them; met targets settled; crossings already past recorded as sent (as the SLA events scanner would have).
 */
const TRACKERS_SQL = `
  INSERT INTO sla_trackers (id, workspace_id, issue_id, policy_id, priority, response_due_at, resolution_due_at,
                            responded_at, resolved_at, response_risk_at, response_breach_at, resolution_risk_at, resolution_breach_at,
                            response_settled, resolution_settled, response_risk_sent, response_breach_sent,
                            resolution_risk_sent, resolution_breach_sent, created_at, updated_at)
  SELECT id, workspace_id, issue_id, policy_id, priority, rdue, sdue, responded_at, resolved_at, rrisk, rbreach, srisk, sbreach,
         responded_at IS NOT NULL AND policy_id IS NOT NULL, resolved_at IS NOT NULL AND policy_id IS NOT NULL,
         coalesce(rrisk <= now(), false), coalesce(rbreach <= now(), false), coalesce(srisk <= now(), false), coalesce(sbreach <= now(), false),
         created_at, updated_at
  FROM (
    SELECT *,
           CASE WHEN responded_at IS NULL OR responded_at >= rrisk0 THEN rrisk0 END AS rrisk,
           CASE WHEN responded_at IS NULL OR responded_at > rdue THEN rdue END AS rbreach,
           CASE WHEN resolved_at IS NULL OR resolved_at >= srisk0 THEN srisk0 END AS srisk,
           CASE WHEN resolved_at IS NULL OR resolved_at > sdue THEN sdue END AS sbreach
    FROM (
      SELECT gen_random_uuid() AS id, i.workspace_id, i.id AS issue_id, r.policy_id, r.priority,
             i.created_at + r.response_ms * interval '1 millisecond' AS rdue,
             i.created_at + r.resolution_ms * interval '1 millisecond' AS sdue,
             i.created_at + ceil(r.response_ms * 0.75) * interval '1 millisecond' AS rrisk0,
             i.created_at + ceil(r.resolution_ms * 0.75) * interval '1 millisecond' AS srisk0,
             CASE WHEN i.state_group IN ('started', 'completed', 'cancelled') THEN
               LEAST(i.updated_at, i.created_at + coalesce(r.response_ms, 3600000) * (0.1 + (abs(hashint4(i.sequence_id + 31)) % 100) / 90.0) * interval '1 millisecond')
             END AS responded_at,
             CASE WHEN i.state_group IN ('completed', 'cancelled') THEN i.updated_at END AS resolved_at,
             i.created_at, i.updated_at
      FROM issues i LEFT JOIN sla_rules r ON r.policy_id = $3 AND r.priority = i.priority
      WHERE i.project_id = $1 AND i.sequence_id BETWEEN $4 AND $5 AND i.workspace_id = $2
    ) base
  ) t`;

/** 0 .. 2*avg comments per issue, by the owner and the members in turn. */
const COMMENTS_SQL = `
  INSERT INTO comments (id, workspace_id, issue_id, author_id, body, created_at, updated_at)
  SELECT gen_random_uuid(), i.workspace_id, i.id, ($4::uuid[])[1 + (i.sequence_id + c) % cardinality($4::uuid[])],
         'Comment ' || c || ' on issue ' || i.sequence_id, i.created_at + c * interval '37 minutes', i.created_at + c * interval '37 minutes'
  FROM issues i CROSS JOIN LATERAL generate_series(1, abs(hashint4(i.sequence_id + 13)) % ($5::int * 2 + 1)) c
  WHERE i.project_id = $1 AND i.sequence_id BETWEEN $2 AND $3`;

/** Typed values as the custom-properties module stores them (value as sent + the typed copy its filters use). */
const VALUES_SQL = `
  INSERT INTO custom_values (workspace_id, issue_id, property_id, value, value_text, value_number, value_date, value_bool, value_options, updated_at)
  SELECT i.workspace_id, i.id, v.property_id, v.value, v.value_text, v.value_number, v.value_date, null, null, i.updated_at
  FROM issues i
  CROSS JOIN LATERAL (VALUES
    (abs(hashint4(i.sequence_id + 1)) % 100 < 60, $4::uuid, to_jsonb('S' || (1 + abs(hashint4(i.sequence_id + 2)) % 4)),
       'S' || (1 + abs(hashint4(i.sequence_id + 2)) % 4), null::float8, null::timestamptz),
    (abs(hashint4(i.sequence_id + 3)) % 100 < 50, $5::uuid, to_jsonb(1 + abs(hashint4(i.sequence_id + 4)) % 13),
       null, (1 + abs(hashint4(i.sequence_id + 4)) % 13)::float8, null),
    (abs(hashint4(i.sequence_id + 5)) % 100 < 40, $6::uuid, to_jsonb('Customer ' || abs(hashint4(i.sequence_id + 6)) % 50),
       'Customer ' || abs(hashint4(i.sequence_id + 6)) % 50, null, null),
    (abs(hashint4(i.sequence_id + 7)) % 100 < 30, $7::uuid, to_jsonb(to_char(i.created_at + interval '14 days', 'YYYY-MM-DD')),
       null, null, date_trunc('day', i.created_at + interval '14 days', 'UTC'))
  ) AS v(present, property_id, value, value_text, value_number, value_date)
  WHERE v.present AND i.project_id = $1 AND i.sequence_id BETWEEN $2 AND $3`;

const LABEL_NAMES = [
  'bug',
  'feature',
  'frontend',
  'backend',
  'ux',
  'performance',
  'security',
  'docs',
  'api',
  'mobile',
  'infra',
  'billing',
  'search',
  'auth',
  'onboarding',
  'reporting',
  'i18n',
  'accessibility',
  'regression',
  'tech-debt',
  'customer',
  'ios',
  'android',
  'export',
  'import',
  'notifications',
  'sso',
  'audit',
  'legacy',
  'design',
];

/** `n` labels of a project as POST .../labels/ writes them, most common (by the seed's Zipf draw) first. */
export async function insertLabels(q: Query, workspaceId: string, projectId: string, n: number, now: Date): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = randomUUID();
    const name = i < LABEL_NAMES.length ? LABEL_NAMES[i]! : `label-${i + 1}`;
    const color = `#${((i * 0x9e3779) & 0xffffff).toString(16).padStart(6, '0')}`;
    await q(
      `insert into labels (id, workspace_id, project_id, name, name_key, color, description, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, '', $7, $7)`,
      [id, workspaceId, projectId, name, name.toLowerCase(), color, now],
    );
    ids.push(id);
  }
  return ids;
}

/** Lower bounds of the ranks 1..n of a Zipf distribution with s = 1 (width_bucket's thresholds: [0, p1, p1+p2, ...]). */
export function zipfBounds(n: number): number[] {
  const weights = Array.from({ length: n }, (_, i) => 1 / (i + 1));
  const sum = weights.reduce((a, w) => a + w, 0);
  const bounds: number[] = [];
  let acc = 0;
  for (const w of weights) {
    bounds.push(acc);
    acc += w / sum;
  }
  return bounds;
}

/** The default SLA policy of a workspace with rules for urgent..low (no rule for "none": not applicable). */
export async function insertDefaultPolicy(q: Query, workspaceId: string, now: Date): Promise<string> {
  const id = randomUUID();
  await q(`insert into sla_policies (id, workspace_id, name, description, is_default, created_at, updated_at) values ($1, $2, 'Standard', '', true, $3, $3)`, [
    id,
    workspaceId,
    now,
  ]);
  for (const [priority, resp, res] of RULES) {
    await q(
      `insert into sla_rules (workspace_id, policy_id, priority, response_time_h, resolution_time_h, response_ms, resolution_ms)
       values ($1, $2, $3, $4, $5, $6, $7)`,
      [workspaceId, id, priority, resp, res, resp * 3_600_000, res * 3_600_000],
    );
  }
  return id;
}

export async function seedWorkspace(q: Query, o: SeedOptions): Promise<SeededProject[]> {
  const { workspaceId: ws, now } = o;
  const members = [o.ownerId];
  for (let n = 0; n < o.members; n++) {
    const id = randomUUID();
    await q(
      `insert into users (id, email, display_name, password_hash, is_instance_admin, created_at, updated_at)
       values ($1, $2, $3, 'bench-no-password', false, $4, $4)`,
      [id, `member${n}.${ws.slice(0, 8)}@bench.example`, `Member ${n}`, now],
    );
    await q(`insert into workspace_members (workspace_id, user_id, role, created_at) values ($1, $2, 'member', $3)`, [ws, id, now]);
    members.push(id);
  }
  const policyId = o.trackers ? await insertDefaultPolicy(q, ws, now) : null;
  const totalIssues = o.projects.reduce((s, p) => s + p.issues, 0);
  const work = totalIssues * (1 + (o.trackers ? 1 : 0) + (o.customValues ? 1.8 : 0) + o.comments);
  const bar = new Progress(o.label, Math.round(work));
  const out: SeededProject[] = [];
  for (const plan of o.projects) {
    const projectId = randomUUID();
    await q(
      `insert into projects (id, workspace_id, name, identifier, description, issue_seq, created_by, created_at, updated_at)
       values ($1, $2, $3, $4, '', $5, $6, $7, $7)`,
      [projectId, ws, `Project ${plan.identifier}`, plan.identifier, plan.issues, o.ownerId, now],
    );
    for (const [index, [name, group, color, isDefault]] of STATES.entries()) {
      await q(
        `insert into states (id, workspace_id, project_id, name, "group", color, sequence, is_default, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)`,
        [randomUUID(), ws, projectId, name, group, color, (index + 1) * 1000, isDefault, now],
      );
    }
    const labels = await insertLabels(q, ws, projectId, o.labels ?? 0, now);
    const zipf = zipfBounds(labels.length);
    const props = { severity: randomUUID(), estimate: randomUUID(), customer: randomUUID(), due: randomUUID() };
    if (o.customValues) {
      const defs: [string, string, string, string[]][] = [
        [props.severity, 'Severity', 'select', ['S1', 'S2', 'S3', 'S4']],
        [props.estimate, 'Estimate', 'number', []],
        [props.customer, 'Customer', 'text', []],
        [props.due, 'Due', 'date', []],
      ];
      for (const [id, name, type, options] of defs) {
        await q(
          `insert into custom_properties (id, workspace_id, project_id, name, name_key, description, type, options, is_required, created_at, updated_at)
           values ($1, $2, $3, $4, $5, '', $6, $7, false, $8, $8)`,
          [id, ws, projectId, name, name.toLowerCase(), type, options, now],
        );
      }
    }
    for (let from = 1; from <= plan.issues; from += CHUNK) {
      const to = Math.min(plan.issues, from + CHUNK - 1);
      const n = to - from + 1;
      await q(ISSUES_SQL, [ws, projectId, o.ownerId, from, to, now, members, plan.issues, labels, zipf]);
      bar.add(n);
      if (policyId) {
        await q(TRACKERS_SQL, [projectId, ws, policyId, from, to]);
        bar.add(n);
      }
      if (o.comments > 0) {
        await q(COMMENTS_SQL, [projectId, from, to, members, o.comments]);
        bar.add(n * o.comments);
      }
      if (o.customValues) {
        await q(VALUES_SQL, [projectId, from, to, props.severity, props.estimate, props.customer, props.due]);
        bar.add(Math.round(n * 1.8));
      }
    }
    out.push({ id: projectId, identifier: plan.identifier, issues: plan.issues, properties: props, labels });
  }
  return out;
}

/** A baseline as POST .../baselines/ writes it (one INSERT ... SELECT of the items, counts from the copied rows). */
export async function insertBaseline(q: Query, ws: string, projectId: string, ownerId: string, now: Date): Promise<string> {
  const id = randomUUID();
  await q(`insert into baselines (id, workspace_id, project_id, name, snapshot_at, created_by, created_at) values ($1, $2, $3, 'Sprint start', $4, $5, $4)`, [
    id,
    ws,
    projectId,
    now,
    ownerId,
  ]);
  // mirrors baselinesRepository().snapshotIssues: the items (with the planning fields of migration 1010), then the
  // counts, planned finish and effort totals from exactly those rows
  await q(
    `INSERT INTO baseline_items (workspace_id, baseline_id, issue_id, sequence_id, name, state_group, priority,
                                 start_date, target_date, estimate_minutes, time_spent_minutes)
     SELECT b.workspace_id, b.id, i.id, i.sequence_id, i.name, i.state_group, i.priority,
            i.start_date, i.target_date, i.estimate_minutes, i.time_spent_minutes
     FROM baselines b JOIN issues i ON i.workspace_id = b.workspace_id AND i.project_id = b.project_id
     WHERE b.id = $3 AND b.workspace_id = $1 AND b.project_id = $2`,
    [ws, projectId, id],
  );
  await q(
    `UPDATE baselines b SET total_issues = c.total, completed_issues = c.completed, state_backlog = c.backlog,
       state_unstarted = c.unstarted, state_started = c.started, state_completed = c.completed, state_cancelled = c.cancelled,
       priority_urgent = c.urgent, priority_high = c.high, priority_medium = c.medium, priority_low = c.low, priority_none = c.none,
       planned_finish = c.planned_finish, total_estimate_minutes = c.estimate, total_time_spent_minutes = c.time_spent
     FROM (SELECT count(*)::int AS total,
             count(*) FILTER (WHERE state_group = 'backlog')::int AS backlog, count(*) FILTER (WHERE state_group = 'unstarted')::int AS unstarted,
             count(*) FILTER (WHERE state_group = 'started')::int AS started, count(*) FILTER (WHERE state_group = 'completed')::int AS completed,
             count(*) FILTER (WHERE state_group = 'cancelled')::int AS cancelled, count(*) FILTER (WHERE priority = 'urgent')::int AS urgent,
             count(*) FILTER (WHERE priority = 'high')::int AS high, count(*) FILTER (WHERE priority = 'medium')::int AS medium,
             count(*) FILTER (WHERE priority = 'low')::int AS low, count(*) FILTER (WHERE priority = 'none')::int AS none,
             max(target_date) FILTER (WHERE state_group <> 'cancelled') AS planned_finish,
             coalesce(sum(estimate_minutes), 0)::bigint AS estimate, coalesce(sum(time_spent_minutes), 0)::bigint AS time_spent
           FROM baseline_items WHERE workspace_id = $1 AND baseline_id = $2) c
     WHERE b.id = $2 AND b.workspace_id = $1`,
    [ws, id],
  );
  return id;
}

/** Moves about 5 % of a project's issues to another priority and state (what a sprint does after its baseline). */
export async function churn(q: Query, projectId: string) {
  await q(
    `UPDATE issues i SET priority = CASE i.priority WHEN 'low' THEN 'high' ELSE 'low' END,
       state_group = s."group", state_id = s.id
     FROM states s WHERE i.project_id = $1 AND i.sequence_id % 20 = 0 AND s.project_id = $1 AND s."group" = 'started'`,
    [projectId],
  );
}
