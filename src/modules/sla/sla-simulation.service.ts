import { DateTime } from 'luxon';
import type { Db } from '../../db/database.js';
import type { Actor } from '../../kernel/actor.js';
import type { Clock } from '../../kernel/clock.js';
import { AppError, invalid, notFound } from '../../kernel/errors.js';
import type { Priority } from '../../kernel/events.js';
import type { IdentityService } from '../identity/index.js';
import { isDate } from './sla.calendar.js';
import { type CompiledCalendar, compileCalendar } from './sla.clock.js';
import { type RuleInput, type RulePriority, targetMs, validateRules } from './sla.domain.js';
import { type SimIssue, type SimPolicy, type SimRule, simulate } from './sla-simulation.logic.js';
import type { SimScope, SlaSimulationRepository } from './sla-simulation.repository.js';
import { pausesOf } from './sla.targets.js';

export interface SlaSimulationDeps {
  db: Db;
  repo: SlaSimulationRepository;
  clock: Clock;
  identity: Pick<IdentityService, 'access'>;
}

export interface SimulateInput {
  policy: { rules: RuleInput[]; calendar_id?: string | null; at_risk_percent?: number | null };
  from: string;
  to: string;
  project_id?: string;
}

export type SlaSimulationService = ReturnType<typeof createSlaSimulationService>;

/** At most this many local days, counting both ends, and this many issues per simulation (contract 20.2). */
export const MAX_SIMULATION_DAYS = 366;
export const MAX_SIMULATION_ISSUES = 100_000;

function fail(errors: { path: string; message: string }[]): never {
  throw new AppError('validation_failed', `${errors[0]!.path} ${errors[0]!.message}`, errors);
}

/** The local dates as instants [start of `from`, start of the day after `to`) in the zone; 400 when out of bounds. */
function rangeOf(from: string, to: string, zone: string): { start: Date; end: Date } {
  if (!isDate(from)) invalidDate('/from');
  if (!isDate(to)) invalidDate('/to');
  const days = DateTime.fromISO(to, { zone: 'UTC' }).diff(DateTime.fromISO(from, { zone: 'UTC' }), 'days').days + 1;
  if (days < 1) throw invalid('/to', 'must not be before from');
  if (days > MAX_SIMULATION_DAYS) throw invalid('/to', `the range is at most ${MAX_SIMULATION_DAYS} days`);
  const start = DateTime.fromISO(from, { zone }).startOf('day');
  const end = DateTime.fromISO(to, { zone }).plus({ days: 1 }).startOf('day');
  return { start: start.toJSDate(), end: end.toJSDate() };
}

function invalidDate(path: string): never {
  throw invalid(path, 'must be a real date YYYY-MM-DD');
}

export function createSlaSimulationService({ db, repo, clock, identity }: SlaSimulationDeps) {
  return {
    /**
     * Replays the issues created in [from, to] under the policy that applies to each now and under the draft, at the
     * moment of the request. Reads only, in one read-only snapshot: nothing is written.
     */
    async simulate(actor: Actor, slug: string, input: SimulateInput) {
      const ws = await identity.access(actor, slug, 'manage');
      const now = clock.now().getTime();
      const ruleErrors = validateRules(input.policy.rules, '/policy/rules');
      if (ruleErrors.length) fail(ruleErrors);
      if (!isDate(input.from)) invalidDate('/from');
      if (!isDate(input.to)) invalidDate('/to');

      const loaded = await db
        .transaction()
        .setIsolationLevel('repeatable read')
        .setAccessMode('read only')
        .execute(async (tx) => {
          // Unknown or another workspace's calendar or project named in the simulation: 404, one answer for both
          // (contract 2, as the outside checks read it). A stored policy's calendar stays a 400 on create (11.2): there
          // it is a field of the resource being written, here a resource the request reads.
          const calendarId = input.policy.calendar_id ?? null;
          if (calendarId && !(await repo.calendarExists(tx, ws.workspaceId, calendarId))) throw notFound('SLA calendar');
          const range = rangeOf(input.from, input.to, await repo.workspaceTimeZone(tx, ws.workspaceId));
          const projectId = input.project_id ?? null;
          if (projectId && !(await repo.projectExists(tx, ws.workspaceId, projectId))) throw notFound('Project');
          const scope: SimScope = { workspaceId: ws.workspaceId, from: range.start, to: range.end, projectId };
          const count = await repo.countIssues(tx, scope);
          if (count > MAX_SIMULATION_ISSUES) {
            throw invalid('/to', `the range holds ${count} issues; a simulation replays at most ${MAX_SIMULATION_ISSUES}: narrow it`);
          }
          const issues = await repo.issues(tx, scope);
          const changes = await repo.priorityChanges(tx, scope);
          const policies = await repo.policies(tx, ws.workspaceId);
          const calendarIds = new Set(policies.map((p) => p.calendar_id).filter((id): id is string => id !== null));
          if (calendarId) calendarIds.add(calendarId);
          const calendars = await repo.calendars(tx, ws.workspaceId, [...calendarIds]);
          return { issues, changes, policies, calendars, calendarId };
        });

      // Each calendar compiled once: its local days are then built once for every issue and both policies.
      const compiled = new Map<string, CompiledCalendar>(loaded.calendars.map((c) => [c.id, compileCalendar(c)]));
      const calendar = (id: string | null) => (id === null ? null : (compiled.get(id) ?? null));
      const current = new Map<string, SimPolicy & { rules: Map<RulePriority, SimRule> }>();
      for (const row of loaded.policies) {
        let p = current.get(row.policy_id);
        if (!p) {
          p = { calendar: calendar(row.calendar_id), atRiskPercent: row.at_risk_percent, rules: new Map() };
          current.set(row.policy_id, p);
        }
        if (row.priority !== null && row.response_ms !== null && row.resolution_ms !== null) {
          p.rules.set(row.priority, { responseMs: row.response_ms, resolutionMs: row.resolution_ms });
        }
      }
      const draft: SimPolicy = {
        calendar: calendar(loaded.calendarId),
        atRiskPercent: input.policy.at_risk_percent === undefined ? 75 : input.policy.at_risk_percent,
        rules: new Map(input.policy.rules.map((r) => [r.priority, { responseMs: targetMs(r.response_time_h), resolutionMs: targetMs(r.resolution_time_h) }])),
      };

      const changesOf = new Map<string, { at: number; from: Priority; to: Priority }[]>();
      for (const c of loaded.changes) {
        const list = changesOf.get(c.issue_id);
        if (list) list.push(c);
        else changesOf.set(c.issue_id, [c]);
      }
      const issues: SimIssue[] = loaded.issues.map((row) => {
        const changes = changesOf.get(row.id) ?? [];
        return {
          id: row.id,
          facts: { createdAt: row.created_at, respondedAt: row.responded_at, resolvedAt: row.resolved_at, pauses: pausesOf(row.pauses ?? []) },
          initialPriority: changes[0]?.from ?? row.priority,
          changes,
          current: row.policy_id === null ? null : (current.get(row.policy_id) ?? null),
        };
      });
      return simulate(issues, draft, now);
    },
  };
}
