import type { Db, Executor } from '../../db/database.js';
import type { Actor } from '../../kernel/actor.js';
import type { Clock } from '../../kernel/clock.js';
import { AppError, notFound } from '../../kernel/errors.js';
import type { IdentityService } from '../identity/index.js';
import type { CompiledCalendar } from './sla.clock.js';
import { pausesOf, type TrackerFacts } from './sla.targets.js';
import { isPeriodGroup, reportPeriods, type ReportGroup, validateRange, workingSeconds } from './sla-reports.logic.js';
import type { ReportKey, SlaReportsRepository } from './sla-reports.repository.js';
import { reportView } from './sla-reports.views.js';

export interface SlaReportsDeps {
  db: Db;
  repo: SlaReportsRepository;
  clock: Clock;
  identity: Pick<IdentityService, 'access'>;
}

export interface ReportQueryInput {
  from: string;
  to: string;
  group_by: ReportGroup;
  project_id?: string;
  priority?: 'urgent' | 'high' | 'medium' | 'low';
  policy_id?: string;
}

export type SlaReportsService = ReturnType<typeof createSlaReportsService>;

/** The SLA reports (contract 20.1): read only the outcomes the tracker writes keep on the trackers' indexes. */
export function createSlaReportsService({ db, repo, identity }: SlaReportsDeps) {
  return {
    async report(actor: Actor, slug: string, query: ReportQueryInput) {
      // Admins and members: a guest reads trackers, not the team's record.
      const ws = await identity.access(actor, slug, 'write_items');
      const errors = validateRange(query.from, query.to);
      if (errors.length) throw new AppError('validation_failed', `${errors[0]!.path} ${errors[0]!.message}`, errors);
      // A filter naming a project or policy that is not this workspace's (unknown, or another workspace's: the same
      // answer, so nothing is revealed) is a 404, as for any resource of another workspace (contract 2).
      if (query.project_id !== undefined && !(await repo.projectExists(db, ws.workspaceId, query.project_id))) throw notFound('Project');
      if (query.policy_id !== undefined && !(await repo.policyExists(db, ws.workspaceId, query.policy_id))) throw notFound('SLA policy');

      const timeZone = await repo.workspaceTimeZone(db, ws.workspaceId);
      const periods = reportPeriods(query.from, query.to, timeZone, query.group_by);
      const key: ReportKey = isPeriodGroup(query.group_by) ? 'period' : query.group_by;
      const cells = await db.transaction().execute((tx) =>
        repo.reportCells(tx, {
          workspaceId: ws.workspaceId,
          start: periods.start,
          end: periods.end,
          key,
          bounds: periods.bounds,
          ...(query.project_id !== undefined && { projectId: query.project_id }),
          ...(query.priority !== undefined && { priority: query.priority }),
          ...(query.policy_id !== undefined && { policyId: query.policy_id }),
        }),
      );
      const keys = [...new Set(cells.flatMap((c) => (c.key === null ? [] : [c.key])))];
      const labels =
        key === 'project' ? await repo.projectLabels(db, ws.workspaceId, keys) : key === 'policy' ? await repo.policyLabels(db, ws.workspaceId, keys) : [];
      return reportView(query, timeZone, periods.periods, cells, new Map(labels.map((l) => [l.id, l.label])));
    },
  };
}

/** Compiled calendars of rows (the re-targeter's cache, keyed by id and version). */
export type CalendarsOf = (
  tx: Executor,
  rows: readonly { calendar_id: string | null; calendar_version: number | null }[],
  workspaceIds: string[],
) => Promise<Map<string, CompiledCalendar>>;

const BATCH = 500;

/**
 * The sla.events duty's part in the reports: a target breached by the passing of time (no tracker write since) is
 * recorded as breached at its due instant within one run of the duty (every SLA_EVENTS_INTERVAL_MS, 5 s by default),
 * and outcomes whose working seconds are not known yet (trackers written before migration 1040) get them from the
 * clock. Rows are claimed with SKIP LOCKED, so any number of instances run it side by side; both queues are empty in
 * the steady state. Returns how many targets it recorded.
 */
export function createOutcomeRecorder({ db, repo, clock, calendarsOf }: { db: Db; repo: SlaReportsRepository; clock: Clock; calendarsOf: CalendarsOf }) {
  async function recordBreaches(): Promise<number> {
    let recorded = 0;
    for (const target of repo.targets) {
      for (;;) {
        const n = await db.transaction().execute((tx) => repo.recordBreaches(tx, target, clock.now(), BATCH));
        recorded += n;
        if (n < BATCH) break;
      }
    }
    return recorded;
  }

  async function fillSeconds(): Promise<number> {
    let filled = 0;
    for (;;) {
      const n = await db.transaction().execute(async (tx) => {
        const rows = await repo.claimSecondsTodo(tx, BATCH);
        if (!rows.length) return 0;
        const calendars = await calendarsOf(
          tx,
          rows,
          rows.map((r) => r.workspace_id),
        );
        const writes = rows.map((row) => {
          const facts: TrackerFacts = { createdAt: row.created_at, respondedAt: row.responded_at, resolvedAt: row.resolved_at, pauses: pausesOf(row.pauses) };
          const calendar = row.calendar_id ? (calendars.get(row.calendar_id) ?? null) : null;
          return {
            id: row.id,
            response: row.response_todo && row.responded_at !== null ? workingSeconds(calendar, facts, row.responded_at) : null,
            resolution: row.resolution_todo && row.resolved_at !== null ? workingSeconds(calendar, facts, row.resolved_at) : null,
          };
        });
        await repo.writeSeconds(tx, writes);
        return rows.length;
      });
      filled += n;
      if (n < BATCH) return filled;
    }
  }

  return {
    async run(): Promise<number> {
      return (await recordBreaches()) + (await fillSeconds());
    },
  };
}
