import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../client/src/index.js';
import { createOutbox, createSender, createWorker, webhooksRepository } from '../../src/modules/webhooks/index.js';
import { clientFor, expectFailure } from '../helpers/client.js';
import { createIssue, createProject, createWorkspace, signUp, type WorkspaceFixture } from '../helpers/factories.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { startTestApp, type TestApp, useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();
const receivers: Receiver[] = [];
afterAll(async () => Promise.all(receivers.map((r) => r.close())));

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

const as = (token: string) => clientFor(ctx().url, token);
const job = (app: TestApp, name: string) => app.app.jobs.find((j) => j.name === name)!.run();
/** Waits for `count` requests, then for the worker to have recorded their outcomes (its runs are serialised). */
async function received(r: Receiver, count: number, app: TestApp = ctx()) {
  const got = await r.waitFor(count);
  await job(app, 'webhooks.deliver');
  return got;
}

async function endpoint(ws: WorkspaceFixture, url: string, event_types: string[] = ['*']) {
  return unwrap(as(ws.admin.token).POST('/api/workspaces/{slug}/webhooks/', { params: { path: { slug: ws.slug } }, body: { url, event_types } }));
}

async function deliveries(ws: WorkspaceFixture, webhookId: string, status?: 'pending' | 'succeeded' | 'failed') {
  return unwrap(
    as(ws.admin.token).GET('/api/workspaces/{slug}/webhooks/{webhookId}/deliveries/', {
      params: { path: { slug: ws.slug, webhookId }, query: { per_page: 100, ...(status ? { status } : {}) } },
    }),
  );
}

function delivery(ws: WorkspaceFixture, webhookId: string, deliveryId: string) {
  return unwrap(
    as(ws.admin.token).GET('/api/workspaces/{slug}/webhooks/{webhookId}/deliveries/{deliveryId}/', {
      params: { path: { slug: ws.slug, webhookId, deliveryId } },
    }),
  );
}

const verify = (secret: string, r: { body: string; headers: Record<string, unknown> }) =>
  new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as { id: string; type: string; data: any };

