import type { FastifyBaseLogger } from 'fastify';
import type { PeriodicJob } from './app.js';
import { type DatabaseAvailability, isDatabaseUnavailable } from './db/availability.js';
import type { Metrics } from './kernel/metrics.js';

/**
 * Runs each periodic job on its own interval (`main.ts`), measuring every run: runs and failures by job, duration,
 * and lag (how late a run started against its schedule: a run that overlaps the previous one is skipped and shows
 * up as lag of the next). A job never runs twice at once in one process; across instances the jobs claim their rows.
 * While the database cannot be reached the runs are skipped (outcome `paused`), and they resume on its return: the
 * outage is logged once by the availability, not once per job and period (contract 27.1).
 */
export function startJobs(
  jobs: PeriodicJob[],
  defaultIntervalMs: number,
  metrics: Metrics,
  log: FastifyBaseLogger,
  availability?: Pick<DatabaseAvailability, 'available' | 'poolerMisconfigured'>,
): { stop(): Promise<void> } {
  const runs = metrics.counter('job_runs_total', 'Background job runs by job and outcome', ['job', 'outcome']);
  const duration = metrics.histogram('job_duration_seconds', 'Background job run time', ['job'], [0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120]);
  const lag = metrics.gauge('job_lag_seconds', 'How late the last run of a job started against its schedule', ['job']);
  const lastRun = metrics.gauge('job_last_run_timestamp_seconds', 'When a job last finished (Unix time)', ['job']);
  const running = new Set<Promise<unknown>>();
  const timers = jobs.map((job) => {
    const every = defaultIntervalMs > 0 ? (job.intervalMs ?? defaultIntervalMs) : 0;
    if (every <= 0) return undefined;
    let due = Date.now() + every;
    let busy = false;
    return setInterval(() => {
      const now = Date.now();
      if (busy) return;
      if (availability && (!availability.available || availability.poolerMisconfigured)) {
        runs.inc({ job: job.name, outcome: 'paused' });
        while (due <= now) due += every;
        return;
      }
      busy = true;
      lag.set({ job: job.name }, Math.max(0, now - due) / 1000);
      const run = job
        .run()
        .then(
          () => runs.inc({ job: job.name, outcome: 'ok' }),
          (err: unknown) => {
            if (isDatabaseUnavailable(err)) {
              runs.inc({ job: job.name, outcome: 'paused' });
              return;
            }
            runs.inc({ job: job.name, outcome: 'failed' });
            log.error({ err, job: job.name }, 'periodic job failed');
          },
        )
        .finally(() => {
          const end = Date.now();
          duration.observe({ job: job.name }, (end - now) / 1000);
          lastRun.set({ job: job.name }, end / 1000);
          // The next run is due one period after this one was due, skipping the periods it overran.
          while (due <= end) due += every;
          busy = false;
          running.delete(run);
        });
      running.add(run);
    }, every);
  });
  return {
    async stop() {
      timers.forEach((t) => t && clearInterval(t));
      // Let the runs under way finish (their transactions commit or roll back) before the database closes.
      await Promise.allSettled([...running]);
    },
  };
}
