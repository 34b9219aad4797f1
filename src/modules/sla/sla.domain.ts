import type { FieldError } from '../../kernel/errors.js';
import type { Priority, StateGroup } from '../../kernel/events.js';

/** Pure SLA rules: validation of policy rules, target arithmetic and breach flags. No I/O. */

export type RulePriority = Exclude<Priority, 'none'>;
export const RULE_PRIORITIES: readonly RulePriority[] = ['urgent', 'high', 'medium', 'low'];

/** Upper bound of a target (about 11.4 years): keeps due times far inside the timestamp range. */
export const MAX_TARGET_HOURS = 100_000;
export const HOUR_IN_MS = 3_600_000;

export interface RuleInput {
  priority: RulePriority;
  response_time_h: number;
  resolution_time_h: number;
}

/** A target in whole milliseconds: the one rounding used for every due time. */
export const targetMs = (hours: number): number => Math.round(hours * HOUR_IN_MS);

/** The groups that count as a response when an issue moves into them. */
export const RESPONDED_GROUPS: ReadonlySet<StateGroup> = new Set(['started', 'completed', 'cancelled']);
/** The groups in which an issue is resolved. */
export const RESOLVED_GROUPS: ReadonlySet<StateGroup> = new Set(['completed', 'cancelled']);

/** Domain checks the schema cannot express: one rule per priority, resolution target not below response target. */
export function validateRules(rules: readonly RuleInput[], basePath = '/rules'): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Map<string, number>();
  rules.forEach((rule, index) => {
    const first = seen.get(rule.priority);
    if (first !== undefined) {
      errors.push({ path: `${basePath}/${index}/priority`, message: `duplicates the rule for ${rule.priority} at ${basePath}/${first}` });
    } else {
      seen.set(rule.priority, index);
    }
    if (rule.resolution_time_h < rule.response_time_h) {
      errors.push({ path: `${basePath}/${index}/resolution_time_h`, message: 'must be greater than or equal to response_time_h' });
    }
  });
  return errors;
}

/** Rules in a stable order: urgent, high, medium, low. */
export const sortRules = <T extends { priority: RulePriority }>(rules: readonly T[]): T[] =>
  [...rules].sort((a, b) => RULE_PRIORITIES.indexOf(a.priority) - RULE_PRIORITIES.indexOf(b.priority));

export interface TrackerTimes {
  response_due_at: Date;
  resolution_due_at: Date;
  responded_at: Date | null;
  resolved_at: Date | null;
}

/**
 * Breach flags are facts about time at the moment of the read: a target is breached when it was met late, or when it
 * is not met yet and `now` is past it.
 */
export function breachFlags(t: TrackerTimes, now: Date): { response_breached: boolean; resolution_breached: boolean } {
  const late = (due: Date, done: Date | null) => (done ? done.getTime() > due.getTime() : now.getTime() > due.getTime());
  return {
    response_breached: late(t.response_due_at, t.responded_at),
    resolution_breached: late(t.resolution_due_at, t.resolved_at),
  };
}
