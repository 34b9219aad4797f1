import { describe, expect, it } from 'vitest';
import { addInterval } from '../../src/modules/billing/billing.domain.js';
import { createWorkspace } from '../helpers/factories.js';
import { startTestApp, type TestApp, useTestApp } from '../helpers/test-app.js';
import { expectSuccess } from '../helpers/client.js';
import { as, eventsOf, getSubscription, paidPayment } from './billing-client.js';

const ctx = useTestApp({ sessionTtlDays: 3650 });
const DAY = 86_400_000;
const job = (t: TestApp, name: string) => t.app.jobs.find((j) => j.name === name)!;

describe('renewal and trial notices, and subscription.updated from the lifecycle job', () => {
  it('renewal_upcoming BILLING_RENEWAL_NOTICE_DAYS (7) before the end of an active period, once; then past_due with previous_status', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    // no stored card: the period's end is the lifecycle's transition to past_due (with a card it is a renewal charge)
    await paidPayment(t, ws, { plan_slug: 'pro', billing_interval: 'month', save_card: false });
    const end = new Date((await getSubscription(t, ws)).subscription!.current_period_end);
    expect(end.getTime()).toBe(addInterval(t.clock.now(), 'month').getTime());

    t.clock.set(new Date(end.getTime() - 7 * DAY - 1000));
    await job(t, 'billing.notices').run();
    expect(await eventsOf(t, ws.workspaceId, 'subscription.renewal_upcoming')).toHaveLength(0);

    t.clock.set(new Date(end.getTime() - 7 * DAY));
    await job(t, 'billing.notices').run();
    await job(t, 'billing.notices').run();
    const notices = await eventsOf(t, ws.workspaceId, 'subscription.renewal_upcoming');
    expect(notices).toHaveLength(1);
    expect(notices[0]!.data).toMatchObject({ subscription: { status: 'active', current_period_end: end.toISOString() }, limits: { plan_slug: 'pro' } });

    // the lifecycle job's transition is a subscription.updated with previous_status
    t.clock.set(end);
    await job(t, 'billing.lifecycle').run();
    const updated = await eventsOf(t, ws.workspaceId, 'subscription.updated');
    expect(updated.map((e) => [(e.data as any).previous_status, (e.data as any).subscription.status])).toEqual([
      [null, 'active'],
      ['active', 'past_due'],
    ]);
  });

  it('no renewal notice for a period that will cancel', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    await paidPayment(t, ws);
    const path = { slug: ws.slug };
    expectSuccess(await as(t, ws.admin.token).POST('/api/workspaces/{slug}/billing/cancel/', { params: { path }, body: { immediate: false } }));
    t.clock.advance(29 * DAY);
    await job(t, 'billing.notices').run();
    expect(await eventsOf(t, ws.workspaceId, 'subscription.renewal_upcoming')).toHaveLength(0);
  });

  it('trial_will_end 3 days before the trial ends, once across two instances', async () => {
    const t = ctx();
    const second = await startTestApp({ sessionTtlDays: 3650 }, t.database);
    try {
      const ws = await createWorkspace(t.api);
      const trial = expectSuccess(
        await as(t, ws.admin.token).POST('/api/workspaces/{slug}/billing/trial/', { params: { path: { slug: ws.slug } }, body: { plan_slug: 'pro' } }),
        201,
      );
      const end = new Date(trial.subscription!.current_period_end);
      t.clock.set(new Date(end.getTime() - 3 * DAY - 1));
      await job(t, 'billing.notices').run();
      expect(await eventsOf(t, ws.workspaceId, 'subscription.trial_will_end')).toHaveLength(0);
      t.clock.set(new Date(end.getTime() - 3 * DAY));
      second.clock.set(t.clock.now());
      await Promise.all([job(t, 'billing.notices').run(), job(second, 'billing.notices').run(), job(t, 'billing.notices').run()]);
      const notices = await eventsOf(t, ws.workspaceId, 'subscription.trial_will_end');
      expect(notices).toHaveLength(1);
      expect(notices[0]!.data).toMatchObject({ subscription: { status: 'trialing' } });
      expect(await eventsOf(t, ws.workspaceId, 'subscription.renewal_upcoming')).toHaveLength(0);
    } finally {
      await second.close();
    }
  });
});
