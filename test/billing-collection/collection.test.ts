import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createWorkspace, expectProblem } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { eventsOf } from '../billing/billing-client.js';
import { advance, billing, CARDS, paymentMethods, payments, plusDays, sandboxCharges, subscribeWithCard, subscription } from './support.js';

const ctx = useTestApp();

describe('stored cards (contract 19.1)', () => {
  it('a paid checkout stores its card as the default; the list never shows a token or the number', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    await subscribeWithCard(t, ws);
    const cards = await paymentMethods(t, ws);
    expect(cards).toEqual([
      { id: expect.any(String), brand: 'visa', last4: '4358', exp_month: 12, exp_year: 2030, is_default: true, created_at: expect.any(String) },
    ]);
    // neither the card number nor the provider's tokens anywhere in the service's own tables
    const dump = await sql<{ t: string }>`SELECT (SELECT json_agg(p)::text FROM payment_methods p) || (SELECT json_agg(x)::text FROM payments x) AS t`.execute(
      t.database.db,
    );
    expect(dump.rows[0]!.t).not.toContain(CARDS.ok);

    // a second card joins the same utoken and becomes the default; the first can be made default again
    await subscribeWithCard(t, ws, '5500005555555559', { plan_slug: 'business' });
    const two = await paymentMethods(t, ws);
    expect(two.map((c) => [c.last4, c.is_default])).toEqual([
      ['5559', true],
      ['4358', false],
    ]);
    const owners = await t.database.db.selectFrom('payment_customers').selectAll().where('workspace_id', '=', ws.workspaceId).execute();
    expect(owners).toHaveLength(1);
    const made = await t.api.post(billing(ws, `payment-methods/${two[1]!.id}/default/`), {}, { token: ws.admin.token });
    expect(made.status, made.text).toBe(200);
    expect(made.body).toMatchObject({ id: two[1]!.id, is_default: true });
    expect((await paymentMethods(t, ws)).map((c) => c.is_default)).toEqual([false, true]);

    // removing the default: the newest remaining card becomes the default
    const removed = await t.api.delete(billing(ws, `payment-methods/${two[1]!.id}/`), { token: ws.admin.token });
    expect(removed.status, removed.text).toBe(204);
    expect((await paymentMethods(t, ws)).map((c) => [c.last4, c.is_default])).toEqual([['5559', true]]);
  });

  it('save_card false stores nothing; members cannot see cards; another workspace gets 404', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const other = await createWorkspace(t.api);
    await subscribeWithCard(t, ws, CARDS.ok, { save_card: false });
    expect(await paymentMethods(t, ws)).toEqual([]);
    await subscribeWithCard(t, other);
    const [card] = await paymentMethods(t, other);
    expectProblem(await t.api.delete(billing(ws, `payment-methods/${card!.id}/`), { token: ws.admin.token }), 404);
    expectProblem(await t.api.post(billing(ws, `payment-methods/${card!.id}/default/`), {}, { token: ws.admin.token }), 404);
    expectProblem(await t.api.delete(billing(other, 'payment-methods/not-a-uuid/'), { token: other.admin.token }), 400);
    expect(await paymentMethods(t, other)).toHaveLength(1);
  });

  it('a card the provider no longer has can still be removed here', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    await subscribeWithCard(t, ws);
    const [card] = await paymentMethods(t, ws);
    // removed at the provider's side (PayTR's own panel, say)
    const owner = await t.database.db.selectFrom('payment_customers').select('utoken').where('workspace_id', '=', ws.workspaceId).executeTakeFirstOrThrow();
    await t.database.db.deleteFrom('sandbox_cards').where('utoken', '=', owner.utoken).execute();
    const removed = await t.api.delete(billing(ws, `payment-methods/${card!.id}/`), { token: ws.admin.token });
    expect(removed.status, removed.text).toBe(204);
    expect(await paymentMethods(t, ws)).toEqual([]);
  });
});

