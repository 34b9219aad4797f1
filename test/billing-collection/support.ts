import { expect } from 'vitest';
import type { WorkspaceFixture } from '../helpers/factories.js';
import type { TestApp } from '../helpers/test-app.js';

/** The sandbox's test cards (contract 19.7). */
export const CARDS = {
  ok: '4355084355084358',
  insufficientFunds: '4000000000000341',
  closed: '4000000000000069',
  declined: '4000000000000002',
  /** Sandbox extension: later charges answer wait_callback and settle by the notification. */
  waitCallback: '4000000000003220',
} as const;

export const billing = (ws: WorkspaceFixture, rest: string) => `/api/workspaces/${ws.slug}/billing/${rest}`;

/** Checkout (save_card by default) and Pay on the sandbox's page with `card`: the browser's part. */
export async function subscribeWithCard(t: TestApp, ws: WorkspaceFixture, card: string = CARDS.ok, body: Record<string, unknown> = {}) {
  const session = await t.api.post(billing(ws, 'checkout/'), { plan_slug: 'pro', billing_interval: 'month', ...body }, { token: ws.admin.token });
  expect(session.status, session.text).toBe(201);
  const res = await fetch(`${session.body.iframe_url}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ card_number: card }).toString(),
    redirect: 'manual',
  });
  expect(res.status).toBe(303);
  return session.body as { merchant_oid: string; iframe_url: string; amount: number };
}

export async function subscription(t: TestApp, ws: WorkspaceFixture) {
  const res = await t.api.get(billing(ws, 'subscription/'), { token: ws.admin.token });
  expect(res.status, res.text).toBe(200);
  return res.body.subscription as Record<string, any>;
}

export async function paymentMethods(t: TestApp, ws: WorkspaceFixture) {
  const res = await t.api.get(billing(ws, 'payment-methods/'), { token: ws.admin.token });
  expect(res.status, res.text).toBe(200);
  return res.body as Record<string, any>[];
}

export async function payments(t: TestApp, ws: WorkspaceFixture) {
  const res = await t.api.get(billing(ws, 'payments/?per_page=100'), { token: ws.admin.token });
  expect(res.status, res.text).toBe(200);
  return res.body.results as Record<string, any>[];
}

/** Advances the workspace's test clock to `to` (ISO) and answers the clock and the subscription response. */
export async function advance(t: TestApp, ws: WorkspaceFixture, to: string | Date) {
  const res = await t.api.post(billing(ws, 'test-clock/advance/'), { to: new Date(to).toISOString() }, { token: ws.admin.token });
  expect(res.status, res.text).toBe(200);
  return res.body as { now: string; offset_seconds: number; subscription: Record<string, any>; limits: Record<string, any> };
}

export const plusDays = (iso: string, days: number, extraMs = 0) => new Date(new Date(iso).getTime() + days * 86_400_000 + extraMs).toISOString();

/** Charges the sandbox made for a workspace's utoken (its own books: what a real provider would have charged). */
export async function sandboxCharges(t: TestApp, workspaceId: string): Promise<number> {
  const r = await t.database.db
    .selectFrom('sandbox_charges as c')
    .innerJoin('payment_customers as pc', 'pc.utoken', 'c.utoken')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('pc.workspace_id', '=', workspaceId)
    .where('c.status', '=', 'success')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