describe('webhook endpoints', () => {
  it('creates an endpoint whose secret is shown once, and lists and reads it without the secret', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const r = await receiver();
    const created = await as(ws.admin.token).POST('/api/workspaces/{slug}/webhooks/', {
      params: { path: { slug: ws.slug } },
      body: { url: r.url, description: 'CI', event_types: ['issue.created', 'comment.created'] },
    });
    expect(created.response.status).toBe(201);
    expect(created.data).toMatchObject({
      url: r.url,
      description: 'CI',
      event_types: ['issue.created', 'comment.created'],
      is_active: true,
      disabled_reason: null,
      workspace_id: ws.workspaceId,
    });
    expect(created.data!.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.data!.secret.slice(6), 'base64')).toHaveLength(32);
    const path = { slug: ws.slug, webhookId: created.data!.id };
    const read = await unwrap(as(ws.admin.token).GET('/api/workspaces/{slug}/webhooks/{webhookId}/', { params: { path } }));
    expect(read).not.toHaveProperty('secret');
    const list = await unwrap(as(ws.admin.token).GET('/api/workspaces/{slug}/webhooks/', { params: { path: { slug: ws.slug } } }));
    expect(list.map((w) => w.id)).toEqual([created.data!.id]);
    expect(list[0]).not.toHaveProperty('secret');
    const patched = await unwrap(
      as(ws.admin.token).PATCH('/api/workspaces/{slug}/webhooks/{webhookId}/', { params: { path }, body: { description: null, event_types: ['*'] } }),
    );
    expect(patched).toMatchObject({ description: null, event_types: ['*'] });
    expect((await as(ws.admin.token).DELETE('/api/workspaces/{slug}/webhooks/{webhookId}/', { params: { path } })).response.status).toBe(204);
    expectFailure(await as(ws.admin.token).GET('/api/workspaces/{slug}/webhooks/{webhookId}/', { params: { path } }), 404);
  });

  it('is for admins only: members and guests get 403, other workspaces 404', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const other = await createWorkspace(api);
    const hook = await endpoint(ws, (await receiver()).url);
    for (const role of ['member', 'guest'] as const) {
      const user = await ws.addUser(role);
      expectFailure(await as(user.token).GET('/api/workspaces/{slug}/webhooks/', { params: { path: { slug: ws.slug } } }), 403, 'forbidden');
      expectFailure(
        await as(user.token).POST('/api/workspaces/{slug}/webhooks/{webhookId}/ping/', { params: { path: { slug: ws.slug, webhookId: hook.id } } }),
        403,
      );
    }
    const outsider = await signUp(api);
    expectFailure(await as(outsider.token).GET('/api/workspaces/{slug}/webhooks/', { params: { path: { slug: ws.slug } } }), 404);
    // another workspace's admin, naming this workspace's endpoint under their own workspace
    const path = { slug: other.slug, webhookId: hook.id };
    expectFailure(await as(other.admin.token).GET('/api/workspaces/{slug}/webhooks/{webhookId}/', { params: { path } }), 404);
    expectFailure(await as(other.admin.token).PATCH('/api/workspaces/{slug}/webhooks/{webhookId}/', { params: { path }, body: { is_active: false } }), 404);
    expectFailure(await as(other.admin.token).DELETE('/api/workspaces/{slug}/webhooks/{webhookId}/', { params: { path } }), 404);
    expectFailure(await as(other.admin.token).POST('/api/workspaces/{slug}/webhooks/{webhookId}/rotate-secret/', { params: { path } }), 404);
    expectFailure(await as(other.admin.token).GET('/api/workspaces/{slug}/webhooks/{webhookId}/deliveries/', { params: { path } }), 404);
  });

  it('refuses bad URLs and event types with 400 naming the field', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const post = (body: { url: string; event_types: string[] }) =>
      as(ws.admin.token).POST('/api/workspaces/{slug}/webhooks/', { params: { path: { slug: ws.slug } }, body });
    for (const url of ['ftp://example.com/x', 'not a url', '/relative', 'http://user:pw@example.com/', `https://example.com/${'a'.repeat(2048)}`]) {
      expect(expectFailure(await post({ url, event_types: ['*'] }), 400, 'validation_failed').errors?.[0]?.path).toBe('/url');
    }
    expect(expectFailure(await post({ url: 'https://example.com/', event_types: ['issue.exploded'] }), 400).errors?.[0]?.path).toBe('/event_types/0');
    expect(expectFailure(await post({ url: 'https://example.com/', event_types: [] }), 400).errors?.[0]?.path).toBe('/event_types');
    expect(expectFailure(await post({ url: 'https://example.com/', event_types: ['*', 'issue.created'] }), 400).errors?.[0]?.path).toBe('/event_types');
  });

  it('allows at most 20 endpoints per workspace (409)', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const r = await receiver();
    for (let i = 0; i < 20; i++) await endpoint(ws, `${r.url}/${i}`);
    expectFailure(
      await as(ws.admin.token).POST('/api/workspaces/{slug}/webhooks/', { params: { path: { slug: ws.slug } }, body: { url: r.url, event_types: ['*'] } }),
      409,
      'conflict',
    );
  });
});

