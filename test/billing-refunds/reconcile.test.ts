import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { expectFailure, expectSuccess } from '../helpers/client.js';
import { createWorkspace, type WorkspaceFixture } from '../helpers/factories.js';
import { startTestApp, type TestApp, useTestApp } from '../helpers/test-app.js';
import { countRows, instanceAdmin, postCallback, pressSandbox, signedCallback } from '../billing/billing-helpers.js';
import { as, byPaymentId, checkout, eventsOf, getSubscription, paymentByOid, reconcileRoute, refundRoute } from '../billing/billing-client.js';

const ctx = useTestApp({ sessionTtlDays: 3650 });
const SECOND = 1000;

const reconcile = (t: TestApp, token: string, paymentId: string) => as(t, token).POST(reconcileRoute, byPaymentId(paymentId));
const jobOf = (t: TestApp) => t.app.jobs.find((j) => j.name === 'billing.reconcile')! as { run(): Promise<Record<string, number>> };

/** The customer paid on the sandbox page but the notification never reached us (the sandbox marks the order paid). */
async function payWithDroppedCallback(t: TestApp, ws: WorkspaceFixture) {
  const session = await checkout(t, ws);
  await sql`UPDATE sandbox_orders SET state = 'paid' WHERE merchant_oid = ${session.merchant_oid}`.execute(t.database.db);
  return session;
}

