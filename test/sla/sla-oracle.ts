/**
 * The test oracle: what every SLA tracker must be, recomputed from scratch from the full history of a workspace.
 * Written independently of the service (no SQL, no shared code), and used only by the property-based test.
 */
export type Priority = 'urgent' | 'high' | 'medium' | 'low' | 'none';
export type Group = 'backlog' | 'unstarted' | 'started' | 'completed' | 'cancelled';
export interface OracleRule {
  priority: Priority;
  response_time_h: number;
  resolution_time_h: number;
}

export type Entry =
  | { kind: 'created'; t: number; issue: number; project: number; priority: Priority; group: Group }
  | { kind: 'priority'; t: number; issue: number; priority: Priority }
  | { kind: 'state'; t: number; issue: number; group: Group }
  | { kind: 'comment'; t: number; issue: number; byCreator: boolean }
  | { kind: 'projectPolicy'; t: number; project: number; policy: number | null }
  | { kind: 'rules'; t: number; policy: number; rules: OracleRule[] }
  | { kind: 'default'; t: number; policy: number | null };

export interface Expected {
  policy: number;
  created_at: number;
  priority: Priority;
  response_due_at: number;
  resolution_due_at: number;
  responded_at: number | null;
  resolved_at: number | null;
}

interface World {
  rules: Map<number, OracleRule[]>;
  defaultPolicy: number | null;
  projectPolicy: Map<number, number | null>;
  issues: Map<number, { project: number; priority: Priority; group: Group; createdAt: number }>;
}

function worldAfter(log: Entry[], last: number): World {
  const w: World = { rules: new Map(), defaultPolicy: null, projectPolicy: new Map(), issues: new Map() };
  for (const e of log.slice(0, last + 1)) {
    if (e.kind === 'created') w.issues.set(e.issue, { project: e.project, priority: e.priority, group: e.group, createdAt: e.t });
    if (e.kind === 'priority') w.issues.get(e.issue)!.priority = e.priority;
    if (e.kind === 'state') w.issues.get(e.issue)!.group = e.group;
    if (e.kind === 'projectPolicy') w.projectPolicy.set(e.project, e.policy);
    if (e.kind === 'rules') w.rules.set(e.policy, e.rules);
    if (e.kind === 'default') w.defaultPolicy = e.policy;
  }
  return w;
}

function applicable(w: World, issue: number): { policy: number; rule: OracleRule } | null {
  const i = w.issues.get(issue);
  if (!i) return null;
  const policy = w.projectPolicy.get(i.project) ?? w.defaultPolicy;
  if (policy === null) return null;
  const rule = (w.rules.get(policy) ?? []).find((r) => r.priority === i.priority);
  return rule ? { policy, rule } : null;
}

const isResponse = (g: Group) => g === 'started' || g === 'completed' || g === 'cancelled';
const isResolved = (g: Group) => g === 'completed' || g === 'cancelled';

export function expectedTracker(log: Entry[], issue: number): Expected | null {
  const end = log.length - 1;
  const created = log.findIndex((e) => e.kind === 'created' && e.issue === issue);
  const creation = log[created] as Extract<Entry, { kind: 'created' }>;

  // The facts: the first response ever, and the start of the current resolution.
  let respondedAt: number | null = null;
  let respondedIndex = -1;
  let resolvedSince: number | null = null;
  let resolvedIndex = -1;
  const respond = (t: number, k: number) => {
    if (respondedAt !== null) return;
    respondedAt = t;
    respondedIndex = k;
  };
  for (const [k, e] of log.entries()) {
    if (!('issue' in e) || e.issue !== issue) continue;
    if (e.kind === 'created' || e.kind === 'state') {
      if (isResponse(e.group)) respond(e.t, k);
      if (!isResolved(e.group)) resolvedSince = null;
      else if (resolvedSince === null) {
        resolvedSince = e.t;
        resolvedIndex = k;
      }
    }
    if (e.kind === 'comment' && !e.byCreator) respond(e.t, k);
  }

  const now = applicable(worldAfter(log, end), issue);
  if (!now) return null;
  // An open tracker follows the rule that applies now. A resolved one keeps what applied when it was resolved, or
  // when a rule last started to apply while it was resolved.
  // Met targets never change (contract 11.3): a met target keeps the rule of the moment it was met, likewise.
  let lastWithout = created - 1;
  for (let k = created; k <= end; k++) if (!applicable(worldAfter(log, k), issue)) lastWithout = k;
  const basisAt = (metIndex: number | null) => applicable(worldAfter(log, metIndex === null ? end : Math.max(metIndex, lastWithout + 1)), issue)!;
  const basis = basisAt(resolvedSince !== null ? resolvedIndex : null);
  const responseBasis = basisAt(respondedAt !== null ? respondedIndex : null);
  return {
    policy: basis.policy,
    priority: basis.rule.priority,
    response_due_at: creation.t + Math.round(responseBasis.rule.response_time_h * 3_600_000),
    resolution_due_at: creation.t + Math.round(basis.rule.resolution_time_h * 3_600_000),
    created_at: creation.t,
    responded_at: respondedAt,
    resolved_at: resolvedSince,
  };
}

/** Breach flags and the instant of the first breach, at `now`. */
export function expectedBreach(e: Expected, now: number) {
  const late = (due: number, done: number | null) => (done === null ? now > due : done > due);
  const candidates = [
    e.responded_at === null || e.responded_at > e.response_due_at ? e.response_due_at : null,
    e.resolved_at === null || e.resolved_at > e.resolution_due_at ? e.resolution_due_at : null,
  ].filter((x): x is number => x !== null);
  // No calendar and no pausing state here: the clocks count all time since the creation; at-risk share 75%.
  const remaining = (due: number, done: number | null) => (done === null ? Math.trunc((due - now) / 1000) || 0 : null);
  const atRisk = (due: number, done: number | null) => {
    const target = due - e.created_at;
    const counted = now - e.created_at;
    return done === null && counted <= target && counted >= Math.ceil((target * 75) / 100);
  };
  return {
    response_breached: late(e.response_due_at, e.responded_at),
    resolution_breached: late(e.resolution_due_at, e.resolved_at),
    response_remaining_seconds: remaining(e.response_due_at, e.responded_at),
    resolution_remaining_seconds: remaining(e.resolution_due_at, e.resolved_at),
    at_risk: atRisk(e.response_due_at, e.responded_at) || atRisk(e.resolution_due_at, e.resolved_at),
    breachAt: candidates.length ? Math.min(...candidates) : null,
  };
}