describe('automatic renewal (contract 19.2) on the test clock (19.7)', () => {
  it('charges the default card at the period end: a renewal payment, an invoice, the period extended from the old end', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    await subscribeWithCard(t, ws);
    const before = await subscription(t, ws);
    const clock0 = await t.api.get(billing(ws, 'test-clock/'), { token: ws.admin.token });
    expect(clock0.body).toEqual({ now: t.clock.now().toISOString(), offset_seconds: 0 });

    const after = await advance(t, ws, plusDays(before.current_period_end, 0, 60_000));
    expect(after.offset_seconds).toBeGreaterThan(0);
    expect(after.subscription).toMatchObject({
      status: 'active',
      current_period_start: before.current_period_end,
      current_period_end: '2026-03-15T09:00:00.000Z',
      dunning: null,
    });
    const list = await payments(t, ws);
    expect(list.map((p) => [p.kind, p.status, p.amount])).toEqual([
      ['renewal', 'success', 29900],
      ['checkout', 'success', 29900],
    ]);
    expect(await sandboxCharges(t, ws.workspaceId)).toBe(1);
    const invoices = await t.api.get(billing(ws, 'invoices/'), { token: ws.admin.token });
    expect(invoices.body.results[0]).toMatchObject({ period_start: before.current_period_end, period_end: '2026-03-15T09:00:00.000Z', total_amount: 29900 });
    const types = (await eventsOf(t, ws.workspaceId)).map((e) => e.type);
    expect(types.filter((x) => x === 'payment.succeeded')).toHaveLength(2);
    expect(types.filter((x) => x === 'invoice.created')).toHaveLength(2);
    expect(types).toContain('subscription.renewal_upcoming');

    // a year on: twelve more renewals, each charged once, no day lost or gained
    const year = await advance(t, ws, '2027-03-15T10:00:00.000Z');
    expect(year.subscription).toMatchObject({ status: 'active', current_period_end: '2027-04-15T09:00:00.000Z' });
    expect(await sandboxCharges(t, ws.workspaceId)).toBe(14);
    // the clock never goes back
    expectProblem(await t.api.post(billing(ws, 'test-clock/advance/'), { to: '2027-01-01T00:00:00.000Z' }, { token: ws.admin.token }), 400);
    // another workspace's billing time is untouched
    const other = await createWorkspace(t.api);
    expect((await t.api.get(billing(other, 'test-clock/'), { token: other.admin.token })).body.offset_seconds).toBe(0);
  });

  it('without a card: past_due at the period end, nothing attempted', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    await subscribeWithCard(t, ws, CARDS.ok, { save_card: false });
    const s = await subscription(t, ws);
    const after = await advance(t, ws, plusDays(s.current_period_end, 0, 1000));
    expect(after.subscription).toMatchObject({ status: 'past_due', dunning: { attempts: 0, next_retry_at: null, last_failure_reason: null } });
    expect((await payments(t, ws)).map((p) => p.kind)).toEqual(['checkout']);
  });

  it('a cancel at period end is not renewed', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    await subscribeWithCard(t, ws);
    expect((await t.api.post(billing(ws, 'cancel/'), { immediate: false }, { token: ws.admin.token })).status).toBe(200);
    const s = await subscription(t, ws);
    const after = await advance(t, ws, plusDays(s.current_period_end, 1));
    expect(after.subscription.status).toBe('canceled');
    expect(await sandboxCharges(t, ws.workspaceId)).toBe(0);
  });
});

