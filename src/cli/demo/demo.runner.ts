import type { DemoBackend } from './demo.backend.js';
import { DEMO_ACCOUNT, DEMO_SLUG, demoPlan } from './demo.plan.js';
import { DemoContext, DEMO_STEPS, type DemoStep } from './demo.steps.js';

export interface DemoRunOptions {
  out(line: string): void;
  /** Test hook: run only the first `stopAfter` steps, as a run interrupted there would have. */
  stopAfter?: number;
  /** Test hook: a smaller demo (the default is the full one). */
  issueCount?: number;
  steps?: DemoStep[];
}

export interface DemoRunResult {
  /** Per step, what it added (empty: nothing). */
  added: { step: string; added: string[] }[];
  ms: number;
}

/**
 * Runs the demo's steps in order, each adding only what is missing, and says per step what it added. A run that
 * stops (a crash, Ctrl-C, a test's `stopAfter`) leaves complete steps and at most one part-done one, which the next
 * run completes.
 */
export async function runDemo(api: DemoBackend, options: DemoRunOptions): Promise<DemoRunResult> {
  const started = Date.now();
  const ctx = new DemoContext(api, demoPlan(options.issueCount), DEMO_SLUG);
  const steps = (options.steps ?? DEMO_STEPS).slice(0, options.stopAfter);
  const width = Math.max(...steps.map((s) => s.name.length));
  const result: DemoRunResult = { added: [], ms: 0 };
  options.out(`The demo in ${api.where}:`);
  for (const step of steps) {
    const stepStarted = Date.now();
    // Steps happen now unless they say otherwise (the issues' own past, in process).
    api.at(null);
    let added: string[];
    try {
      added = await step.run(ctx);
    } catch (error) {
      // What the earlier steps added stays; the next run starts by finding it and completes the rest.
      options.out(`  ${step.name.padEnd(width)}  failed; run the demo again to complete it from here`);
      throw error;
    } finally {
      api.at(null);
    }
    result.added.push({ step: step.name, added });
    const took = `(${((Date.now() - stepStarted) / 1000).toFixed(1)} s)`;
    options.out(`  ${step.name.padEnd(width)}  ${added.length ? `added ${added.join('; ')}` : 'nothing to add'} ${took}`);
  }
  result.ms = Date.now() - started;
  if (steps.length < DEMO_STEPS.length && !options.steps) {
    options.out(`Stopped after ${steps.length} of ${DEMO_STEPS.length} steps; run the demo again to complete it.`);
    return result;
  }
  const sla = await api.slaCounts(DEMO_SLUG);
  const anything = result.added.some((s) => s.added.length > 0);
  options.out(
    `${anything ? 'Done' : 'The demo was complete: nothing to add'} in ${(result.ms / 1000).toFixed(1)} s. ` +
      `Workspace "${DEMO_SLUG}": ${sla.breached} breached and ${sla.atRisk} at-risk SLA trackers now. ` +
      `Sign in as ${DEMO_ACCOUNT.email} / ${DEMO_ACCOUNT.password}.`,
  );
  return result;
}
