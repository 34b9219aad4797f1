import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { expectFailure, expectSuccess } from '../helpers/client.js';
import { createWorkspace, type WorkspaceFixture } from '../helpers/factories.js';
import { type TestApp, useTestApp } from '../helpers/test-app.js';
import { instanceAdmin, postCallback, signedCallback } from '../billing/billing-helpers.js';
import { as, checkout, eventsOf, getSubscription, paidPayment, paymentByOid, type RefundBody, refundRoute, workspaceId } from '../billing/billing-client.js';

// One database for this file alone, so the credit-note numbers start at CN-<year>-000001.
const ctx = useTestApp({ sessionTtlDays: 3650 });

/** POST /api/admin/payments/{paymentId}/refund/ as `token`, with an Idempotency-Key when given. */
const refund = (t: TestApp, token: string, paymentId: string, body: RefundBody, idempotencyKey?: string) =>
  as(t, token).POST(refundRoute, {
    params: { path: { paymentId }, ...(idempotencyKey ? { header: { 'idempotency-key': idempotencyKey } } : {}) },
    body,
  });
const creditNotes = (t: TestApp, ws: WorkspaceFixture, token: string, query: { offset?: number } = {}) =>
  as(t, token).GET('/api/workspaces/{slug}/billing/credit-notes/', { params: { path: { slug: ws.slug }, query } });