describe('reconciliation with the provider status query (durum-sorgu)', () => {
  it('a payment whose callback is dropped is fulfilled by the periodic job after PAYMENT_RECONCILE_AFTER_S, once', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const session = await payWithDroppedCallback(t, ws);
    expect((await paymentByOid(t, ws, session.merchant_oid)).status).toBe('pending');

    // not yet due: nothing is asked
    t.clock.advance(599 * SECOND);
    expect(await jobOf(t).run()).toMatchObject({ fulfilled: 0 });
    expect((await paymentByOid(t, ws, session.merchant_oid)).status).toBe('pending');

    t.clock.advance(1 * SECOND);
    expect(await jobOf(t).run()).toMatchObject({ fulfilled: 1 });
    expect(await paymentByOid(t, ws, session.merchant_oid)).toMatchObject({ status: 'success', failure_reason: null });
    expect((await getSubscription(t, ws)).subscription).toMatchObject({ status: 'active', plan_slug: 'pro' });
    expect(await countRows(t, 'invoices', ws.workspaceId)).toBe(1);

    // the callback that finally arrives changes nothing
    expect((await postCallback(t, signedCallback(t, session.merchant_oid, 'success', session.amount))).text).toBe('OK');
    expect(await jobOf(t).run()).toMatchObject({ fulfilled: 0 });
    expect(await countRows(t, 'invoices', ws.workspaceId)).toBe(1);
    expect(await eventsOf(t, ws.workspaceId, 'payment.succeeded')).toHaveLength(1);
    expect(await eventsOf(t, ws.workspaceId, 'invoice.created')).toHaveLength(1);
  });

  it('a callback and a reconciliation racing make exactly one transition', async () => {
    const t = ctx();
    const operator = await instanceAdmin(t);
    const ws = await createWorkspace(t.api);
    const session = await payWithDroppedCallback(t, ws);
    const payment = await paymentByOid(t, ws, session.merchant_oid);
    t.clock.advance(700 * SECOND);
    const form = signedCallback(t, session.merchant_oid, 'success', session.amount);
    const results = await Promise.all([postCallback(t, form), reconcile(t, operator.token, payment.id), jobOf(t).run(), postCallback(t, form)]);
    expect(results[0].text).toBe('OK');
    expect(expectSuccess(results[1])).toMatchObject({ id: payment.id, status: 'success' });
    expect(await countRows(t, 'invoices', ws.workspaceId)).toBe(1);
    expect(await eventsOf(t, ws.workspaceId, 'payment.succeeded')).toHaveLength(1);
    expect(await eventsOf(t, ws.workspaceId, 'subscription.updated')).toHaveLength(1);
  });

  it('unknown to the provider: pending until the timeout_limit, then failed "expired"; a later genuine callback still takes effect', async () => {
    const t = ctx();
    const operator = await instanceAdmin(t);
    const ws = await createWorkspace(t.api);
    const session = await checkout(t, ws);
    const payment = await paymentByOid(t, ws, session.merchant_oid);

    t.clock.advance(11 * 60 * SECOND);
    const early = expectSuccess(await reconcile(t, operator.token, payment.id));
    expect(early).toMatchObject({ status: 'pending' });

    t.clock.advance(20 * 60 * SECOND);
    expect(await jobOf(t).run()).toMatchObject({ expired: 1 });
    expect(await paymentByOid(t, ws, session.merchant_oid)).toMatchObject({ status: 'failed', failure_reason: 'expired' });
    const failed = await eventsOf(t, ws.workspaceId, 'payment.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.data).toMatchObject({ id: payment.id, status: 'failed', failure_reason: 'expired' });

    // the provider's first notification arrives late: it is honoured
    expect((await postCallback(t, signedCallback(t, session.merchant_oid, 'success', session.amount))).text).toBe('OK');
    expect(await paymentByOid(t, ws, session.merchant_oid)).toMatchObject({ status: 'success', failure_reason: null });
    expect((await getSubscription(t, ws)).subscription?.status).toBe('active');
    // ... and only the first one
    expect((await postCallback(t, signedCallback(t, session.merchant_oid, 'failed', session.amount))).text).toBe('OK');
    expect((await paymentByOid(t, ws, session.merchant_oid)).status).toBe('success');
    expect(await countRows(t, 'invoices', ws.workspaceId)).toBe(1);
  });

  it('an answer that disagrees with the recorded amount fails the payment with a reason, never activates', async () => {
    const t = ctx();
    const operator = await instanceAdmin(t);
    const ws = await createWorkspace(t.api);
    const session = await payWithDroppedCallback(t, ws);
    await sql`UPDATE sandbox_orders SET amount = 100 WHERE merchant_oid = ${session.merchant_oid}`.execute(t.database.db);
    const payment = await paymentByOid(t, ws, session.merchant_oid);
    const res = expectSuccess(await reconcile(t, operator.token, payment.id));
    expect(res.status).toBe('failed');
    expect(res.failure_reason).toMatch(/^amount_mismatch/);
    expect((await getSubscription(t, ws)).subscription).toBeNull();
  });

  it('runs on two instances at once and checks each stale payment once', async () => {
    const t = ctx();
    const second = await startTestApp({ sessionTtlDays: 3650 }, t.database);
    try {
      const ws = await createWorkspace(t.api);
      const sessions = [];
      for (let i = 0; i < 4; i++) sessions.push(await payWithDroppedCallback(t, ws));
      t.clock.advance(601 * SECOND);
      second.clock.set(t.clock.now());
      const runs = await Promise.all([jobOf(t).run(), jobOf(second).run(), jobOf(t).run()]);
      const fulfilled = runs.reduce((n: number, r) => n + (r.fulfilled ?? 0), 0);
      const asked = runs.reduce((n: number, r) => n + Object.values(r).reduce((a, b) => a + b, 0), 0);
      expect(fulfilled).toBe(4);
      expect(asked).toBe(4);
      for (const s of sessions) expect((await paymentByOid(t, ws, s.merchant_oid)).status).toBe('success');
      expect(await countRows(t, 'invoices', ws.workspaceId)).toBe(4);
    } finally {
      await second.close();
    }
  });

  it('the on-demand route: instance admin only, 404 for an unknown payment, a settled payment answered as it is', async () => {
    const t = ctx();
    const operator = await instanceAdmin(t);
    const ws = await createWorkspace(t.api);
    const session = await checkout(t, ws);
    await pressSandbox(session.iframe_url!, 'pay');
    const payment = await paymentByOid(t, ws, session.merchant_oid);
    expectFailure(await reconcile(t, ws.admin.token, payment.id), 403, 'forbidden');
    expectFailure(await reconcile(t, operator.token, '0190f4a1-0000-7000-8000-000000000000'), 404, 'not_found');
    expectFailure(await reconcile(t, operator.token, 'nope'), 400, 'validation_failed');
    const res = expectSuccess(await reconcile(t, operator.token, payment.id));
    expect(res).toMatchObject({ id: payment.id, status: 'success', refunded_amount: 0 });
  });
});

