import type { Executor } from '../../db/database.js';
import { type CompiledCalendar, compileCalendar } from './sla.clock.js';
import type { SlaRepository } from './sla.repository.js';
import { isPaused, pausesOf, storedTarget, type TargetName, type TrackerFacts, type TrackerRule } from './sla.targets.js';
import type { RetargetRow, RetargetScope, TrackerWrite } from './sla.trackers.repository.js';
import { NO_OUTCOME, type TargetOutcome, targetOutcome } from './sla-reports.logic.js';

/**
 * Re-targeting (contract 11.3): brings trackers in line with the policy, rule, calendar and history that apply now,
 * in the transaction of the change. Set-based: the scope is read in batches of BATCH rows (the first by one query,
 * the rest through a cursor), the clock runs in process, and each batch's changed rows are written back in one
 * statement. Instants travel as epoch milliseconds both ways.
 */
const BATCH = 2000;
const CALENDAR_CACHE = 500;

/** `[due, risk, breach]` of a target as stored, in epoch milliseconds. */
type Instants = { due_at: number | null; risk_at: number | null; breach_at: number | null };

const storedOf = (row: RetargetRow, t: TargetName): Instants =>
  t === 'response'
    ? { due_at: row.response_due_at, risk_at: row.response_risk_at, breach_at: row.response_breach_at }
    : { due_at: row.resolution_due_at, risk_at: row.resolution_risk_at, breach_at: row.resolution_breach_at };

export const factsOf = (row: { created_at: Date; responded_at: Date | null; resolved_at: Date | null; pauses: [number, number | null][] }): TrackerFacts => ({
  createdAt: row.created_at.getTime(),
  respondedAt: row.responded_at?.getTime() ?? null,
  resolvedAt: row.resolved_at?.getTime() ?? null,
  pauses: pausesOf(row.pauses),
});

/**
 * What a tracker must store now. A met target whose values were settled keeps them (met targets never change); any
 * other is computed by the clock. An event already recorded for a crossing stays recorded while the threshold is still
 * crossed; a threshold that moved ahead of now is re-armed. `catchUp` (first re-targeting after the upgrade) records
 * every crossing already passed as sent.
 */
export function retargeted(row: RetargetRow, calendar: CompiledCalendar | null, now: Date, catchUp = false): TrackerWrite {
  // Re-targeting reads and writes instants as epoch milliseconds: no Date objects for 100,000 trackers.
  const facts: TrackerFacts = { createdAt: row.created_at, respondedAt: row.responded_at, resolvedAt: row.resolved_at, pauses: pausesOf(row.pauses) };
  const base = { id: row.id, paused: isPaused(facts) };
  if (row.rule_policy_id === null || row.response_ms === null || row.resolution_ms === null) {
    return {
      ...base,
      policy_id: null,
      priority: null,
      response_due_at: null,
      response_risk_at: null,
      response_breach_at: null,
      resolution_due_at: null,
      resolution_risk_at: null,
      resolution_breach_at: null,
      response_settled: false,
      resolution_settled: false,
      response_risk_sent: false,
      response_breach_sent: false,
      resolution_risk_sent: false,
      resolution_breach_sent: false,
      ...outcomeColumns(NO_OUTCOME, NO_OUTCOME),
    };
  }
  const rule: TrackerRule = { calendar, responseMs: row.response_ms, resolutionMs: row.resolution_ms, atRiskPercent: row.at_risk_percent };
  const at = now.getTime();
  const crossed = (instant: number | null) => instant !== null && instant <= at;
  const rearm = (sent: boolean, instant: number | null) => (catchUp || sent) && crossed(instant);

  const target = (t: TargetName, settled: boolean, riskSent: boolean, breachSent: boolean) => {
    const met = (t === 'response' ? facts.respondedAt : facts.resolvedAt) !== null;
    let v: Instants;
    // the reports' outcome (sla-reports.logic.ts): kept with a settled target, else from the instants just computed
    let o: TargetOutcome;
    if (met && settled && row.policy_id !== null) {
      v = storedOf(row, t);
      o = storedOutcomeOf(row, t);
    } else {
      v = storedTarget(facts, rule, t, at);
      o = targetOutcome(facts, calendar, t, v, at);
    }
    return { v, o, settled: met, riskSent: rearm(riskSent, v.risk_at), breachSent: rearm(breachSent, v.breach_at) };
  };
  const r = target('response', row.response_settled, row.response_risk_sent, row.response_breach_sent);
  const s = target('resolution', row.resolution_settled, row.resolution_risk_sent, row.resolution_breach_sent);
  return {
    ...base,
    policy_id: row.rule_policy_id,
    priority: row.rule_priority,
    response_due_at: r.v.due_at,
    response_risk_at: r.v.risk_at,
    response_breach_at: r.v.breach_at,
    resolution_due_at: s.v.due_at,
    resolution_risk_at: s.v.risk_at,
    resolution_breach_at: s.v.breach_at,
    response_settled: r.settled,
    resolution_settled: s.settled,
    response_risk_sent: r.riskSent,
    response_breach_sent: r.breachSent,
    resolution_risk_sent: s.riskSent,
    resolution_breach_sent: s.breachSent,
    ...outcomeColumns(r.o, s.o),
  };
}

const storedOutcomeOf = (row: RetargetRow, t: TargetName): TargetOutcome =>
  t === 'response'
    ? { outcome: row.response_outcome, outcome_at: row.response_outcome_at, outcome_seconds: row.response_outcome_seconds }
    : { outcome: row.resolution_outcome, outcome_at: row.resolution_outcome_at, outcome_seconds: row.resolution_outcome_seconds };

