import { sql } from 'kysely';
import { expect } from 'vitest';
import type { operations } from '../../client/src/index.js';
import { clientFor, expectSuccess } from '../helpers/client.js';
import type { WorkspaceFixture } from '../helpers/factories.js';
import type { TestApp } from '../helpers/test-app.js';
import { pressSandbox } from './billing-helpers.js';

// The billing tests of refunds, reconciliation, notices and plan changes call the API through the generated typed client (client/), as `as(t, token)`.
export const as = (t: TestApp, token: string) => clientFor(t.url, token);

export const refundRoute = '/api/admin/payments/{paymentId}/refund/' as const;
export const reconcileRoute = '/api/admin/payments/{paymentId}/reconcile/' as const;
export const byPaymentId = (paymentId: string) => ({ params: { path: { paymentId } } });

export type CheckoutBody = operations['createCheckout']['requestBody']['content']['application/json'];
export type RefundBody = operations['adminRefundPayment']['requestBody']['content']['application/json'];

/** Starts a checkout as the workspace admin (201). */
export async function checkout(t: TestApp, ws: WorkspaceFixture, body: CheckoutBody = { plan_slug: 'pro', billing_interval: 'month' }) {
  return expectSuccess(await as(t, ws.admin.token).POST('/api/workspaces/{slug}/billing/checkout/', { params: { path: { slug: ws.slug } }, body }), 201);
}

/** The workspace's subscription and limits (200). */
export async function getSubscription(t: TestApp, ws: WorkspaceFixture, token = ws.admin.token) {
  return expectSuccess(await as(t, token).GET('/api/workspaces/{slug}/billing/subscription/', { params: { path: { slug: ws.slug } } }));
}

/** Checkout and Pay through the sandbox; answers the payment record as the admin list shows it. */
export async function paidPayment(t: TestApp, ws: WorkspaceFixture, body: CheckoutBody = { plan_slug: 'pro', billing_interval: 'month' }) {
  const session = await checkout(t, ws, body);
  await pressSandbox(session.iframe_url!, 'pay');
  return { ...(await paymentByOid(t, ws, session.merchant_oid)), iframe_url: session.iframe_url! };
}

export async function paymentByOid(t: TestApp, ws: WorkspaceFixture, merchantOid: string) {
  const page = expectSuccess(
    await as(t, ws.admin.token).GET('/api/workspaces/{slug}/billing/payments/', { params: { path: { slug: ws.slug }, query: { per_page: 100 } } }),
  );
  const p = page.results.find((x) => x.merchant_oid === merchantOid);
  expect(p).toBeDefined();
  return p!;
}

export async function eventsOf(t: TestApp, workspaceId: string, type?: string) {
  let q = t.database.db.selectFrom('events').selectAll().where('workspace_id', '=', workspaceId);
  if (type) q = q.where('type', '=', type);
  return q.orderBy('created_at').orderBy('id').execute();
}

export async function workspaceId(t: TestApp, ws: WorkspaceFixture): Promise<string> {
  const r = await sql<{ id: string }>`SELECT id FROM workspaces WHERE slug = ${ws.slug}`.execute(t.database.db);
  return r.rows[0]!.id;
}