describe('dunning (contract 19.3)', () => {
  it('a declined renewal is retried 1, 3 and 5 days after the period end, then the workspace is suspended', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    await subscribeWithCard(t, ws, CARDS.insufficientFunds);
    const end = (await subscription(t, ws)).current_period_end as string;

    let r = await advance(t, ws, plusDays(end, 0, 1000));
    expect(r.subscription).toMatchObject({ status: 'past_due', current_period_end: end });
    expect(r.subscription.dunning).toMatchObject({ attempts: 1, next_retry_at: plusDays(end, 1) });
    expect(r.subscription.dunning.last_failure_reason).toMatch(/insufficient_funds/);
    r = await advance(t, ws, plusDays(end, 2));
    expect(r.subscription.dunning).toMatchObject({ attempts: 2, next_retry_at: plusDays(end, 3) });
    r = await advance(t, ws, plusDays(end, 6));
    expect(r.subscription).toMatchObject({ status: 'past_due', dunning: { attempts: 4, next_retry_at: null } });
    r = await advance(t, ws, plusDays(end, 8));
    expect(r.subscription).toMatchObject({ status: 'suspended', dunning: { attempts: 4, next_retry_at: null } });
    expect((await payments(t, ws)).map((p) => [p.kind, p.status])).toEqual([
      ['retry', 'failed'],
      ['retry', 'failed'],
      ['retry', 'failed'],
      ['renewal', 'failed'],
      ['checkout', 'success'],
    ]);
    const updates = await eventsOf(t, ws.workspaceId, 'subscription.updated');
    expect((updates.at(-1)!.data as any).subscription.dunning.attempts).toBe(4);
  });

  it('a final decline stops the retries; retry now charges at once and a new card pays the period from the old end', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    await subscribeWithCard(t, ws, CARDS.closed);
    const end = (await subscription(t, ws)).current_period_end as string;
    const r = await advance(t, ws, plusDays(end, 0, 1000));
    expect(r.subscription).toMatchObject({ status: 'past_due', dunning: { attempts: 1, next_retry_at: null } });
    expect(r.subscription.dunning.last_failure_reason).toMatch(/card_closed/);

    const retried = await t.api.post(billing(ws, 'retry/'), {}, { token: ws.admin.token });
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body.payment).toMatchObject({ kind: 'retry', status: 'failed' });
    expect(retried.body.subscription.dunning.attempts).toBe(2);

    // the customer pays by checkout with a new card, which becomes the default; the period starts at the old end
    await advance(t, ws, plusDays(end, 2));
    await subscribeWithCard(t, ws, CARDS.ok);
    const s = await subscription(t, ws);
    expect(s).toMatchObject({ status: 'active', current_period_start: end, current_period_end: '2026-03-15T09:00:00.000Z', dunning: null });
    expect((await paymentMethods(t, ws))[0]).toMatchObject({ last4: '4358', is_default: true });
    const again = await t.api.post(billing(ws, 'retry/'), {}, { token: ws.admin.token });
    expectProblem(again, 409);
  });

  it('retry now succeeds from suspended: the new period starts at the payment', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    await subscribeWithCard(t, ws, CARDS.insufficientFunds);
    const end = (await subscription(t, ws)).current_period_end as string;
    await advance(t, ws, plusDays(end, 10));
    expect((await subscription(t, ws)).status).toBe('suspended');
    // a good card added by a checkout of a free-trialless path: swap the default to one that pays
    await t.database.db.updateTable('sandbox_cards').set({ behaviour: 'success' }).execute();
    const retried = await t.api.post(billing(ws, 'retry/'), {}, { token: ws.admin.token });
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body.payment).toMatchObject({ kind: 'retry', status: 'success' });
    const now = (await t.api.get(billing(ws, 'test-clock/'), { token: ws.admin.token })).body.now as string;
    expect(new Date(retried.body.subscription.current_period_start).getTime()).toBeGreaterThanOrEqual(new Date(plusDays(end, 10)).getTime());
    expect(new Date(retried.body.subscription.current_period_start).getTime()).toBeLessThanOrEqual(new Date(now).getTime());
    expect(retried.body.subscription).toMatchObject({ status: 'active', dunning: null });
  });

  it('retry now: 409 when not past_due, 403 for a member', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    await subscribeWithCard(t, ws);
    expectProblem(await t.api.post(billing(ws, 'retry/'), {}, { token: ws.admin.token }), 409);
  });
});

describe('exactly once', () => {
  it('concurrent runs of the job charge a due subscription once', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    await subscribeWithCard(t, ws);
    const end = (await subscription(t, ws)).current_period_end as string;
    // the real clock passes the period end (no test clock): two runs of the job at once, as two instances would
    const start = t.clock.now();
    t.clock.set(plusDays(end, 0, 5000));
    try {
      const svc = t.app.services.billing;
      // (other workspaces of this file fall due too: count this one's charges)
      await Promise.all([svc.runCollection(), svc.runCollection(), svc.runCollection()]);
      expect(await sandboxCharges(t, ws.workspaceId)).toBe(1);
      // (read in the database: a month on, the admin's session has expired)
      const renewals = await t.database.db
        .selectFrom('payments')
        .select('status')
        .where('workspace_id', '=', ws.workspaceId)
        .where('kind', '=', 'renewal')
        .execute();
      expect(renewals).toEqual([{ status: 'success' }]);
      const sub = await t.database.db
        .selectFrom('subscriptions')
        .select('current_period_end')
        .where('workspace_id', '=', ws.workspaceId)
        .executeTakeFirstOrThrow();
      expect(sub.current_period_end.toISOString()).toBe('2026-03-15T09:00:00.000Z');
      // and a later run finds nothing due
      expect((await svc.runCollection()).charged).toBe(0);
    } finally {
      t.clock.set(start);
    }
  });
});
