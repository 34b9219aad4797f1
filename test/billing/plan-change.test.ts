import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addInterval } from '../../src/modules/billing/billing.domain.js';
import { classifyChange, prorationCredit, upgradeCharge } from '../../src/modules/billing/subscriptions/subscriptions.plan-change.js';
import { expectFailure, expectSuccess } from '../helpers/client.js';
import { createProject, createWorkspace, type WorkspaceFixture } from '../helpers/factories.js';
import { type TestApp, useTestApp } from '../helpers/test-app.js';
import { pressSandbox } from './billing-helpers.js';
import { as, checkout, eventsOf, getSubscription, paidPayment } from './billing-client.js';

const ctx = useTestApp({ sessionTtlDays: 3650 });
const DAY = 86_400_000;
const job = (t: TestApp, name: string) => t.app.jobs.find((j) => j.name === name)!;
const invoices = async (t: TestApp, ws: WorkspaceFixture) =>
  expectSuccess(await as(t, ws.admin.token).GET('/api/workspaces/{slug}/billing/invoices/', { params: { path: { slug: ws.slug } } }));

describe('proration (pure)', () => {
  const arb = fc
    .record({
      paid: fc.integer({ min: 0, max: 2_000_000_000 }),
      newAmount: fc.integer({ min: 0, max: 2_000_000_000 }),
      start: fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }),
      length: fc.integer({ min: 1, max: 400 * DAY }),
      at: fc.double({ min: -0.2, max: 1.2, noNaN: true }),
    })
    .map((r) => ({ ...r, end: r.start + r.length, now: Math.round(r.start + r.at * r.length) }));

  it('the charge is never negative nor above the new price, charge + credit = new price, credit <= what was paid', () => {
    fc.assert(
      fc.property(arb, ({ paid, newAmount, start, end, now }) => {
        const credit = prorationCredit(paid, new Date(start), new Date(end), new Date(now));
        expect(Number.isSafeInteger(credit)).toBe(true);
        expect(credit).toBeGreaterThanOrEqual(0);
        expect(credit).toBeLessThanOrEqual(paid);
        const r = upgradeCharge(newAmount, credit);
        expect(r.charge).toBeGreaterThanOrEqual(0);
        expect(r.charge).toBeLessThanOrEqual(newAmount);
        expect(r.charge + r.credit).toBe(newAmount);
        expect(r.credit).toBeLessThanOrEqual(paid);
      }),
    );
  });

  it('credits by whole seconds, rounded down to a minor unit', () => {
    const start = new Date('2026-01-01T00:00:00.000Z');
    const end = new Date('2026-01-31T00:00:00.000Z'); // 30 days
    expect(prorationCredit(29900, start, end, new Date(start.getTime() + 10 * DAY))).toBe(19933); // 29900 * 20/30 = 19933.33
    expect(prorationCredit(29900, start, end, start)).toBe(29900);
    expect(prorationCredit(29900, start, end, end)).toBe(0);
    expect(prorationCredit(29900, start, end, new Date(end.getTime() - 1500))).toBe(0); // 1 s of 2,592,000 s
    expect(prorationCredit(2_592_000, start, end, new Date(end.getTime() - 1999))).toBe(1);
  });

  it('classifies by the yearly price', () => {
    const now = new Date('2026-01-10T00:00:00.000Z');
    const current = {
      status: 'active',
      plan_slug: 'pro',
      billing_interval: 'month' as const,
      amount_per_period: 29900,
      current_period_end: new Date('2026-02-01T00:00:00.000Z'),
    };
    expect(classifyChange(current, { plan_slug: 'business', price: 79900, interval: 'month' }, now)).toBe('upgrade');
    expect(classifyChange(current, { plan_slug: 'mini', price: 9900, interval: 'month' }, now)).toBe('downgrade');
    expect(classifyChange(current, { plan_slug: 'yearly-lite', price: 300000, interval: 'year' }, now)).toBe('downgrade'); // 3000.00 < 12 * 299.00
    expect(classifyChange(current, { plan_slug: 'pro', price: 299000, interval: 'year' }, now)).toBe('none');
    expect(classifyChange({ ...current, status: 'trialing' }, { plan_slug: 'business', price: 79900, interval: 'month' }, now)).toBe('none');
  });
});

