import type { Actor } from '../../kernel/actor.js';
import { notFound } from '../../kernel/errors.js';
import type { ForecastDeps } from './forecast.deps.js';
import { DEFAULT_WEEKS, forecastOf, localDate, throughputSeries, throughputWindow } from './forecast.logic.js';

export type ForecastService = ReturnType<typeof createForecastService>;

/**
 * When will the open issues of a project be done (contract 18.5): Monte-Carlo runs over the project's weekly
 * throughput, read from the issue history. A read: every member, guests included, on every plan.
 */
export function createForecastService(deps: ForecastDeps) {
  const { db, repo, clock, identity, workItems } = deps;

  return {
    async forecast(actor: Actor, slug: string, projectId: string, query: { weeks?: number; baseline_id?: string }) {
      const ws = await identity.access(actor, slug, 'read');
      const weeks = query.weeks ?? DEFAULT_WEEKS;
      const now = clock.now();
      // One snapshot for every read, so the counts, the throughput and the seed made from them describe one instant.
      const data = await db
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute(async (tx) => {
          await workItems.findProject(tx, ws.workspaceId, projectId);
          const baseline = query.baseline_id === undefined ? undefined : await repo.baselineOfProject(tx, ws.workspaceId, projectId, query.baseline_id);
          if (query.baseline_id !== undefined && !baseline) throw notFound('Baseline');
          const timeZone = await repo.workspaceTimeZone(tx, ws.workspaceId);
          const window = throughputWindow(now, timeZone, weeks);
          const project = await repo.projectNow(tx, ws.workspaceId, projectId);
          const counted = await repo.weeklyCompletions(tx, { workspaceId: ws.workspaceId, projectId, from: window.from, to: window.to, timeZone });
          // The baseline's planned finish as recorded when it was taken (18.4); null for a baseline taken before
          // migration 1010 recorded it.
          const baselinePlannedFinish: string | null = baseline?.planned_finish ?? null;
          return { timeZone, window, project, throughput: throughputSeries(window.weekStarts, counted), baselinePlannedFinish };
        });

      const result = forecastOf({
        projectId,
        today: localDate(now, data.timeZone),
        currentWeekStart: data.window.currentWeekStart,
        remaining: data.project.remaining,
        throughput: data.throughput,
        plannedFinish: data.project.plannedFinish,
      });
      return {
        remaining_issues: data.project.remaining,
        throughput: data.throughput,
        finish_p50: result.finish_p50,
        finish_p85: result.finish_p85,
        finish_p95: result.finish_p95,
        planned_finish: data.project.plannedFinish,
        baseline_planned_finish: data.baselinePlannedFinish,
        probability_by_planned_finish: result.probability_by_planned_finish,
        ...(result.reason !== undefined && { reason: result.reason }),
      };
    },
  };
}
