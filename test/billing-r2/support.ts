import { sql } from 'kysely';
import { expect } from 'vitest';
import type { WorkspaceFixture } from '../helpers/factories.js';
import type { TestApp } from '../helpers/test-app.js';
import { checkout, pressSandbox } from '../billing/billing-helpers.js';

export const refundPath = (paymentId: string) => `/api/admin/payments/${paymentId}/refund/`;
export const reconcilePath = (paymentId: string) => `/api/admin/payments/${paymentId}/reconcile/`;

/** Checkout and Pay through the sandbox; answers the payment record as the admin list shows it. */
export async function paidPayment(t: TestApp, ws: WorkspaceFixture, body: Record<string, unknown> = { plan_slug: 'pro', billing_interval: 'month' }) {
  const session = await checkout(t.api, ws, body);
  await pressSandbox(session.iframe_url!, 'pay');
  return { ...(await paymentByOid(t, ws, session.merchant_oid)), iframe_url: session.iframe_url! };
}

export async function paymentByOid(t: TestApp, ws: WorkspaceFixture, merchantOid: string) {
  const res = await t.api.get(`/api/workspaces/${ws.slug}/billing/payments/?per_page=100`, { token: ws.admin.token });
  expect(res.status, res.text).toBe(200);
  const p = (res.body.results as any[]).find((x) => x.merchant_oid === merchantOid);
  expect(p).toBeDefined();
  return p as Record<string, any> & { id: string; merchant_oid: string; amount: number; status: string; refunded_amount: number };
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
