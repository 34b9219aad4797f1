import type { Priority } from '../../kernel/events.js';
import type { CompiledCalendar } from './sla.clock.js';
import { RULE_PRIORITIES, type RulePriority } from './sla.domain.js';
import { settledView, storedTarget, TARGETS, type TargetName, targetView, type TrackerFacts, type TrackerRule } from './sla.targets.js';

/**
 * Policy simulation (contract 20.2) as pure functions: no I/O, no ambient time. Every issue is replayed under a policy
 * with the trackers' own clock (`storedTarget`, `settledView`, `targetView` of sla.targets.ts), so that simulating the
 * policy that applies now gives exactly what the trackers show, and a draft is measured the same way.
 *
 * Which rule decides a target follows the trackers' re-targeting (sla.retarget.ts): an open target follows the rule of
 * the issue's priority now; a met target keeps the rule of the moment it was met (met targets never change), unless
 * the issue later lost every rule (a priority without one), in which case it took the rule of the priority that made
 * a rule apply again. No rule for the priority now: the issue has no tracker under that policy.
 */

export type Outcome = 'met' | 'breached' | 'open';

export interface SimRule {
  responseMs: number;
  resolutionMs: number;
}

export interface SimPolicy {
  calendar: CompiledCalendar | null;
  atRiskPercent: number | null;
  rules: ReadonlyMap<RulePriority, SimRule>;
}

export interface SimIssue {
  id: string;
  facts: TrackerFacts;
  /** priority at creation */
  initialPriority: Priority;
  /** priority changes, oldest first (`at` in epoch milliseconds) */
  changes: readonly { at: number; to: Priority }[];
  /** the policy that applies to the issue now (null: none) */
  current: SimPolicy | null;
}

export interface Block {
  met: number;
  breached: number;
  open: number;
  achievement_percent: number | null;
}

export interface TargetBlocks {
  response: Block;
  resolution: Block;
}

export interface ChangedItem {
  issue_id: string;
  target: TargetName;
  current: Outcome;
  draft: Outcome;
}

export interface SimulationResult {
  issues: number;
  current: TargetBlocks;
  draft: TargetBlocks;
  by_priority: { priority: RulePriority; current: TargetBlocks; draft: TargetBlocks }[];
  changed: { total: number; items: ChangedItem[] };
}

export const MAX_CHANGED_ITEMS = 100;

const hasRule = (policy: SimPolicy, p: Priority): p is RulePriority => p !== 'none' && policy.rules.has(p);

/**
 * The priority whose rule decides the target under `policy`, or null when the issue has no tracker under it.
 * `stop` is when the target was met (null: open). Changes at the very instant of the stop count as made with it
 * (one PATCH that resolves and re-prioritises: the trackers apply the new priority to the resolution).
 */
export function basisPriority(issue: SimIssue, policy: SimPolicy, stop: number | null): RulePriority | null {
  const segments = [{ from: issue.facts.createdAt, priority: issue.initialPriority }, ...issue.changes.map((c) => ({ from: c.at, priority: c.to }))];
  const now = segments[segments.length - 1]!.priority;
  if (!hasRule(policy, now)) return null;
  if (stop === null) return now;
  // The start of the last stretch during which a rule applied without a gap: a met target is (re)settled then at the latest.
  let k = segments.length - 1;
  while (k > 0 && hasRule(policy, segments[k - 1]!.priority)) k--;
  const settledAt = Math.max(stop, segments[k]!.from);
  let priority = segments[0]!.priority;
  for (const s of segments) {
    if (s.from > settledAt) break;
    priority = s.priority;
  }
  return priority as RulePriority;
}

/** The outcome of a target at `now`, exactly as the tracker shows it: met and breached flags from the tracker's clock. */
export function targetOutcome(facts: TrackerFacts, rule: TrackerRule, target: TargetName, now: number): Outcome {
  const stop = target === 'response' ? facts.respondedAt : facts.resolvedAt;
  // A met target is shown from what it stored when it was met (settledView); an open one from the clock at the read.
  if (stop !== null) return settledView(storedTarget(facts, rule, target, now)).breached ? 'breached' : 'met';
  return targetView(facts, rule, target, now).breached ? 'breached' : 'open';
}

/** The outcome of one target of an issue under a policy, and the priority that decided it; null: no tracker. */
export function replayTarget(issue: SimIssue, policy: SimPolicy | null, target: TargetName, now: number): { outcome: Outcome; priority: RulePriority } | null {
  if (!policy) return null;
  const stop = target === 'response' ? issue.facts.respondedAt : issue.facts.resolvedAt;
  const priority = basisPriority(issue, policy, stop);
  if (priority === null) return null;
  const r = policy.rules.get(priority)!;
  const rule: TrackerRule = { calendar: policy.calendar, responseMs: r.responseMs, resolutionMs: r.resolutionMs, atRiskPercent: policy.atRiskPercent };
  return { outcome: targetOutcome(issue.facts, rule, target, now), priority };
}

/** `met / (met + breached) * 100`, one decimal; null when both are 0 (as in the SLA reports, contract 20.1). */
export const achievementPercent = (met: number, breached: number): number | null =>
  met + breached === 0 ? null : Math.round((met / (met + breached)) * 1000) / 10;

interface Counts {
  met: number;
  breached: number;
  open: number;
}
const zero = (): Counts => ({ met: 0, breached: 0, open: 0 });
const block = (c: Counts): Block => ({ ...c, achievement_percent: achievementPercent(c.met, c.breached) });
type Tally = Record<TargetName, Counts>;
const tally = (): Tally => ({ response: zero(), resolution: zero() });
const blocks = (t: Tally): TargetBlocks => ({ response: block(t.response), resolution: block(t.resolution) });

/** Replays every issue under the policy that applies to it now and under the draft, at `now`. */
export function simulate(issues: readonly SimIssue[], draft: SimPolicy, now: number): SimulationResult {
  const totals = { current: tally(), draft: tally() };
  const perPriority = new Map(RULE_PRIORITIES.map((p) => [p, { current: tally(), draft: tally() }]));
  const items: ChangedItem[] = [];
  let changed = 0;
  for (const issue of issues) {
    for (const target of TARGETS) {
      const a = replayTarget(issue, issue.current, target, now);
      const b = replayTarget(issue, draft, target, now);
      if (a) {
        totals.current[target][a.outcome]++;
        perPriority.get(a.priority)!.current[target][a.outcome]++;
      }
      if (b) {
        totals.draft[target][b.outcome]++;
        perPriority.get(b.priority)!.draft[target][b.outcome]++;
      }
      // Only targets measured under both count as changed; one measured under a single side shows in the blocks.
      if (a && b && a.outcome !== b.outcome) {
        changed++;
        if (items.length < MAX_CHANGED_ITEMS) items.push({ issue_id: issue.id, target, current: a.outcome, draft: b.outcome });
      }
    }
  }
  return {
    issues: issues.length,
    current: blocks(totals.current),
    draft: blocks(totals.draft),
    by_priority: RULE_PRIORITIES.map((priority) => {
      const t = perPriority.get(priority)!;
      return { priority, current: blocks(t.current), draft: blocks(t.draft) };
    }),
    changed: { total: changed, items },
  };
}