describe('the sandbox keeps its orders in the database', () => {
  it('an open payment page keeps working on another instance (as after a restart)', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const session = await checkout(t, ws);
    const second = await startTestApp({ sessionTtlDays: 3650 }, t.database);
    try {
      const url = session.iframe_url!.replace(t.url, second.url);
      expect(url.startsWith(second.url)).toBe(true);
      await pressSandbox(url, 'pay');
      expect((await paymentByOid(t, ws, session.merchant_oid)).status).toBe('success');
      // the page of a paid order says so
      const page = await fetch(url);
      expect(page.status).toBe(409);
      expect(await page.text()).toContain('already completed');
    } finally {
      await second.close();
    }
  });
});

describe('the sandbox refund and status query endpoints', () => {
  const post = (t: TestApp, path: string, form: Record<string, string>) =>
    fetch(`${t.config.paytr.apiBase}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));

  it('refuse a wrong signature, a wrong merchant, missing fields and a malformed amount, in PayTR error form', async () => {
    const t = ctx();
    const { merchantId } = t.config.paytr;
    const iade = await post(t, '/odeme/iade', { merchant_id: merchantId, merchant_oid: 'X1', return_amount: '1.00', paytr_token: 'bad' });
    expect(iade).toMatchObject({ status: 200, body: { status: 'error', err_no: '002' } });
    expect((await post(t, '/odeme/iade', { merchant_id: merchantId })).body).toMatchObject({ status: 'error', err_no: '001' });
    const { refundHash, statusQueryHash } = await import('../../src/modules/billing/provider/paytr/index.js');
    expect(
      (await post(t, '/odeme/iade', { merchant_id: merchantId, merchant_oid: 'X1', return_amount: '1', paytr_token: refundHash(t.config.paytr, 'X1', '1') }))
        .body,
    ).toMatchObject({ err_no: '003' });
    expect(
      (
        await post(t, '/odeme/iade', {
          merchant_id: merchantId,
          merchant_oid: 'X1',
          return_amount: '1.00',
          paytr_token: refundHash(t.config.paytr, 'X1', '1.00'),
        })
      ).body,
    ).toMatchObject({ err_no: '004' });
    expect(
      (await post(t, '/odeme/durum-sorgu', { merchant_id: '999', merchant_oid: 'X1', paytr_token: statusQueryHash(t.config.paytr, 'X1') })).body,
    ).toMatchObject({ err_no: '002' });
    expect(
      (await post(t, '/odeme/durum-sorgu', { merchant_id: merchantId, merchant_oid: 'X1', paytr_token: statusQueryHash(t.config.paytr, 'X1') })).body,
    ).toMatchObject({ status: 'error', err_no: '003' });
  });

  it('answer a paid order with its amounts in major units and its refunds', async () => {
    const t = ctx();
    const operator = await instanceAdmin(t);
    const ws = await createWorkspace(t.api);
    const session = await checkout(t, ws);
    await pressSandbox(session.iframe_url!, 'pay');
    const payment = await paymentByOid(t, ws, session.merchant_oid);
    expectSuccess(await as(t, operator.token).POST(refundRoute, { ...byPaymentId(payment.id), body: { amount: 1050 } }), 201);
    const { statusQueryHash } = await import('../../src/modules/billing/provider/paytr/index.js');
    const res = await post(t, '/odeme/durum-sorgu', {
      merchant_id: t.config.paytr.merchantId,
      merchant_oid: session.merchant_oid,
      paytr_token: statusQueryHash(t.config.paytr, session.merchant_oid),
    });
    expect(res.body).toMatchObject({
      status: 'success',
      payment_amount: '299.00',
      payment_total: '299.00',
      currency: 'TL',
      returns: [{ return_amount: '10.50' }],
    });
  });
});