describe('plan changes through the sandbox', () => {
  it('an upgrade mid-period is credited the unused share and starts now', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    await paidPayment(t, ws); // pro, month, 29900
    const sub = (await getSubscription(t, ws)).subscription!;
    const start = new Date(sub.current_period_start);
    const end = new Date(sub.current_period_end);
    t.clock.advance(10 * DAY);
    const expected = Math.floor((29900 * Math.floor((end.getTime() - t.clock.now().getTime()) / 1000)) / Math.floor((end.getTime() - start.getTime()) / 1000));

    const session = await checkout(t, ws, { plan_slug: 'business', billing_interval: 'month' });
    expect(session).toMatchObject({ proration_credit: expected, amount: 79900 - expected });
    await pressSandbox(session.iframe_url!, 'pay');
    const now = t.clock.now();
    const state = await getSubscription(t, ws);
    expect(state.subscription).toMatchObject({
      plan_slug: 'business',
      status: 'active',
      current_period_start: now.toISOString(),
      current_period_end: addInterval(now, 'month').toISOString(),
      scheduled_plan_slug: null,
    });
    expect(state.limits.plan_slug).toBe('business');
    expect((await invoices(t, ws)).results[0]).toMatchObject({
      plan_slug: 'business',
      subtotal_amount: 79900,
      proration_credit: expected,
      total_amount: 79900 - expected,
    });
    const updated = await eventsOf(t, ws.workspaceId, 'subscription.updated');
    expect(updated.map((e) => [(e.data as any).previous_status, (e.data as any).subscription.plan_slug])).toEqual([
      [null, 'pro'],
      ['active', 'business'],
    ]);
  });

  it('a downgrade while active is paid now and takes effect at the end of the period, applied by the lifecycle job', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    await paidPayment(t, ws, { plan_slug: 'business', billing_interval: 'month' });
    const end = new Date((await getSubscription(t, ws)).subscription!.current_period_end);
    t.clock.advance(5 * DAY);

    const session = await checkout(t, ws, { plan_slug: 'pro', billing_interval: 'month' });
    expect(session).toMatchObject({ amount: 29900, proration_credit: 0 });
    await pressSandbox(session.iframe_url!, 'pay');
    let state = await getSubscription(t, ws);
    expect(state.subscription).toMatchObject({ plan_slug: 'business', status: 'active', scheduled_plan_slug: 'pro', current_period_end: end.toISOString() });
    expect(state.limits.plan_slug).toBe('business');
    expect((await invoices(t, ws)).results[0]).toMatchObject({
      plan_slug: 'pro',
      period_start: end.toISOString(),
      period_end: addInterval(end, 'month').toISOString(),
    });

    t.clock.set(new Date(end.getTime() - 1));
    await job(t, 'billing.lifecycle').run();
    expect((await getSubscription(t, ws)).subscription?.plan_slug).toBe('business');

    t.clock.set(end);
    await job(t, 'billing.lifecycle').run();
    state = await getSubscription(t, ws);
    expect(state.subscription).toMatchObject({
      plan_slug: 'pro',
      status: 'active',
      scheduled_plan_slug: null,
      current_period_start: end.toISOString(),
      current_period_end: addInterval(end, 'month').toISOString(),
      amount_per_period: 29900,
    });
    expect(state.limits.plan_slug).toBe('pro');
    const updated = await eventsOf(t, ws.workspaceId, 'subscription.updated');
    expect(updated.at(-1)!.data as any).toMatchObject({ previous_status: 'active', subscription: { plan_slug: 'pro' }, limits: { plan_slug: 'pro' } });
  });

  it('plan-check lists what the workspace uses beyond a plan (admin only)', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    for (let i = 0; i < 4; i++) await createProject(t.api, ws).catch(() => undefined);
    // the free plan allows 3 projects: put the workspace on a trial to create a 4th and a custom property
    const admin = as(t, ws.admin.token);
    const path = { slug: ws.slug };
    expectSuccess(await admin.POST('/api/workspaces/{slug}/billing/trial/', { params: { path }, body: { plan_slug: 'pro' } }), 201);
    const project = await createProject(t.api, ws);
    const prop = await admin.POST('/api/workspaces/{slug}/projects/{projectId}/custom-properties/', {
      params: { path: { slug: ws.slug, projectId: project.id } },
      body: { name: 'Team', type: 'text' },
    });
    const planCheck = (token: string, plan_slug: string) =>
      as(t, token).GET('/api/workspaces/{slug}/billing/plan-check/', { params: { path, query: { plan_slug } } });
    const res = expectSuccess(await planCheck(ws.admin.token, 'free'));
    expect(res.plan_slug).toBe('free');
    expect(res.allowed).toBe(false);
    expect(res.violations).toContainEqual({ limit: 'max_projects', allowed: 3, current: 4 });
    expectSuccess(prop, 201);
    expect(res.violations).toContainEqual({ limit: 'custom_properties', allowed: false, current: 1 });
    expect((await planCheck(ws.admin.token, 'pro')).data).toEqual({ plan_slug: 'pro', allowed: true, violations: [] });

    // plan_slug is required: sent without it on purpose
    const noPlan = { params: { path } } as { params: { path: typeof path; query: { plan_slug: string } } };
    expectFailure(await admin.GET('/api/workspaces/{slug}/billing/plan-check/', noPlan), 400, 'validation_failed');
    expectFailure(await planCheck(ws.admin.token, 'nope'), 400, 'validation_failed');
    const member = await ws.addUser('member');
    expectFailure(await planCheck(member.token, 'free'), 403, 'forbidden');
    const other = await createWorkspace(t.api);
    expectFailure(await planCheck(other.admin.token, 'free'), 404, 'not_found');
  });
});
