import type { Db, Executor } from '../../../db/database.js';
import type { Actor } from '../../../kernel/actor.js';
import { addMs, type Clock, DAY_MS } from '../../../kernel/clock.js';
import { invalid, notFound } from '../../../kernel/errors.js';
import { iso } from '../../../kernel/time.js';
import type { IdentityService } from '../../identity/index.js';
import { graceEndsAt } from '../billing.domain.js';
import type { BillingRepository } from '../billing.repository.js';
import type { BillingService } from '../billing.service.js';
import { EXPIRING_NOTICE_DAYS } from '../payment-methods/payment-methods.service.js';
import { TRIAL_NOTICE_DAYS } from '../subscriptions/subscriptions.notices.js';
import type { BillingTime } from './test-clock.time.js';

type Scope = { workspaceId: string; now: Date };

export interface TestClockDeps {
  db: Db;
  repo: BillingRepository;
  clock: Clock;
  time: BillingTime;
  identity: Pick<IdentityService, 'access'>;
  billing: Pick<BillingService, 'runLifecycle' | 'runCollection' | 'runCardNotices' | 'internals'>;
  notices: { run(scope?: Scope): Promise<unknown> };
  graceDays: number;
  renewalNoticeDays: number;
}

/** At most this many due instants are stepped through by one advance (a year of daily duties is ~400). */
const MAX_STEPS = 2000;

export type TestClockService = ReturnType<typeof createTestClockService>;

/**
 * Test clocks (contract 19.7, sandbox only), as Stripe's: a workspace's billing time runs `offset_seconds` ahead of
 * the real clock. Advancing steps through every instant at which a billing duty falls due for the workspace (notices,
 * period and trial ends, renewal charges, retries, grace end, card expiry notices), in order, runs that workspace's
 * duties at each, and answers once they are done. Every duty is the production one, scoped to the workspace, so each
 * runs exactly once whatever else runs (the background job runs the same duties for every clock's workspace).
 */
export function createTestClockService(deps: TestClockDeps) {
  const { db, repo, clock, time, identity, graceDays } = deps;

  const enabled = (): void => {
    if (!time.testClocks) throw notFound('Test clock (PAYMENT_PROVIDER is not sandbox)');
  };

  async function runDuties(scope: Scope): Promise<void> {
    await deps.billing.runLifecycle(scope);
    await deps.billing.runCollection(scope);
    await deps.billing.runLifecycle(scope);
    await deps.notices.run(scope);
    await deps.billing.runCardNotices(scope);
  }

  /** The first instant after `after` at which a duty of the workspace falls due, if any. */
  async function nextDueAt(workspaceId: string, after: Date): Promise<Date | undefined> {
    const sub = await repo.findSubscription(db, workspaceId);
    const card = await repo.findDefaultPaymentMethod(db, workspaceId);
    const at: Date[] = [];
    if (sub) {
      const end = sub.current_period_end;
      if (sub.status === 'trialing') at.push(addMs(end, -TRIAL_NOTICE_DAYS * DAY_MS), end);
      if (sub.status === 'active') at.push(end, ...(sub.cancel_at_period_end ? [] : [addMs(end, -deps.renewalNoticeDays * DAY_MS)]));
      if (sub.status === 'past_due') at.push(graceEndsAt(end, graceDays), ...(sub.next_retry_at ? [sub.next_retry_at] : []));
    }
    if (card && !card.expiring_notified_at) at.push(addMs(new Date(Date.UTC(card.exp_year, card.exp_month, 1)), -EXPIRING_NOTICE_DAYS * DAY_MS));
    return at.filter((t) => t > after).sort((a, b) => a.getTime() - b.getTime())[0];
  }

  /** Sets the offset so that the workspace's billing time is at least `to` now; answers that time. */
  async function moveTo(workspaceId: string, to: Date): Promise<Date> {
    const real = clock.now();
    const offset = Math.max(0, Math.ceil((to.getTime() - real.getTime()) / 1000));
    await repo.setClockOffset(db, workspaceId, offset, real);
    return new Date(real.getTime() + offset * 1000);
  }

  async function view(ex: Executor, workspaceId: string) {
    const offset = await repo.findClockOffset(ex, workspaceId);
    return { now: new Date(clock.now().getTime() + offset * 1000), offset_seconds: offset };
  }

  return {
    async get(actor: Actor, slug: string) {
      enabled();
      const ws = await identity.access(actor, slug, 'billing');
      const v = await view(db, ws.workspaceId);
      return { now: iso(v.now), offset_seconds: v.offset_seconds };
    },

    async advance(actor: Actor, slug: string, input: { to: string }) {
      enabled();
      const ws = await identity.access(actor, slug, 'billing');
      const target = new Date(input.to);
      if (Number.isNaN(target.getTime())) throw invalid('/to', 'must be a date-time');
      let now = await time.now(db, ws.workspaceId);
      if (target < now) throw invalid('/to', `a test clock never goes back: it is ${iso(now)}`);
      for (let step = 0; step < MAX_STEPS; step++) {
        const due = await nextDueAt(ws.workspaceId, now);
        if (!due || due > target) break;
        now = await moveTo(ws.workspaceId, due);
        await runDuties({ workspaceId: ws.workspaceId, now });
      }
      now = await moveTo(ws.workspaceId, target);
      await runDuties({ workspaceId: ws.workspaceId, now });
      return db.transaction().execute(async (tx) => {
        const v = await view(tx, ws.workspaceId);
        const sub = await repo.findSubscription(tx, ws.workspaceId);
        return {
          now: iso(v.now),
          offset_seconds: v.offset_seconds,
          ...(await deps.billing.internals.subscriptionResponse(tx, sub, v.now, undefined, ws.workspaceId)),
        };
      });
    },

    /** The job `billing.test-clocks` (sandbox): the duties of every workspace on a test clock, at its own time. */
    async run(): Promise<{ workspaces: number }> {
      if (!time.testClocks) return { workspaces: 0 };
      const clocks = await repo.listClocks(db);
      for (const c of clocks) {
        await runDuties({ workspaceId: c.workspace_id, now: new Date(clock.now().getTime() + Number(c.offset_seconds) * 1000) });
      }
      return { workspaces: clocks.length };
    },
  };
}
