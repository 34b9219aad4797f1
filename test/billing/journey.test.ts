import { describe, expect, it } from 'vitest';
import { addInterval } from '../../src/modules/billing/billing.domain.js';
import { createWorkspace, type WorkspaceFixture } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { billingPath, checkout, getSubscription, pressSandbox } from './billing-helpers.js';

// One database for this file alone, so the invoice numbers start at INV-<year>-000001.
const ctx = useTestApp({ sessionTtlDays: 3650 });
const DAY = 86_400_000;

async function lists(ws: WorkspaceFixture) {
  const { api } = ctx();
  const payments = (await api.get(billingPath(ws, 'payments/?offset=0&per_page=20'), { token: ws.admin.token })).body;
  const invoices = (await api.get(billingPath(ws, 'invoices/?offset=0&per_page=20'), { token: ws.admin.token })).body;
  return { payments, invoices };
}

describe('a workspace from free to expiry, through the sandbox', () => {
  it('free -> trial -> paid -> renewed early -> failed payment -> cancel at period end -> canceled', async () => {
    const { api, clock } = ctx();
    const year = clock.now().getUTCFullYear();
    const ws = await createWorkspace(api);

    // free
    let state = await getSubscription(api, ws);
    expect(state.subscription).toBeNull();
    expect(state.limits.plan_slug).toBe('free');

    // trial
    const trial = await api.post(billingPath(ws, 'trial/'), { plan_slug: 'pro' }, { token: ws.admin.token });
    expect(trial.status).toBe(201);
    expect(trial.body.subscription.status).toBe('trialing');
    expect(trial.body.limits.plan_slug).toBe('pro');

    // checkout in the sandbox during the trial: active from now, first invoice
    clock.advanceDays(3);
    const first = await checkout(api, ws, { plan_slug: 'pro', billing_interval: 'month' });
    await pressSandbox(first.iframe_url!, 'pay');
    const paidAt = clock.now();
    state = await getSubscription(api, ws);
    expect(state.subscription).toMatchObject({
      id: trial.body.subscription.id,
      status: 'active',
      current_period_start: paidAt.toISOString(),
      current_period_end: addInterval(paidAt, 'month').toISOString(),
      amount_per_period: 29900,
    });
    let { payments, invoices } = await lists(ws);
    expect(payments.results.map((p: any) => p.status)).toEqual(['success']);
    expect(invoices.results.map((i: any) => i.invoice_number)).toEqual([`INV-${year}-000001`]);

    // early renewal: the new period starts at the end of the current one
    clock.advanceDays(10);
    const periodEnd = new Date(state.subscription!.current_period_end);
    const renewal = await checkout(api, ws, { plan_slug: 'pro', billing_interval: 'month' });
    await pressSandbox(renewal.iframe_url!, 'pay');
    state = await getSubscription(api, ws);
    expect(state.subscription).toMatchObject({
      status: 'active',
      current_period_start: paidAt.toISOString(),
      current_period_end: addInterval(periodEnd, 'month').toISOString(),
    });
    ({ payments, invoices } = await lists(ws));
    expect(invoices.results[0]).toMatchObject({
      invoice_number: `INV-${year}-000002`,
      period_start: periodEnd.toISOString(),
      period_end: addInterval(periodEnd, 'month').toISOString(),
    });
    expect(invoices.total).toBe(2);

    // a failed payment changes nothing but its own status
    const declined = await checkout(api, ws, { plan_slug: 'pro', billing_interval: 'year' });
    await pressSandbox(declined.iframe_url!, 'decline');
    const afterDecline = await getSubscription(api, ws);
    expect(afterDecline).toEqual(state);
    ({ payments, invoices } = await lists(ws));
    expect(payments.results.map((p: any) => p.status)).toEqual(['failed', 'success', 'success']);
    expect(payments.results[0].failure_reason).toBeTruthy();
    expect(invoices.total).toBe(2);

    // cancel at period end: still active and on pro until then
    const cancel = await api.post(billingPath(ws, 'cancel/'), { immediate: false }, { token: ws.admin.token });
    expect(cancel.body.subscription).toMatchObject({ status: 'active', cancel_at_period_end: true });
    expect(cancel.body.limits.plan_slug).toBe('pro');

    // the period ends: canceled, free limits, history intact
    const end = new Date(cancel.body.subscription.current_period_end);
    clock.set(new Date(end.getTime() + 1));
    state = await getSubscription(api, ws);
    expect(state.subscription).toMatchObject({ status: 'canceled', cancel_at_period_end: true });
    expect(state.limits.plan_slug).toBe('free');
    ({ payments, invoices } = await lists(ws));
    expect(payments.total).toBe(3);
    expect(invoices.total).toBe(2);
  });

  it('past_due -> suspended after the grace period -> a payment brings it back; a trial alone expires', async () => {
    const { api, clock, config } = ctx();
    const ws = await createWorkspace(api);
    // no stored card, so nothing renews it (contract 19.2): past_due at the period end
    const s = await checkout(api, ws, { plan_slug: 'business', billing_interval: 'month', save_card: false });
    await pressSandbox(s.iframe_url!, 'pay');
    const end = new Date((await getSubscription(api, ws)).subscription!.current_period_end);

    clock.set(new Date(end.getTime() + DAY));
    let state = await getSubscription(api, ws);
    expect(state.subscription?.status).toBe('past_due');
    expect(state.limits.plan_slug).toBe('business');

    clock.set(new Date(end.getTime() + config.billingGraceDays * DAY));
    state = await getSubscription(api, ws);
    expect(state.subscription?.status).toBe('suspended');
    expect(state.limits.plan_slug).toBe('free');

    const again = await checkout(api, ws, { plan_slug: 'business', billing_interval: 'month' });
    await pressSandbox(again.iframe_url!, 'pay');
    state = await getSubscription(api, ws);
    expect(state.subscription).toMatchObject({ status: 'active', current_period_start: clock.now().toISOString() });
    expect(state.limits.plan_slug).toBe('business');
    const { invoices } = await lists(ws);
    expect(invoices.total).toBe(2);

    const trialOnly = await createWorkspace(api);
    await api.post(billingPath(trialOnly, 'trial/'), { plan_slug: 'business' }, { token: trialOnly.admin.token });
    clock.advanceDays(14);
    state = await getSubscription(api, trialOnly);
    expect(state.subscription?.status).toBe('expired');
    expect(state.limits.plan_slug).toBe('free');
  });
});
