/**
 * A renewal charge whose process dies mid-way (contract 19.2: "a crash between the charge and its record"). The
 * provider is reached through a proxy that can lose the request (the process died after recording the charge and
 * before sending it) or lose the answer (the provider charged; the process died before reading the answer). Either
 * way the period is charged at most once: the job never charges a recorded period again, and reconciliation (13) or
 * the provider's notification settles what is unknown.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../helpers/factories.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { billing, CARDS, payments, plusDays, sandboxCharges, subscribeWithCard, subscription } from './support.js';

type Mode = 'pass' | 'lose-request' | 'lose-answer';

/** Forwards to the service's own sandbox; in a losing mode, the Direct API charge (`/odeme`) goes wrong. */
function faultyProvider() {
  const state: { mode: Mode; target: string } = { mode: 'pass', target: '' };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const isCharge = req.url === '/sandbox/paytr/odeme';
      if (isCharge && state.mode === 'lose-request') return res.destroy();
      const upstream = await fetch(`${state.target}${req.url}`, {
        method: req.method,
        headers: { 'content-type': req.headers['content-type'] ?? 'application/x-www-form-urlencoded' },
        body: req.method === 'GET' ? undefined : Buffer.concat(chunks),
      });
      const body = Buffer.from(await upstream.arrayBuffer());
      if (isCharge && state.mode === 'lose-answer') return res.destroy();
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'text/plain' }).end(body);
    });
  });
  return { state, server };
}

describe('a renewal charge cut off mid-way is charged once', () => {
  const provider = faultyProvider();
  let t: TestApp;
  beforeAll(async () => {
    await new Promise<void>((resolve) => provider.server.listen(0, '127.0.0.1', resolve));
    const { port } = provider.server.address() as { port: number };
    t = await startTestApp({ paytr: { apiBase: `http://127.0.0.1:${port}/sandbox/paytr` } });
    provider.state.target = t.url;
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => provider.server.close(resolve));
  });

  it('lost before the provider: pending, never charged again, reconciled as a failed charge after the order timeout', async () => {
    const ws = await createWorkspace(t.api);
    await subscribeWithCard(t, ws, CARDS.ok);
    const end = (await subscription(t, ws)).current_period_end as string;
    const start = t.clock.now();
    try {
      t.clock.set(plusDays(end, 0, 1000));
      provider.state.mode = 'lose-request';
      await t.app.services.billing.runCollection();
      provider.state.mode = 'pass';
      const pending = await t.database.db
        .selectFrom('payments')
        .select(['status', 'kind'])
        .where('workspace_id', '=', ws.workspaceId)
        .where('kind', '=', 'renewal')
        .execute();
      expect(pending).toEqual([{ status: 'pending', kind: 'renewal' }]);
      // the job runs again (another instance, a restart): the recorded period is not charged again
      await t.app.services.billing.runCollection();
      expect(await sandboxCharges(t, ws.workspaceId)).toBe(0);
      // reconciliation: the provider does not know the order; once the order timeout has passed it is a failed charge
      t.clock.advance(31 * 60_000);
      await t.app.services.reconcile.run();
      const sub = await t.database.db.selectFrom('subscriptions').selectAll().where('workspace_id', '=', ws.workspaceId).executeTakeFirstOrThrow();
      expect({ status: sub.status, attempts: sub.dunning_attempts, next: sub.next_retry_at?.toISOString() }).toEqual({
        status: 'past_due',
        attempts: 1,
        next: plusDays(end, 1),
      });
      // the scheduled retry charges the card once
      t.clock.set(plusDays(end, 1, 1000));
      await t.app.services.billing.runCollection();
      expect(await sandboxCharges(t, ws.workspaceId)).toBe(1);
      const after = await t.database.db.selectFrom('subscriptions').selectAll().where('workspace_id', '=', ws.workspaceId).executeTakeFirstOrThrow();
      expect({ status: after.status, start: after.current_period_start.toISOString() }).toEqual({ status: 'active', start: end });
    } finally {
      provider.state.mode = 'pass';
      t.clock.set(start);
    }
  });

  it('lost after the provider charged: the notification or reconciliation settles it; the period is charged once', async () => {
    const ws = await createWorkspace(t.api);
    await subscribeWithCard(t, ws, CARDS.ok);
    const end = (await subscription(t, ws)).current_period_end as string;
    const start = t.clock.now();
    try {
      t.clock.set(plusDays(end, 0, 1000));
      provider.state.mode = 'lose-answer';
      await t.app.services.billing.runCollection();
      provider.state.mode = 'pass';
      expect(await sandboxCharges(t, ws.workspaceId)).toBe(1);
      // the provider's notification (sent as the charge was made) or, failing it, reconciliation settles the payment
      t.clock.advance(11 * 60_000);
      for (let i = 0; i < 50; i++) {
        const [p] = await t.database.db
          .selectFrom('payments')
          .select('status')
          .where('workspace_id', '=', ws.workspaceId)
          .where('kind', '=', 'renewal')
          .execute();
        if (p?.status !== 'pending') break;
        await t.app.services.reconcile.run();
        await new Promise((r) => setTimeout(r, 50));
      }
      await t.app.services.billing.runCollection();
      expect(await sandboxCharges(t, ws.workspaceId)).toBe(1);
      const renewals = await t.database.db
        .selectFrom('payments')
        .select('status')
        .where('workspace_id', '=', ws.workspaceId)
        .where('kind', '=', 'renewal')
        .execute();
      expect(renewals).toEqual([{ status: 'success' }]);
      const sub = await t.database.db.selectFrom('subscriptions').selectAll().where('workspace_id', '=', ws.workspaceId).executeTakeFirstOrThrow();
      expect({ status: sub.status, start: sub.current_period_start.toISOString() }).toEqual({ status: 'active', start: end });
    } finally {
      provider.state.mode = 'pass';
      t.clock.set(start);
    }
  });

  it('the test clock answers the outcome of a charge that waits for the callback once it comes', async () => {
    const ws = await createWorkspace(t.api);
    await subscribeWithCard(t, ws, CARDS.waitCallback);
    const end = (await subscription(t, ws)).current_period_end as string;
    const res = await t.api.post(billing(ws, 'test-clock/advance/'), { to: plusDays(end, 0, 1000) }, { token: ws.admin.token });
    expect(res.status, res.text).toBe(200);
    // the charge answered wait_callback: the subscription stays active while the outcome is on its way
    expect(res.body.subscription.status).toBe('active');
    for (let i = 0; i < 50 && (await payments(t, ws))[0]!.status === 'pending'; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await payments(t, ws))[0]).toMatchObject({ kind: 'renewal', status: 'success' });
    expect((await subscription(t, ws)).current_period_start).toBe(end);
  });
});
