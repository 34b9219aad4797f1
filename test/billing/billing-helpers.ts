import { sql } from 'kysely';
import { expect } from 'vitest';
import { callbackHash } from '../../src/modules/billing/provider/paytr/index.js';
import type { Api } from '../helpers/http.js';
import { signUp, type Session, type WorkspaceFixture } from '../helpers/factories.js';
import type { TestApp } from '../helpers/test-app.js';

export const billingPath = (ws: WorkspaceFixture, path: string): string => `/api/workspaces/${ws.slug}/billing/${path}`;

/** A signed-up user made instance admin directly in the database (the first-user rule depends on test order). */
export async function instanceAdmin(t: TestApp): Promise<Session> {
  const session = await signUp(t.api, 'Operator');
  await sql`UPDATE users SET is_instance_admin = true WHERE id = ${session.user.id}`.execute(t.database.db);
  return session;
}

export async function getSubscription(api: Api, ws: WorkspaceFixture, token = ws.admin.token) {
  const res = await api.get(billingPath(ws, 'subscription/'), { token });
  expect(res.status, res.text).toBe(200);
  return res.body as { subscription: Record<string, any> | null; limits: Record<string, any> };
}

export async function checkout(api: Api, ws: WorkspaceFixture, body: Record<string, unknown> = { plan_slug: 'pro', billing_interval: 'month' }) {
  const res = await api.post(billingPath(ws, 'checkout/'), body, { token: ws.admin.token });
  expect(res.status, res.text).toBe(201);
  return res.body as { iframe_token: string | null; iframe_url: string | null; merchant_oid: string; amount: number; currency: string };
}

/** Presses Pay or Decline on the sandbox payment page, as a browser would (the sandbox then calls our callback). */
export async function pressSandbox(iframeUrl: string, outcome: 'pay' | 'decline', reason?: string) {
  const page = await fetch(iframeUrl);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain(`/${outcome}`);
  const res = await fetch(`${iframeUrl}/${outcome}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(reason ? { reason } : {}).toString(),
    redirect: 'manual',
  });
  expect(res.status).toBe(303);
  return res.headers.get('location');
}

/** A callback signed with the configured merchant credentials, as form fields. */
export function signedCallback(
  t: TestApp,
  merchantOid: string,
  status: 'success' | 'failed',
  totalAmount: number | string,
  extra: Record<string, string> = {},
): URLSearchParams {
  return new URLSearchParams({
    merchant_oid: merchantOid,
    status,
    total_amount: String(totalAmount),
    hash: callbackHash(t.config.paytr, merchantOid, status, String(totalAmount)),
    ...extra,
  });
}

export async function postCallback(t: TestApp, form: URLSearchParams | string, contentType = 'application/x-www-form-urlencoded') {
  return t.api.request('POST', '/api/webhooks/provider/callback/', { raw: form.toString(), headers: { 'content-type': contentType } });
}

export async function countRows(t: TestApp, table: 'invoices' | 'payments' | 'billing_events', workspaceId: string, where = sql`true`) {
  const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)} WHERE workspace_id = ${workspaceId} AND ${where}`.execute(
    t.database.db,
  );
  return r.rows[0]!.n;
}
