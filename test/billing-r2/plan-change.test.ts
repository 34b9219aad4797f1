import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addInterval } from '../../src/modules/billing/billing.domain.js';
import { classifyChange, prorationCredit, upgradeCharge } from '../../src/modules/billing/billing.plan-change.js';
import { createProject, createWorkspace, expectProblem } from '../helpers/factories.js';
import { type TestApp, useTestApp } from '../helpers/test-app.js';
import { billingPath, checkout, getSubscription, pressSandbox } from '../billing/billing-helpers.js';
import { eventsOf, paidPayment } from './support.js';

const ctx = useTestApp({ sessionTtlDays: 3650 });
const DAY = 86_400_000;
const job = (t: TestApp, name: string) => t.app.jobs.find((j) => j.name === name)!;

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
    const current = { status: 'active', plan_slug: 'pro', billing_interval: 'month' as const, amount_per_period: 29900, current_period_end: new Date('2026-02-01T00:00:00.000Z') };
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
    const sub = (await getSubscription(t.api, ws)).subscription!;
    const start = new Date(sub.current_period_start);
    const end = new Date(sub.current_period_end);
    t.clock.advance(10 * DAY);
    const expected = Math.floor((29900 * Math.floor((end.getTime() - t.clock.now().getTime()) / 1000)) / Math.floor((end.getTime() - start.getTime()) / 1000));

    const session = await checkout(t.api, ws, { plan_slug: 'business', billing_interval: 'month' });
    expect(session).toMatchObject({ proration_credit: expected, amount: 79900 - expected });
    await pressSandbox(session.iframe_url!, 'pay');
    const now = t.clock.now();
    const state = await getSubscription(t.api, ws);
    expect(state.subscription).toMatchObject({
      plan_slug: 'business',
      status: 'active',
      current_period_start: now.toISOString(),
      current_period_end: addInterval(now, 'month').toISOString(),
      scheduled_plan_slug: null,
    });
    expect(state.limits.plan_slug).toBe('business');
    const invoices = await t.api.get(billingPath(ws, 'invoices/'), { token: ws.admin.token });
    expect(invoices.body.results[0]).toMatchObject({ plan_slug: 'business', subtotal_amount: 79900, proration_credit: expected, total_amount: 79900 - expected });
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
    const end = new Date((await getSubscription(t.api, ws)).subscription!.current_period_end);
    t.clock.advance(5 * DAY);

    const session = await checkout(t.api, ws, { plan_slug: 'pro', billing_interval: 'month' });
    expect(session).toMatchObject({ amount: 29900, proration_credit: 0 });
    await pressSandbox(session.iframe_url!, 'pay');
    let state = await getSubscription(t.api, ws);
    expect(state.subscription).toMatchObject({ plan_slug: 'business', status: 'active', scheduled_plan_slug: 'pro', current_period_end: end.toISOString() });
    expect(state.limits.plan_slug).toBe('business');
    const invoices = await t.api.get(billingPath(ws, 'invoices/'), { token: ws.admin.token });
    expect(invoices.body.results[0]).toMatchObject({ plan_slug: 'pro', period_start: end.toISOString(), period_end: addInterval(end, 'month').toISOString() });

    t.clock.set(new Date(end.getTime() - 1));
    await job(t, 'billing.lifecycle').run();
    expect((await getSubscription(t.api, ws)).subscription?.plan_slug).toBe('business');

    t.clock.set(end);
    await job(t, 'billing.lifecycle').run();
    state = await getSubscription(t.api, ws);
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
    expect((updated.at(-1)!.data as any)).toMatchObject({ previous_status: 'active', subscription: { plan_slug: 'pro' }, limits: { plan_slug: 'pro' } });
  });

  it('plan-check lists what the workspace uses beyond a plan (admin only)', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    for (let i = 0; i < 4; i++) await createProject(t.api, ws).catch(() => undefined);
    // the free plan allows 3 projects: put the workspace on a trial to create a 4th and a custom property
    expect((await t.api.post(billingPath(ws, 'trial/'), { plan_slug: 'pro' }, { token: ws.admin.token })).status).toBe(201);
    const project = await createProject(t.api, ws);
    const prop = await t.api.post(`/api/workspaces/${ws.slug}/projects/${project.id}/custom-properties/`, { name: 'Team', type: 'text' }, { token: ws.admin.token });
    const res = await t.api.get(billingPath(ws, 'plan-check/?plan_slug=free'), { token: ws.admin.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.plan_slug).toBe('free');
    expect(res.body.allowed).toBe(false);
    expect(res.body.violations).toContainEqual({ limit: 'max_projects', allowed: 3, current: 4 });
    expect(prop.status, prop.text).toBe(201);
    expect(res.body.violations).toContainEqual({ limit: 'custom_properties', allowed: false, current: 1 });
    const pro = await t.api.get(billingPath(ws, 'plan-check/?plan_slug=pro'), { token: ws.admin.token });
    expect(pro.body).toEqual({ plan_slug: 'pro', allowed: true, violations: [] });

    expectProblem(await t.api.get(billingPath(ws, 'plan-check/'), { token: ws.admin.token }), 400, 'validation_failed');
    expectProblem(await t.api.get(billingPath(ws, 'plan-check/?plan_slug=nope'), { token: ws.admin.token }), 400, 'validation_failed');
    const member = await ws.addUser('member');
    expectProblem(await t.api.get(billingPath(ws, 'plan-check/?plan_slug=free'), { token: member.token }), 403, 'forbidden');
    const other = await createWorkspace(t.api);
    expectProblem(await t.api.get(billingPath(ws, 'plan-check/?plan_slug=free'), { token: other.admin.token }), 404, 'not_found');
  });
});