describe('refunds through the sandbox provider', () => {
  it('journey: checkout, pay, partial refund, full refund, credit notes, events', async () => {
    const t = ctx();
    const { api, clock } = t;
    const year = clock.now().getUTCFullYear();
    const operator = await instanceAdmin(t);
    const ws = await createWorkspace(api);
    const wsId = await workspaceId(t, ws);
    const payment = await paidPayment(t, ws);
    expect(payment).toMatchObject({ status: 'success', amount: 29900, refunded_amount: 0 });

    // the operator sees it in the list of every workspace's payments, filtered by workspace and status
    const listed = expectSuccess(await as(t, operator.token).GET('/api/admin/payments/', { params: { query: { workspace: ws.slug, status: 'success' } } }));
    expect(listed).toMatchObject({ total: 1, offset: 0, per_page: 20 });
    expect(listed.results[0]).toMatchObject({ id: payment.id, workspace_slug: ws.slug, refunded_amount: 0 });

    // partial refund
    const first = expectSuccess(await refund(t, operator.token, payment.id, { amount: 10000, reason: 'Asked by the customer' }), 201);
    expect(first).toEqual({
      id: expect.any(String),
      payment_id: payment.id,
      amount: 10000,
      currency: 'TRY',
      reason: 'Asked by the customer',
      credit_note_number: `CN-${year}-000001`,
      created_at: clock.now().toISOString(),
      // contract 19.4-19.5: the KDV split at the default 20 %, no billing profile, the default seller
      net_amount: 8333,
      tax_rate_bp: 2000,
      tax_amount: 1667,
      bill_to: null,
      seller: { name: 'Work Item Service', tax_id: null, tax_office: null, address: null },
    });
    let p = await paymentByOid(t, ws, payment.merchant_oid);
    expect(p).toMatchObject({ status: 'success', refunded_amount: 10000 });

    // more than what is left: 400, nothing changes
    const over = expectFailure(await refund(t, operator.token, payment.id, { amount: 19901 }), 400, 'validation_failed');
    expect(over.errors![0]!.path).toBe('/amount');

    // the rest (amount defaults to what is left): the payment is refunded
    const second = expectSuccess(await refund(t, operator.token, payment.id, {}), 201);
    expect(second).toMatchObject({ amount: 19900, credit_note_number: `CN-${year}-000002`, reason: null });
    p = await paymentByOid(t, ws, payment.merchant_oid);
    expect(p).toMatchObject({ status: 'refunded', refunded_amount: 29900 });

    // a refunded payment cannot be refunded again: 409
    expectFailure(await refund(t, operator.token, payment.id, {}), 409, 'conflict');

    // the sandbox's page of the order shows the refund
    const sandboxPage = await fetch(payment.iframe_url);
    expect(await sandboxPage.text()).toContain('Refunded: <strong id="refunded">299.00 TL</strong> of 299.00 TL');
    const notes = expectSuccess(await creditNotes(t, ws, ws.admin.token));
    expect(notes.total).toBe(2);
    expect(notes.results.map((n) => n.credit_note_number)).toEqual([`CN-${year}-000002`, `CN-${year}-000001`]);

    // events through the outbox, once each
    const refunded = await eventsOf(t, wsId, 'payment.refunded');
    expect(refunded).toHaveLength(2);
    expect(refunded[1]!.data as any).toMatchObject({ id: payment.id, status: 'refunded', refunded_amount: 29900 });
    expect(await eventsOf(t, wsId, 'payment.succeeded')).toHaveLength(1);
    expect(await eventsOf(t, wsId, 'invoice.created')).toHaveLength(1);
    const updated = await eventsOf(t, wsId, 'subscription.updated');
    expect(updated).toHaveLength(1);
    expect(updated[0]!.data).toMatchObject({ subscription: { status: 'active' }, limits: { plan_slug: 'pro' }, previous_status: null });
  });

  it('the same Idempotency-Key answers the same result and refunds once', async () => {
    const t = ctx();
    const operator = await instanceAdmin(t);
    const ws = await createWorkspace(t.api);
    const payment = await paidPayment(t, ws);
    const key = `refund-${payment.id}`;
    const a = await refund(t, operator.token, payment.id, { amount: 5000 }, key);
    const b = await refund(t, operator.token, payment.id, { amount: 5000 }, key);
    expectSuccess(a, 201);
    expectSuccess(b, 201);
    expect(b.data).toEqual(a.data);
    expect(b.response.headers.get('idempotent-replayed')).toBe('true');
    expect((await paymentByOid(t, ws, payment.merchant_oid)).refunded_amount).toBe(5000);
    // the same key for another payment: 409
    const other = await paidPayment(t, ws, { plan_slug: 'business', billing_interval: 'month' });
    expectFailure(await refund(t, operator.token, other.id, { amount: 5000 }, key), 409, 'conflict');
  });

  it('two concurrent refunds of the same payment never refund more than was paid', async () => {
    const t = ctx();
    const operator = await instanceAdmin(t);
    const ws = await createWorkspace(t.api);
    const payment = await paidPayment(t, ws);
    const answers = await Promise.all(Array.from({ length: 4 }, () => refund(t, operator.token, payment.id, { amount: 20000 })));
    const statuses = answers.map((r) => r.response.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.every((s) => s === 201 || s === 400 || s === 409)).toBe(true);
    const p = await paymentByOid(t, ws, payment.merchant_oid);
    expect(p.refunded_amount).toBe(20000);
    const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM refunds WHERE payment_id = ${payment.id}`.execute(t.database.db);
    expect(r.rows[0]!.n).toBe(1);
  });

  it('a refund the provider refuses answers 502 and changes nothing', async () => {
    const t = ctx();
    const operator = await instanceAdmin(t);
    const ws = await createWorkspace(t.api);
    const wsId = await workspaceId(t, ws);
    // Settled by a signed callback sent directly: the sandbox never saw the order paid, so it refuses the refund.
    const session = await checkout(t, ws);
    expect((await postCallback(t, signedCallback(t, session.merchant_oid, 'success', session.amount))).text).toBe('OK');
    const payment = await paymentByOid(t, ws, session.merchant_oid);
    expect(payment.status).toBe('success');
    const before = await sql`SELECT * FROM payments WHERE id = ${payment.id}`.execute(t.database.db);
    const eventsBefore = (await eventsOf(t, wsId)).length;
    const key = `refused-${payment.id}`;

    const res = await refund(t, operator.token, payment.id, { amount: 1000, cancel_subscription: true }, key);
    expectFailure(res, 502, 'payment_provider_error');
    expect(JSON.stringify(res.error)).not.toContain(t.config.paytr.merchantKey);

    const after = await sql`SELECT * FROM payments WHERE id = ${payment.id}`.execute(t.database.db);
    expect(after.rows).toEqual(before.rows);
    const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM refunds WHERE payment_id = ${payment.id}`.execute(t.database.db);
    expect(r.rows[0]!.n).toBe(0);
    expect((await eventsOf(t, wsId)).length).toBe(eventsBefore);
    expect((await getSubscription(t, ws)).subscription?.status).toBe('active');
    // the key is free again: a later attempt is a new attempt (refused again here)
    expectFailure(await refund(t, operator.token, payment.id, { amount: 1000 }, key), 502, 'payment_provider_error');
  });

  it('cancel_subscription: true cancels the subscription at once, in the same transaction', async () => {
    const t = ctx();
    const operator = await instanceAdmin(t);
    const ws = await createWorkspace(t.api);
    const wsId = await workspaceId(t, ws);
    const payment = await paidPayment(t, ws);
    expectSuccess(await refund(t, operator.token, payment.id, { cancel_subscription: true }), 201);
    const state = await getSubscription(t, ws);
    expect(state.subscription?.status).toBe('canceled');
    expect(state.limits.plan_slug).toBe('free');
    const updated = await eventsOf(t, wsId, 'subscription.updated');
    expect(updated.map((e) => (e.data as any).previous_status)).toEqual([null, 'active']);
    expect((updated[1]!.data as any).subscription.status).toBe('canceled');
  });

  it('validates: 404 unknown payment, 409 pending or failed payment, 400 bad amount and body, 403 for non-operators', async () => {
    const t = ctx();
    const operator = await instanceAdmin(t);
    const ws = await createWorkspace(t.api);
    const token = operator.token;
    expectFailure(await refund(t, token, '0190f4a1-0000-7000-8000-000000000000', {}), 404, 'not_found');
    expectFailure(await refund(t, token, 'not-a-uuid', {}), 400, 'validation_failed');
    const pending = await checkout(t, ws);
    const pendingPayment = await paymentByOid(t, ws, pending.merchant_oid);
    expectFailure(await refund(t, token, pendingPayment.id, {}), 409, 'conflict');
    const failed = await checkout(t, ws);
    await postCallback(t, signedCallback(t, failed.merchant_oid, 'failed', failed.amount));
    expectFailure(await refund(t, token, (await paymentByOid(t, ws, failed.merchant_oid)).id, {}), 409, 'conflict');

    const paid = await paidPayment(t, ws);
    // '100' and an unknown field are what the types forbid: sent on purpose
    for (const body of [{ amount: 0 }, { amount: -5 }, { amount: 1.5 }, { amount: 29901 }, { amount: '100' }, { extra: 1 }] as RefundBody[]) {
      const problem = expectFailure(await refund(t, token, paid.id, body), 400, 'validation_failed');
      expect(problem.errors!.length).toBeGreaterThan(0);
    }
    // the workspace admin is not an instance admin
    expectFailure(await refund(t, ws.admin.token, paid.id, {}), 403, 'forbidden');
    const payments = (token: string, query: { per_page?: number; status?: 'pending' | 'success' | 'failed' | 'refunded' } = {}) =>
      as(t, token).GET('/api/admin/payments/', { params: { query } });
    expectFailure(await payments(ws.admin.token), 403, 'forbidden');
    expectFailure(await payments(token, { per_page: 0 }), 400, 'validation_failed');
    expectFailure(await payments(token, { status: 'weird' as 'pending' }), 400, 'validation_failed');
    expect((await paymentByOid(t, ws, paid.merchant_oid)).refunded_amount).toBe(0);
  });

  it('credit notes: admin only, paginated, and never another workspace', async () => {
    const t = ctx();
    const operator = await instanceAdmin(t);
    const ws = await createWorkspace(t.api);
    const other = await createWorkspace(t.api);
    const payment = await paidPayment(t, ws);
    expectSuccess(await refund(t, operator.token, payment.id, { amount: 100 }), 201);
    const member = await ws.addUser('member');
    expectFailure(await creditNotes(t, ws, member.token), 403, 'forbidden');
    expectFailure(await creditNotes(t, ws, other.admin.token), 404, 'not_found');
    expectFailure(await creditNotes(t, ws, ws.admin.token, { offset: -1 }), 400, 'validation_failed');
    const page = await creditNotes(t, other, other.admin.token);
    expect(page.data).toEqual({ results: [], total: 0, offset: 0, per_page: 20 });
  });
});