const outcomeColumns = (r: TargetOutcome, s: TargetOutcome) => ({
  response_outcome: r.outcome,
  response_outcome_at: r.outcome_at,
  response_outcome_seconds: r.outcome_seconds,
  resolution_outcome: s.outcome,
  resolution_outcome_at: s.outcome_at,
  resolution_outcome_seconds: s.outcome_seconds,
});

/** Whether the write changes anything stored (rows already right are not written). */
export function changes(row: RetargetRow, w: TrackerWrite): boolean {
  return (
    row.policy_id !== w.policy_id ||
    row.priority !== w.priority ||
    row.response_due_at !== w.response_due_at ||
    row.response_risk_at !== w.response_risk_at ||
    row.response_breach_at !== w.response_breach_at ||
    row.resolution_due_at !== w.resolution_due_at ||
    row.resolution_risk_at !== w.resolution_risk_at ||
    row.resolution_breach_at !== w.resolution_breach_at ||
    row.paused !== w.paused ||
    row.response_settled !== w.response_settled ||
    row.resolution_settled !== w.resolution_settled ||
    row.response_risk_sent !== w.response_risk_sent ||
    row.response_breach_sent !== w.response_breach_sent ||
    row.resolution_risk_sent !== w.resolution_risk_sent ||
    row.resolution_breach_sent !== w.resolution_breach_sent ||
    row.response_outcome !== w.response_outcome ||
    row.response_outcome_at !== w.response_outcome_at ||
    row.response_outcome_seconds !== w.response_outcome_seconds ||
    row.resolution_outcome !== w.resolution_outcome ||
    row.resolution_outcome_at !== w.resolution_outcome_at ||
    row.resolution_outcome_seconds !== w.resolution_outcome_seconds
  );
}

export type Retargeter = ReturnType<typeof createRetargeter>;

/** `batch`: trackers per read and write (tests lower it to walk the cursor path with a few trackers). */
export function createRetargeter(repo: SlaRepository, { batch = BATCH }: { batch?: number } = {}) {
  // Compiled calendars by id and version: every calendar edit bumps the version, so a stale entry is never used (and
  // another instance's edit is seen at once, since every read carries the version).
  const cache = new Map<string, CompiledCalendar>();
  // Cursor names, unique within the process (a transaction may re-target more than one scope).
  let cursors = 0;

  /** The compiled calendars the rows name, loading those not cached. */
  async function calendarsOf(
    tx: Executor,
    rows: readonly { calendar_id: string | null; calendar_version: number | null }[],
    workspaceIds: string[],
  ): Promise<Map<string, CompiledCalendar>> {
    const out = new Map<string, CompiledCalendar>();
    const missing = new Set<string>();
    for (const row of rows) {
      if (!row.calendar_id || row.calendar_version === null || out.has(row.calendar_id)) continue;
      const hit = cache.get(`${row.calendar_id}@${row.calendar_version}`);
      if (hit) out.set(row.calendar_id, hit);
      else missing.add(row.calendar_id);
    }
    if (missing.size) {
      for (const c of await repo.calendarsForClock(tx, [...new Set(workspaceIds)], [...missing])) {
        const compiled = compileCalendar(c);
        if (cache.size >= CALENDAR_CACHE) cache.clear();
        cache.set(`${c.id}@${c.version}`, compiled);
        out.set(c.id, compiled);
      }
    }
    return out;
  }

  return {
    calendarsOf,

    /**
     * Re-targets every tracker of the scope; returns how many rows changed. The first batch is one query (the common
     * case: one issue, a small project); a scope larger than a batch reads the rest through a cursor. Must run in a
     * transaction.
     */
    async retarget(tx: Executor, workspaceId: string, scope: RetargetScope, now: Date, options: { catchUp?: boolean } = {}) {
      const compute = async (rows: RetargetRow[]) => {
        const calendars = await calendarsOf(tx, rows, [workspaceId]);
        const writes: TrackerWrite[] = [];
        for (const row of rows) {
          const w = retargeted(row, row.calendar_id ? (calendars.get(row.calendar_id) ?? null) : null, now, options.catchUp);
          if (changes(row, w)) writes.push(w);
        }
        return writes;
      };
      const first = await repo.retargetBatch(tx, workspaceId, scope, null, batch);
      if (first.length < batch) {
        const writes = await compute(first);
        await repo.writeTrackers(tx, workspaceId, writes, now);
        return writes.length;
      }
      const cursor = `sla_retarget_${++cursors}`;
      await repo.openRetargetCursor(tx, cursor, workspaceId, scope, first[first.length - 1]!.id);
      // One batch ahead: the next batch is fetched before this one's write is sent, so the database writes batch k
      // while the clock computes batch k + 1 (the connection runs its statements in the order they were sent).
      let changed = 0;
      let rows = first;
      let writing: Promise<void> = Promise.resolve();
      try {
        for (;;) {
          const writes = await compute(rows);
          changed += writes.length;
          const next = rows.length < batch ? null : repo.fetchRetargetCursor(tx, cursor, batch);
          // Both are awaited below (an error is rethrown there); these only keep them from counting as unhandled
          // rejections while the other is awaited.
          next?.catch(() => undefined);
          await writing;
          writing = repo.writeTrackers(tx, workspaceId, writes, now);
          writing.catch(() => undefined);
          if (!next) break;
          rows = await next;
          if (!rows.length) break;
        }
      } catch (error) {
        // A failed write fails the fetch queued behind it: report the write's own error.
        await writing;
        throw error;
      }
      await writing;
      // On an error the transaction rolls back, which drops the cursor with it.
      await repo.closeCursor(tx, cursor);
      return changed;
    },
  };
}