describe('deliveries', () => {
  it('delivers issue.created within 2 seconds, signed for the standardwebhooks package, with the issue as the API shows it', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const r = await receiver();
    const hook = await endpoint(ws, r.url, ['issue.created']);
    const project = await createProject(api, ws);
    const started = Date.now();
    const issue = await createIssue(api, ws, project.id, { name: 'Printer on fire', priority: 'urgent' });
    const [got] = await r.waitFor(1, 2_000);
    await job(ctx(), 'webhooks.deliver');
    expect(Date.now() - started).toBeLessThan(2_000);
    const event = verify(hook.secret, got!);
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['webhook-id']).toBe(event.id);
    expect(event).toMatchObject({ type: 'issue.created', workspace_id: ws.workspaceId });
    // The issue as the API shows it, less `watching` (the caller's own, contract 26.1): webhook payloads have none.
    const { watching, ...shown } = (await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/`, { token: ws.admin.token })).body;
    expect(watching).toBe(true);
    expect(event.data).toEqual(shown);
    const log = await deliveries(ws, hook.id);
    expect(log.results).toHaveLength(1);
    expect(log.results[0]).toMatchObject({
      event_id: event.id,
      event_type: 'issue.created',
      status: 'succeeded',
      attempts: 1,
      last_status_code: 200,
      next_attempt_at: null,
    });
    expect((await api.get('/metrics')).text).toMatch(/webhook_attempts_total\{outcome="succeeded"\} [1-9]/);
  });

  it('delivers comment.created with the comment and its issue, and issue.updated and issue.deleted', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const r = await receiver();
    const hook = await endpoint(ws, r.url, ['comment.created', 'issue.updated', 'issue.deleted']);
    const project = await createProject(api, ws);
    const issue = await createIssue(api, ws, project.id);
    const base = `/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/`;
    const comment = (await api.post(`${base}comments/`, { body: 'On it' }, { token: ws.admin.token })).body;
    await received(r, 1);
    await api.patch(base, { priority: 'high' }, { token: ws.admin.token });
    await received(r, 2);
    await api.delete(base, { token: ws.admin.token });
    const got = (await received(r, 3)).map((g) => verify(hook.secret, g));
    expect(got.map((e) => e.type)).toEqual(['comment.created', 'issue.updated', 'issue.deleted']);
    expect(got[0]!.data).toMatchObject({ comment: { id: comment.id, body: 'On it' }, issue: { id: issue.id } });
    expect(got[1]!.data).toMatchObject({ id: issue.id, priority: 'high' });
    expect(got[2]!.data).toMatchObject({ id: issue.id });
  });

  it('records several events of several workspaces in one go, each delivered to exactly the endpoints that take its type', async () => {
    const { api, app, database } = ctx();
    const a = await createWorkspace(api);
    const b = await createWorkspace(api);
    const r = await receiver();
    const aAll = await endpoint(a, r.url, ['*']);
    const aBreached = await endpoint(a, r.url, ['sla.breached']);
    const bRisk = await endpoint(b, r.url, ['sla.at_risk']);
    const ids = await database.db.transaction().execute((tx) =>
      app.outbox.recordMany(tx, [
        { workspaceId: a.workspaceId, type: 'sla.at_risk', data: { n: 1 } },
        { workspaceId: a.workspaceId, type: 'sla.breached', data: { n: 2 } },
        { workspaceId: b.workspaceId, type: 'sla.breached', data: { n: 3 } },
        { workspaceId: b.workspaceId, type: 'sla.at_risk', data: { n: 4 } },
      ]),
    );
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(4);
    const events = async (ws: typeof a) => (await webhooksRepository().listEvents(database.db, ws.workspaceId)).map((e) => e.id).sort();
    expect(await events(a)).toEqual([ids[0], ids[1]].sort());
    expect(await events(b)).toEqual([ids[2], ids[3]].sort());
    const eventsOf = async (ws: typeof a, hookId: string) => (await deliveries(ws, hookId)).results.map((d) => d.event_id).sort();
    expect(await eventsOf(a, aAll.id)).toEqual([ids[0], ids[1]].sort());
    expect(await eventsOf(a, aBreached.id)).toEqual([ids[1]]);
    expect(await eventsOf(b, bRisk.id)).toEqual([ids[3]]);
    expect(await database.db.transaction().execute((tx) => app.outbox.recordMany(tx, []))).toEqual([]);
  });

  it('records no event for a change that rolls back', async () => {
    const { api, app, database } = ctx();
    const ws = await createWorkspace(api);
    await expect(
      database.db.transaction().execute(async (tx) => {
        await app.outbox.record(tx, { workspaceId: ws.workspaceId, type: 'issue.created', data: { id: 'x' } });
        throw new Error('the change fails after recording its event');
      }),
    ).rejects.toThrow('fails');
    expect(await webhooksRepository().listEvents(database.db, ws.workspaceId)).toEqual([]);
  });

  it('retries a failed attempt on the schedule with the same webhook-id, and honours a longer Retry-After', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const r = await receiver();
    const hook = await endpoint(ws, r.url, ['issue.created']);
    const project = await createProject(t.api, ws);
    r.script({ status: 500 }, { status: 503, headers: { 'retry-after': '120' } });
    await createIssue(t.api, ws, project.id);
    await received(r, 1);
    const [first] = (await deliveries(ws, hook.id)).results;
    expect(first).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500 });
    expect(Date.parse(first!.next_attempt_at!) - Date.parse(first!.created_at)).toBe(5_000);

    t.clock.advance(5_000);
    await job(t, 'webhooks.deliver');
    await received(r, 2);
    const second = await delivery(ws, hook.id, first!.id);
    expect(second).toMatchObject({ status: 'pending', attempts: 2, last_status_code: 503 });
    // the schedule says 300 s, the receiver asked for 120 s: the longer wait wins
    expect(Date.parse(second.next_attempt_at!) - t.clock.now().getTime()).toBe(300_000);

    t.clock.advance(300_000);
    await job(t, 'webhooks.deliver');
    await received(r, 3);
    const done = await delivery(ws, hook.id, first!.id);
    expect(done).toMatchObject({ status: 'succeeded', attempts: 3, last_status_code: 200, next_attempt_at: null });
    expect(done.attempt_log.map((a) => a.status_code)).toEqual([500, 503, 200]);
    expect(new Set(r.received.map((g) => g.headers['webhook-id'])).size).toBe(1);
    for (const g of r.received) verify(hook.secret, g);
  });

  it('honours a Retry-After longer than the schedule', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const r = await receiver();
    const hook = await endpoint(ws, r.url, ['issue.created']);
    r.script({ status: 429, headers: { 'retry-after': '3600' } });
    await createIssue(t.api, ws, (await createProject(t.api, ws)).id);
    await received(r, 1);
    const [d] = (await deliveries(ws, hook.id)).results;
    expect(Date.parse(d!.next_attempt_at!) - Date.parse(d!.created_at)).toBe(3_600_000);
  });

  it('disables an endpoint that answers 410 at once, and sends it nothing new', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const r = await receiver();
    const hook = await endpoint(ws, r.url, ['issue.created']);
    const project = await createProject(api, ws);
    r.script({ status: 410 });
    await createIssue(api, ws, project.id);
    await received(r, 1);
    const path = { slug: ws.slug, webhookId: hook.id };
    await expect
      .poll(async () => (await unwrap(as(ws.admin.token).GET('/api/workspaces/{slug}/webhooks/{webhookId}/', { params: { path } }))).disabled_reason)
      .toBe('gone');
    expect((await deliveries(ws, hook.id)).results[0]).toMatchObject({ status: 'failed', last_status_code: 410 });
    await createIssue(api, ws, project.id);
    expect((await deliveries(ws, hook.id)).total).toBe(1);
    const on = await unwrap(as(ws.admin.token).PATCH('/api/workspaces/{slug}/webhooks/{webhookId}/', { params: { path }, body: { is_active: true } }));
    expect(on).toMatchObject({ is_active: true, disabled_reason: null });
  });

  it('signs with both secrets for 24 hours after a rotation, the new one first', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const r = await receiver();
    const hook = await endpoint(ws, r.url, ['issue.created']);
    const path = { slug: ws.slug, webhookId: hook.id };
    const { secret } = await unwrap(as(ws.admin.token).POST('/api/workspaces/{slug}/webhooks/{webhookId}/rotate-secret/', { params: { path } }));
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(hook.secret);
    const project = await createProject(t.api, ws);
    await createIssue(t.api, ws, project.id);
    const [during] = await received(r, 1);
    const sigs = String(during!.headers['webhook-signature']).split(' ');
    expect(sigs).toHaveLength(2);
    expect(sigs.every((s) => s.startsWith('v1,'))).toBe(true);
    verify(secret, during!);
    verify(hook.secret, during!);
    expect(() => verify(hook.secret, { ...during!, headers: { ...during!.headers, 'webhook-signature': sigs[0]! } })).toThrow();

    t.clock.advance(25 * 3600 * 1000);
    await createIssue(t.api, ws, project.id);
    const [, after] = await received(r, 2);
    expect(String(after!.headers['webhook-signature']).split(' ')).toHaveLength(1);
    verify(secret, after!);
    expect(() => verify(hook.secret, after!)).toThrow();
  });

  it('pings an endpoint at once, lists deliveries newest first with a status filter, and redelivers with the same webhook-id', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const r = await receiver();
    const hook = await endpoint(ws, r.url, ['issue.created']);
    const path = { slug: ws.slug, webhookId: hook.id };
    const ping = await as(ws.admin.token).POST('/api/workspaces/{slug}/webhooks/{webhookId}/ping/', { params: { path } });
    expect(ping.response.status).toBe(201);
    expect(ping.data).toMatchObject({ event_type: 'webhook.ping', status: 'succeeded', attempts: 1, last_status_code: 200 });
    expect(ping.data!.payload).toMatchObject({ type: 'webhook.ping', workspace_id: ws.workspaceId, data: { webhook: { id: hook.id } } });
    expect(ping.data!.attempt_log).toEqual([{ at: expect.any(String), status_code: 200, duration_ms: expect.any(Number), error: null }]);
    expect(r.received).toHaveLength(1);

    r.script({ status: 500 });
    await createIssue(api, ws, (await createProject(api, ws)).id);
    await received(r, 2);
    const all = await deliveries(ws, hook.id);
    expect(all.total).toBe(2);
    expect(all.results.map((d) => d.event_type)).toEqual(['issue.created', 'webhook.ping']);
    expect((await deliveries(ws, hook.id, 'pending')).results.map((d) => d.event_type)).toEqual(['issue.created']);
    expect((await deliveries(ws, hook.id, 'succeeded')).results.map((d) => d.event_type)).toEqual(['webhook.ping']);
    const paged = await unwrap(
      as(ws.admin.token).GET('/api/workspaces/{slug}/webhooks/{webhookId}/deliveries/', { params: { path, query: { offset: 1, per_page: 1 } } }),
    );
    expect(paged).toMatchObject({ total: 2, offset: 1, per_page: 1, results: [{ event_type: 'webhook.ping' }] });
    expectFailure(
      await as(ws.admin.token).GET('/api/workspaces/{slug}/webhooks/{webhookId}/deliveries/', { params: { path, query: { status: 'lost' as 'failed' } } }),
      400,
    );

    const pending = all.results[0]!;
    const again = await unwrap(
      as(ws.admin.token).POST('/api/workspaces/{slug}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver/', {
        params: { path: { ...path, deliveryId: pending.id } },
      }),
    );
    expect(again).toMatchObject({ id: pending.id, status: 'succeeded', attempts: 2 });
    expect(r.received[2]!.headers['webhook-id']).toBe(r.received[1]!.headers['webhook-id']);
    verify(hook.secret, r.received[2]!);
  });

  it('never sends one attempt twice when several workers run at once', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const r = await receiver();
    await endpoint(ws, r.url, ['issue.created']);
    const project = await createProject(t.api, ws);
    r.fallback = { status: 500 };
    const count = 12;
    for (let i = 0; i < count; i++) await createIssue(t.api, ws, project.id);
    await received(r, count, t);
    r.fallback = { status: 200 };
    const before = r.received.length;
    t.clock.advance(5_000);
    const other = createWorker({
      db: t.database.db,
      repo: webhooksRepository(),
      clock: t.clock,
      sender: createSender(t.config.webhooks),
      config: t.config.webhooks,
    });
    await Promise.all([job(t, 'webhooks.deliver'), other.run(), job(t, 'webhooks.deliver'), other.run()]);
    await other.close();
    expect(r.received.length - before).toBe(count);
  });
});

describe('the worker', () => {
  it('sends a claim of many deliveries 20 at a time in a sliding window, and records every outcome', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    let inFlight = 0;
    let most = 0;
    let got = 0;
    const server = createHttpServer((req, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      req.resume();
      req.on('end', () =>
        setTimeout(() => {
          inFlight--;
          got++;
          res.writeHead(204).end();
        }, 20),
      );
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    try {
      const hook = await endpoint(ws, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, ['issue.created']);
      const silent = createOutbox({ repo: webhooksRepository(), clock: t.clock });
      await t.database.db.transaction().execute(async (tx) => {
        for (let n = 0; n < 45; n++) await silent.record(tx, { workspaceId: ws.workspaceId, type: 'issue.created', data: { n } });
      });
      await job(t, 'webhooks.deliver');
      expect(got).toBe(45);
      expect(most).toBeLessThanOrEqual(20);
      expect(most).toBeGreaterThan(1);
      expect((await deliveries(ws, hook.id, 'succeeded')).total).toBe(45);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('an instance that dies', () => {
  it('delivers after a restart what was committed but never sent, and what an attempt in flight never finished', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const r = await receiver();
    const hook = await endpoint(ws, r.url, ['issue.created']);
    const repo = webhooksRepository();
    // Committed, but the process died before any worker saw it: an outbox that wakes no one.
    const silent = createOutbox({ repo, clock: t.clock });
    await t.database.db.transaction().execute((tx) => silent.record(tx, { workspaceId: ws.workspaceId, type: 'issue.created', data: { n: 1 } }));
    // Claimed by an instance that was killed mid-attempt: the claim is taken, the outcome never recorded.
    await t.database.db.transaction().execute((tx) => silent.record(tx, { workspaceId: ws.workspaceId, type: 'issue.created', data: { n: 2 } }));
    const now = t.clock.now();
    const lost = await repo.claim(t.database.db, now, new Date(now.getTime() + 70_000), 1);
    expect(lost).toHaveLength(1);

    await job(t, 'webhooks.deliver'); // the restarted instance's poll
    await received(r, 1);
    t.clock.advance(70_000); // the dead instance's lease ends
    await job(t, 'webhooks.deliver');
    const got = await received(r, 2);
    expect(got.map((g) => verify(hook.secret, g).data.n).sort()).toEqual([1, 2]);
    expect((await deliveries(ws, hook.id, 'succeeded')).total).toBe(2);
  });
});

describe('webhooks that keep failing', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ webhooks: { retryScheduleS: [], disableAfter: 2 } as never });
  });
  afterAll(async () => t.close());

  it('disables an endpoint after WEBHOOK_DISABLE_AFTER deliveries in a row end failed', async () => {
    const ws = await createWorkspace(t.api);
    const r = await receiver();
    r.fallback = { status: 500 };
    const created = await t.api.post(`/api/workspaces/${ws.slug}/webhooks/`, { url: r.url, event_types: ['issue.created'] }, { token: ws.admin.token });
    const project = await createProject(t.api, ws);
    await createIssue(t.api, ws, project.id);
    await received(r, 1, t);
    await createIssue(t.api, ws, project.id);
    await received(r, 2, t);
    await expect
      .poll(async () => (await t.api.get(`/api/workspaces/${ws.slug}/webhooks/${created.body.id}/`, { token: ws.admin.token })).body)
      .toMatchObject({ is_active: false, disabled_reason: 'failing' });
  });
});

describe('target addresses', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ webhooks: { allowPrivateTargets: false } as never });
  });
  afterAll(async () => t.close());

  it('refuses loopback, private, link-local and unspecified targets at creation', async () => {
    const ws = await createWorkspace(t.api);
    for (const url of [
      'http://127.0.0.1:9/x',
      'http://localhost/',
      'http://10.1.2.3/',
      'http://[::1]/',
      'http://169.254.169.254/latest',
      'http://0.0.0.0/',
      'http://[::ffff:192.168.1.1]/',
    ]) {
      const res = await t.api.post(`/api/workspaces/${ws.slug}/webhooks/`, { url, event_types: ['*'] }, { token: ws.admin.token });
      expect(res.status, url).toBe(400);
      expect(res.body.errors[0].path).toBe('/url');
    }
  });

  it('sends one attempt: the status and Retry-After of the answer, no redirect followed, a silent receiver failed at the deadline', async () => {
    const silent: import('node:http').ServerResponse[] = [];
    const server = createHttpServer((req, res) => {
      if (req.url === '/slow') return void silent.push(res);
      if (req.url === '/moved') return void res.writeHead(302, { location: '/elsewhere' }).end();
      res.writeHead(429, { 'retry-after': '7' }).end('x'.repeat(100_000));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const sender = createSender({ timeoutMs: 300, allowPrivateTargets: true });
    try {
      expect(await sender.send(`${base}/busy`, { 'content-type': 'application/json' }, '{}')).toMatchObject({ statusCode: 429, error: null, retryAfter: '7' });
      expect(await sender.send(`${base}/moved`, {}, '{}')).toMatchObject({ statusCode: 302, error: null });
      const started = performance.now();
      const slow = await sender.send(`${base}/slow`, {}, '{}');
      expect(slow).toMatchObject({ statusCode: null, error: 'timeout' });
      expect(performance.now() - started).toBeGreaterThanOrEqual(250);
      expect(performance.now() - started).toBeLessThan(2_000);
      // the connection is still good for the next attempt
      expect(await sender.send(`${base}/busy`, {}, '{}')).toMatchObject({ statusCode: 429 });
    } finally {
      for (const res of silent) res.destroy();
      await sender.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('fails an attempt to a blocked address with blocked_address, also for a name that resolves to one', async () => {
    const r = await receiver();
    const sender = createSender({ timeoutMs: 2_000, allowPrivateTargets: false });
    try {
      expect(await sender.send(r.url, {}, '{}')).toMatchObject({ statusCode: null, error: 'blocked_address' });
      expect(await sender.send(r.url.replace('127.0.0.1', 'localhost'), {}, '{}')).toMatchObject({ statusCode: null, error: 'blocked_address' });
      expect(r.received).toHaveLength(0);
    } finally {
      await sender.close();
    }
  });
});
