import { type ClockInput, type CompiledCalendar, HORIZON_MS, type Pause, slaClock, slaInstants } from './sla.clock.js';

/**
 * What a tracker stores and shows, from its facts and the working-time clock (contract 11.3). Pure: no I/O.
 *
 * Stored per target (the write path, re-targeting):
 * - `due_at`: when the clock reaches the target, given the history and no further pause;
 * - `risk_at`: when it reaches the at-risk share, `breach_at`: when it exceeds the target. Instants already passed are
 *   facts and kept; future ones hold while nothing changes (every change re-targets), so they are null while the
 *   issue is paused (a paused clock reaches nothing) and once the target is met (after its stop it counts no more).
 * Shown (the read path): the same clock at the moment of the read, so a paused tracker's due instants are projected
 * as if the pause ended now, and remaining time is exact to the second.
 */

export type TargetName = 'response' | 'resolution';
export const TARGETS: readonly TargetName[] = ['response', 'resolution'];

export interface TrackerFacts {
  createdAt: number;
  respondedAt: number | null;
  resolvedAt: number | null;
  pauses: readonly Pause[];
}

export interface TrackerRule {
  calendar: CompiledCalendar | null;
  responseMs: number;
  resolutionMs: number;
  atRiskPercent: number | null;
}

export interface StoredTarget {
  due_at: number;
  risk_at: number | null;
  breach_at: number | null;
}

export interface TargetView {
  due_at: number;
  breached: boolean;
  remaining_seconds: number | null;
  at_risk: boolean;
}

/** Pauses as stored: `[[from_ms, to_ms | null], ...]`. */
export type StoredPauses = [number, number | null][];
export const pausesOf = (stored: StoredPauses): Pause[] => stored.map(([from, to]) => ({ from, to }));

/** In a pausing state (an open pause) and not resolved. */
export const isPaused = (facts: TrackerFacts): boolean => facts.resolvedAt === null && facts.pauses.some((p) => p.to === null);

const stopOf = (facts: TrackerFacts, target: TargetName) => (target === 'response' ? facts.respondedAt : facts.resolvedAt);
const targetMsOf = (rule: TrackerRule, target: TargetName) => (target === 'response' ? rule.responseMs : rule.resolutionMs);

function clockInput(facts: TrackerFacts, rule: TrackerRule, target: TargetName, now: number): ClockInput {
  const stop = stopOf(facts, target);
  return {
    calendar: rule.calendar,
    targetMs: targetMsOf(rule, target),
    atRiskPercent: rule.atRiskPercent,
    start: facts.createdAt,
    stop,
    // a pause never counts once the clock has stopped; a paused clock that stopped is simply stopped
    pauses: facts.pauses,
    now: stop ?? now,
  };
}

/** The instants a target keeps, computed at `now` (see the module comment). */
export function storedTarget(facts: TrackerFacts, rule: TrackerRule, target: TargetName, now: number): StoredTarget {
  const stop = stopOf(facts, target);
  const paused = stop === null && isPaused(facts);
  const c = slaInstants(clockInput(facts, rule, target, now));
  // An instant is kept when it has happened (before the stop, or before now while paused), or when it still lies
  // ahead of a running clock.
  const limit = stop ?? (paused ? now : Infinity);
  const keep = (at: number | null, strict: boolean) => (at !== null && (strict ? at < limit : at <= limit) ? at : null);
  return {
    due_at: c.due_at ?? facts.createdAt + HORIZON_MS,
    risk_at: keep(c.at_risk_at, false),
    // counted > target only strictly after the breach instant: met exactly at it is in time
    breach_at: keep(c.breach_at, true),
  };
}

/** A target as the API shows it at `now`. */
export function targetView(facts: TrackerFacts, rule: TrackerRule, target: TargetName, now: number): TargetView {
  const c = slaClock(clockInput(facts, rule, target, now));
  return {
    due_at: c.due_at ?? facts.createdAt + HORIZON_MS,
    breached: c.breached,
    remaining_seconds: c.remaining_seconds,
    at_risk: c.at_risk,
  };
}

/** A met target whose values were settled: shown from what it stored, never recomputed. */
export const settledView = (stored: StoredTarget): TargetView => ({
  due_at: stored.due_at,
  breached: stored.breach_at !== null,
  remaining_seconds: null,
  at_risk: false,
});
