import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createWorkspace, type WorkspaceFixture } from '../helpers/factories.js';
import { startTestApp, useTestApp } from '../helpers/test-app.js';
import { billingPath, checkout, getSubscription, postCallback, signedCallback } from './billing-helpers.js';

// sessions outlive the months this file moves the clock through
const ctx = useTestApp({ sessionTtlDays: 3650 });
const DAY = 86_400_000;

/** Moves the clock, runs the test, and always moves it back so later tests start from the same instant. */
async function later<T>(days: number, fn: () => Promise<T>): Promise<T> {
  const { clock } = ctx();
  const start = clock.now();
  clock.advanceDays(days);
  try {
    return await fn();
  } finally {
    clock.set(start);
  }
}

async function pay(ws: WorkspaceFixture, plan = 'pro') {
  const t = ctx();
  const session = await checkout(t.api, ws, { plan_slug: plan, billing_interval: 'month' });
  expect((await postCallback(t, signedCallback(t, session.merchant_oid, 'success', session.amount))).text).toBe('OK');
}

const runJob = () =>
  ctx()
    .app.jobs.find((j) => j.name === 'billing.lifecycle')!
    .run();

async function transitions(workspaceId: string) {
  const r = await sql<{ from_status: string; to_status: string; at: Date }>`
    SELECT from_status, to_status, at FROM billing_events
    WHERE workspace_id = ${workspaceId} AND type = 'subscription.transition' ORDER BY at, id`.execute(ctx().database.db);
  return r.rows.map((e) => `${e.from_status}->${e.to_status}`);
}

describe('subscription lifecycle, applied on read', () => {
  it('trial end -> expired, with free limits', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    await api.post(billingPath(ws, 'trial/'), { plan_slug: 'pro' }, { token: ws.admin.token });
    await later(13.9, async () => expect((await getSubscription(api, ws)).subscription?.status).toBe('trialing'));
    await later(14, async () => {
      const { subscription, limits } = await getSubscription(api, ws);
      expect(subscription?.status).toBe('expired');
      expect(limits.plan_slug).toBe('free');
    });
    expect(await transitions(ws.workspaceId)).toEqual(['trialing->expired']);
  });

  it('active period end -> past_due (plan limits kept) -> suspended after the grace period (free limits)', async () => {
    const { api, config } = ctx();
    const ws = await createWorkspace(api);
    await pay(ws);
    const end = new Date((await getSubscription(api, ws)).subscription!.current_period_end);
    const daysToEnd = (end.getTime() - ctx().clock.now().getTime()) / DAY;
    await later(daysToEnd, async () => {
      const { subscription, limits } = await getSubscription(api, ws);
      expect(subscription?.status).toBe('past_due');
      expect(limits.plan_slug).toBe('pro');
    });
    await later(daysToEnd + config.billingGraceDays - 0.01, async () => expect((await getSubscription(api, ws)).subscription?.status).toBe('past_due'));
    await later(daysToEnd + config.billingGraceDays, async () => {
      const { subscription, limits } = await getSubscription(api, ws);
      expect(subscription?.status).toBe('suspended');
      expect(limits.plan_slug).toBe('free');
    });
    expect(await transitions(ws.workspaceId)).toEqual(['active->past_due', 'past_due->suspended']);
  });

  it('a read long after the period catches up on both steps at once, each written once', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    await pay(ws);
    await later(100, async () => {
      const reads = await Promise.all(Array.from({ length: 5 }, () => getSubscription(api, ws)));
      for (const r of reads) expect(r.subscription?.status).toBe('suspended');
    });
    expect(await transitions(ws.workspaceId)).toEqual(['active->past_due', 'past_due->suspended']);
  });

  it('cancel at period end -> canceled at the period end', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    await pay(ws);
    await api.post(billingPath(ws, 'cancel/'), { immediate: false }, { token: ws.admin.token });
    await later(31, async () => {
      const { subscription, limits } = await getSubscription(api, ws);
      expect(subscription).toMatchObject({ status: 'canceled', cancel_at_period_end: true });
      expect(limits.plan_slug).toBe('free');
    });
  });

  it('a payment brings past_due and suspended back to active: from the old period end (grace served), or from now', async () => {
    const { api } = ctx();
    for (const [days, status] of [
      [32, 'past_due'],
      [60, 'suspended'],
    ] as const) {
      const ws = await createWorkspace(api);
      await pay(ws);
      const end = (await getSubscription(api, ws)).subscription!.current_period_end as string;
      await later(days, async () => {
        expect((await getSubscription(api, ws)).subscription?.status).toBe(status);
        await pay(ws);
        const { subscription, limits } = await getSubscription(api, ws);
        // contract 19.3: paid while past_due, the new period starts at the old end; while suspended, at the payment
        const start = status === 'past_due' ? end : ctx().clock.now().toISOString();
        expect(subscription).toMatchObject({ status: 'active', current_period_start: start });
        expect(limits.plan_slug).toBe('pro');
      });
    }
  });
});

describe('the periodic job', () => {
  it('makes every transition on time without any read', async () => {
    const { api } = ctx();
    const trial = await createWorkspace(api);
    await api.post(billingPath(trial, 'trial/'), { plan_slug: 'business' }, { token: trial.admin.token });
    const paid = await createWorkspace(api);
    await pay(paid);
    const canceling = await createWorkspace(api);
    await pay(canceling);
    await api.post(billingPath(canceling, 'cancel/'), { immediate: false }, { token: canceling.admin.token });
    await later(15, runJob);
    expect(await transitions(trial.workspaceId)).toEqual(['trialing->expired']);
    expect(await transitions(paid.workspaceId)).toEqual([]);
    await later(32, runJob);
    expect(await transitions(paid.workspaceId)).toEqual(['active->past_due']);
    expect(await transitions(canceling.workspaceId)).toEqual(['active->canceled']);
    await later(40, runJob);
    expect(await transitions(paid.workspaceId)).toEqual(['active->past_due', 'past_due->suspended']);
    expect(await later(41, runJob)).toEqual({ transitioned: 0 });
  });

  it('runs on two service instances at once and makes each transition exactly once', async () => {
    const t = ctx();
    const second = await startTestApp({ sessionTtlDays: 3650 }, t.database);
    try {
      const workspaces: WorkspaceFixture[] = [];
      for (let i = 0; i < 12; i++) {
        const ws = await createWorkspace(t.api);
        if (i % 2 === 0) await pay(ws);
        else await t.api.post(billingPath(ws, 'trial/'), { plan_slug: 'pro' }, { token: ws.admin.token });
        workspaces.push(ws);
      }
      const jobOf = (app: typeof t.app) => app.jobs.find((j) => j.name === 'billing.lifecycle')!;
      second.clock.set(t.clock.now());
      const results = await later(45, async () => {
        second.clock.set(t.clock.now());
        return Promise.all([jobOf(t.app).run(), jobOf(second.app).run(), jobOf(t.app).run(), jobOf(second.app).run()]);
      });
      for (const [i, ws] of workspaces.entries()) {
        expect(await transitions(ws.workspaceId)).toEqual(i % 2 === 0 ? ['active->past_due', 'past_due->suspended'] : ['trialing->expired']);
      }
      const total = (results as { transitioned: number }[]).reduce((n, r) => n + r.transitioned, 0);
      expect(total).toBeGreaterThanOrEqual(12);
    } finally {
      await second.close();
    }
  });
});
