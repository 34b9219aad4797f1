import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createProject, createWorkspace, expectProblem, signUp } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { billingPath, checkout, countRows, getSubscription, instanceAdmin, postCallback, pressSandbox, signedCallback } from './billing-helpers.js';

const ctx = useTestApp();

const FREE_LIMITS = {
  plan_slug: 'free',
  plan_name: 'Free',
  max_users: 5,
  max_projects: 3,
  max_storage_gb: 1,
  ai_tokens_monthly: 0,
  features: { time_tracking: false, custom_properties: false },
  is_active: true,
  // What the workspace uses of them (attachments, contract 25.3): nothing stored yet.
  usage: { storage_used_bytes: 0, storage_reserved_bytes: 0 },
};
const PRO_LIMITS = {
  plan_slug: 'pro',
  plan_name: 'Pro',
  max_users: 50,
  max_projects: -1,
  max_storage_gb: 100,
  ai_tokens_monthly: 1000000,
  features: { time_tracking: true, custom_properties: true },
  is_active: true,
  usage: { storage_used_bytes: 0, storage_reserved_bytes: 0 },
};

describe('plan catalogue', () => {
  it('lists the default plans publicly, without a token', async () => {
    const res = await ctx().api.get('/api/billing/plans/');
    expect(res.status).toBe(200);
    expect(res.body.map((p: any) => p.slug)).toEqual(['free', 'pro', 'business']);
    expect(res.body[1]).toMatchObject({
      slug: 'pro',
      name: 'Pro',
      plan_slug: 'pro',
      plan_name: 'Pro',
      price_month: 29900,
      price_year: 299000,
      currency: 'TRY',
      trial_days: 14,
      max_projects: -1,
    });
    expect(res.body[2]).toMatchObject({ slug: 'business', max_users: -1, price_month: 79900, price_year: 799000, ai_tokens_monthly: 10000000 });
    expect(res.body[0]).toMatchObject({ slug: 'free', price_month: null, price_year: null, features: { time_tracking: false, custom_properties: false } });
  });
});

describe('GET billing/subscription', () => {
  it('shows no subscription and the free limits for a new workspace, to every role', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const member = await ws.addUser('member');
    const guest = await ws.addUser('guest');
    for (const token of [ws.admin.token, member.token, guest.token]) {
      expect(await getSubscription(api, ws, token)).toEqual({ subscription: null, limits: FREE_LIMITS });
    }
  });

  it('is 404 for a non-member and 401 without a token', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const stranger = await signUp(api);
    expectProblem(await api.get(billingPath(ws, 'subscription/'), { token: stranger.token }), 404, 'not_found');
    expectProblem(await api.get(billingPath(ws, 'subscription/')), 401, 'unauthenticated');
  });
});

describe('trial', () => {
  it('starts a 14-day pro trial with pro limits, once per workspace', async () => {
    const { api, clock } = ctx();
    const ws = await createWorkspace(api);
    const res = await api.post(billingPath(ws, 'trial/'), { plan_slug: 'pro' }, { token: ws.admin.token });
    expect(res.status, res.text).toBe(201);
    const now = clock.now();
    expect(res.body.subscription).toEqual({
      id: expect.any(String),
      plan_slug: 'pro',
      status: 'trialing',
      billing_interval: 'month',
      currency: 'TRY',
      amount_per_period: 0,
      current_period_start: now.toISOString(),
      current_period_end: new Date(now.getTime() + 14 * 86_400_000).toISOString(),
      cancel_at_period_end: false,
      scheduled_plan_slug: null,
      // contract 19.3: every subscription response carries its dunning (null out of past_due and suspended)
      dunning: null,
    });
    expect(res.body.limits).toEqual(PRO_LIMITS);
    expectProblem(await api.post(billingPath(ws, 'trial/'), { plan_slug: 'business' }, { token: ws.admin.token }), 409, 'conflict');
  });

  it('refuses a second trial even after the first one expired', async () => {
    const { api, clock } = ctx();
    const ws = await createWorkspace(api);
    expect((await api.post(billingPath(ws, 'trial/'), { plan_slug: 'business' }, { token: ws.admin.token })).status).toBe(201);
    clock.advanceDays(15);
    try {
      expect((await getSubscription(api, ws)).subscription?.status).toBe('expired');
      expectProblem(await api.post(billingPath(ws, 'trial/'), { plan_slug: 'pro' }, { token: ws.admin.token }), 409, 'conflict');
    } finally {
      clock.advanceDays(-15);
    }
  });

  it('refuses a plan without a trial (free) or unknown (400), and members and guests (403)', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    expectProblem(await api.post(billingPath(ws, 'trial/'), { plan_slug: 'free' }, { token: ws.admin.token }), 400, 'validation_failed');
    expectProblem(await api.post(billingPath(ws, 'trial/'), { plan_slug: 'nope' }, { token: ws.admin.token }), 400, 'validation_failed');
    expectProblem(await api.post(billingPath(ws, 'trial/'), {}, { token: ws.admin.token }), 400, 'validation_failed');
    for (const role of ['member', 'guest'] as const) {
      const user = await ws.addUser(role);
      expectProblem(await api.post(billingPath(ws, 'trial/'), { plan_slug: 'pro' }, { token: user.token }), 403, 'forbidden');
    }
  });
});

describe('checkout in the sandbox', () => {
  it('records a pending payment, pays in the sandbox page, activates and issues an invoice', async () => {
    const t = ctx();
    const { api, clock } = t;
    const ws = await createWorkspace(api);
    const session = await checkout(api, ws, { plan_slug: 'pro', billing_interval: 'month' });
    expect(session).toMatchObject({ amount: 29900, currency: 'TRY', iframe_token: expect.any(String) });
    expect(session.merchant_oid).toMatch(/^[A-Za-z0-9]{1,64}$/);
    expect(session.iframe_url).toBe(`${t.url}/sandbox/paytr/odeme/guvenli/${session.iframe_token}`);

    const pending = await api.get(billingPath(ws, 'payments/'), { token: ws.admin.token });
    expect(pending.body).toMatchObject({ total: 1, offset: 0, per_page: 20 });
    expect(pending.body.results[0]).toMatchObject({
      merchant_oid: session.merchant_oid,
      status: 'pending',
      amount: 29900,
      paid_at: null,
      failure_reason: null,
      coupon_code: null,
    });

    expect(await pressSandbox(session.iframe_url!, 'pay')).toBe(`${t.url}/billing/return/ok`);

    const { subscription, limits } = await getSubscription(api, ws);
    const now = clock.now();
    expect(subscription).toMatchObject({
      plan_slug: 'pro',
      status: 'active',
      billing_interval: 'month',
      amount_per_period: 29900,
      currency: 'TRY',
      cancel_at_period_end: false,
    });
    expect(subscription!.current_period_start).toBe(now.toISOString());
    expect(limits).toEqual(PRO_LIMITS);

    const payments = (await api.get(billingPath(ws, 'payments/'), { token: ws.admin.token })).body;
    expect(payments.results[0]).toMatchObject({ status: 'success', paid_at: now.toISOString() });
    const invoices = (await api.get(billingPath(ws, 'invoices/?offset=0&per_page=20'), { token: ws.admin.token })).body;
    expect(invoices.total).toBe(1);
    expect(invoices.results[0]).toMatchObject({
      invoice_number: expect.stringMatching(/^INV-\d{4}-\d{6}$/),
      plan_name: 'Pro',
      billing_interval: 'month',
      total_amount: 29900,
      currency: 'TRY',
      period_start: subscription!.current_period_start,
      period_end: subscription!.current_period_end,
      payment_id: payments.results[0].id,
    });
  });

  it('marks the payment failed on a decline and leaves the subscription alone', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const session = await checkout(t.api, ws);
    expect(await pressSandbox(session.iframe_url!, 'decline')).toBe(`${t.url}/billing/return/fail`);
    const payments = (await t.api.get(billingPath(ws, 'payments/'), { token: ws.admin.token })).body;
    expect(payments.results[0]).toMatchObject({ status: 'failed', failure_reason: expect.any(String), paid_at: null });
    expect(await getSubscription(t.api, ws)).toEqual({ subscription: null, limits: FREE_LIMITS });
    expect(await countRows(t, 'invoices', ws.workspaceId)).toBe(0);
  });

  it('validates plan and interval: free and unknown plans, bad interval (400)', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const post = (body: unknown) => api.post(billingPath(ws, 'checkout/'), body, { token: ws.admin.token });
    expectProblem(await post({ plan_slug: 'free', billing_interval: 'month' }), 400, 'validation_failed');
    expectProblem(await post({ plan_slug: 'gold', billing_interval: 'month' }), 400, 'validation_failed');
    expectProblem(await post({ plan_slug: 'pro', billing_interval: 'week' }), 400, 'validation_failed');
    expectProblem(await post({ plan_slug: 'pro' }), 400, 'validation_failed');
    expectProblem(await post({ plan_slug: 'pro', billing_interval: 'month', coupon_code: 'NOPE' }), 400, 'coupon_invalid');
    expect(await countRows(ctx(), 'payments', ws.workspaceId)).toBe(0);
  });

  it('is admin only: members and guests get 403, non-members 404', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const member = await ws.addUser('member');
    const guest = await ws.addUser('guest');
    const stranger = await signUp(api);
    const body = { plan_slug: 'pro', billing_interval: 'month' };
    for (const token of [member.token, guest.token]) {
      expectProblem(await api.post(billingPath(ws, 'checkout/'), body, { token }), 403, 'forbidden');
      expectProblem(await api.post(billingPath(ws, 'cancel/'), { immediate: true }, { token }), 403, 'forbidden');
      expectProblem(await api.get(billingPath(ws, 'invoices/'), { token }), 403, 'forbidden');
      expectProblem(await api.get(billingPath(ws, 'payments/'), { token }), 403, 'forbidden');
      expectProblem(await api.post(billingPath(ws, 'validate-coupon/'), { code: 'x', plan_slug: 'pro', amount: 100 }, { token }), 403, 'forbidden');
    }
    expectProblem(await api.post(billingPath(ws, 'checkout/'), body, { token: stranger.token }), 404, 'not_found');
    expectProblem(await api.get(billingPath(ws, 'payments/'), { token: stranger.token }), 404, 'not_found');
  });
});

describe('provider callback', () => {
  it('answers plain OK once, and repeats change nothing', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const session = await checkout(t.api, ws);
    const form = signedCallback(t, session.merchant_oid, 'success', session.amount);
    const first = await postCallback(t, form);
    expect(first.status).toBe(200);
    expect(first.text).toBe('OK');
    expect(first.headers.get('content-type')).toMatch(/^text\/plain/);
    const before = await getSubscription(t.api, ws);
    for (let i = 0; i < 3; i++) expect((await postCallback(t, form)).text).toBe('OK');
    // a later "failed" for the same order changes nothing either: the first notification wins
    expect((await postCallback(t, signedCallback(t, session.merchant_oid, 'failed', session.amount))).text).toBe('OK');
    expect(await getSubscription(t.api, ws)).toEqual(before);
    expect(await countRows(t, 'invoices', ws.workspaceId)).toBe(1);
  });

  it('accepts JSON too', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const session = await checkout(t.api, ws);
    const form = Object.fromEntries(signedCallback(t, session.merchant_oid, 'success', session.amount));
    const res = await postCallback(t, JSON.stringify(form), 'application/json');
    expect(res.status).toBe(200);
    expect(res.text).toBe('OK');
    expect((await getSubscription(t.api, ws)).subscription?.status).toBe('active');
  });

  it('refuses a forged or missing hash with 400 plain text and changes nothing', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const session = await checkout(t.api, ws);
    const forged = signedCallback(t, session.merchant_oid, 'success', session.amount);
    forged.set('hash', Buffer.from('forged-forged-forged-forged-forged!').toString('base64'));
    const wrongAmount = signedCallback(t, session.merchant_oid, 'success', session.amount);
    wrongAmount.set('total_amount', '1');
    const missing = signedCallback(t, session.merchant_oid, 'success', session.amount);
    missing.delete('hash');
    for (const form of [forged, wrongAmount, missing, new URLSearchParams()]) {
      const res = await postCallback(t, form);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(res.text).not.toBe('OK');
    }
    const garbage = await postCallback(t, '{not json', 'application/json');
    expect(garbage.status).toBe(400);
    expect(garbage.headers.get('content-type')).toMatch(/^text\/plain/);
    const payments = (await t.api.get(billingPath(ws, 'payments/'), { token: ws.admin.token })).body;
    expect(payments.results[0].status).toBe('pending');
    expect((await getSubscription(t.api, ws)).subscription).toBeNull();
  });

  it('answers 404 plain text for an unknown merchant_oid with a valid hash', async () => {
    const t = ctx();
    const res = await postCallback(t, signedCallback(t, 'WISunknown0000', 'success', 100));
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it('does not activate when the paid amount differs from the payment (marks it failed)', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const session = await checkout(t.api, ws);
    const res = await postCallback(t, signedCallback(t, session.merchant_oid, 'success', session.amount - 1));
    expect(res.text).toBe('OK');
    const payment = (await t.api.get(billingPath(ws, 'payments/'), { token: ws.admin.token })).body.results[0];
    expect(payment).toMatchObject({ status: 'failed', failure_reason: expect.stringMatching(/^amount_mismatch/) });
    expect((await getSubscription(t.api, ws)).subscription).toBeNull();
    expect(await countRows(t, 'invoices', ws.workspaceId)).toBe(0);
  });

  it('takes effect exactly once under 50 parallel identical callbacks', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const session = await checkout(t.api, ws);
    const form = signedCallback(t, session.merchant_oid, 'success', session.amount);
    const answers = await Promise.all(Array.from({ length: 50 }, () => postCallback(t, form)));
    expect(answers.map((a) => `${a.status} ${a.text}`)).toEqual(Array(50).fill('200 OK'));
    expect(await countRows(t, 'invoices', ws.workspaceId)).toBe(1);
    expect(await countRows(t, 'billing_events', ws.workspaceId, sqlType('payment.succeeded'))).toBe(1);
    expect(await countRows(t, 'billing_events', ws.workspaceId, sqlType('subscription.activated'))).toBe(1);
    const { subscription } = await getSubscription(t.api, ws);
    expect(subscription?.status).toBe('active');
    // one period, not fifty
    expect(new Date(subscription!.current_period_end).getTime()).toBeLessThan(t.clock.now().getTime() + 32 * 86_400_000);
  });
});

describe('plan limits are enforced', () => {
  it('caps projects at 3 and members at 5 on free, and lifts the caps on a pro trial; a downgrade hides nothing', async () => {
    const { api, clock } = ctx();
    const ws = await createWorkspace(api);
    for (let i = 0; i < 3; i++) await createProject(api, ws);
    expectProblem(
      await api.post(`/api/workspaces/${ws.slug}/projects/`, { name: 'Four', identifier: 'FOUR' }, { token: ws.admin.token }),
      402,
      'plan_limit_reached',
    );
    for (let i = 0; i < 4; i++) await ws.addUser('member');
    const sixth = await signUp(api);
    expectProblem(
      await api.post(`/api/workspaces/${ws.slug}/members/`, { email: sixth.user.email, role: 'member' }, { token: ws.admin.token }),
      402,
      'plan_limit_reached',
    );
    expect((await api.post(billingPath(ws, 'trial/'), { plan_slug: 'pro' }, { token: ws.admin.token })).status).toBe(201);
    await createProject(api, ws);
    await createProject(api, ws);
    expect((await api.post(`/api/workspaces/${ws.slug}/members/`, { email: sixth.user.email, role: 'member' }, { token: ws.admin.token })).status).toBe(201);
    clock.advanceDays(15);
    try {
      // trial over: free limits again, but the five projects and six members stay visible and usable
      expect((await getSubscription(api, ws)).limits).toEqual(FREE_LIMITS);
      expect((await api.get(`/api/workspaces/${ws.slug}/projects/`, { token: ws.admin.token })).body).toHaveLength(5);
      expect((await api.get(`/api/workspaces/${ws.slug}/members/`, { token: ws.admin.token })).body).toHaveLength(6);
      expectProblem(
        await api.post(`/api/workspaces/${ws.slug}/projects/`, { name: 'Six', identifier: 'SIX' }, { token: ws.admin.token }),
        402,
        'plan_limit_reached',
      );
    } finally {
      clock.advanceDays(-15);
    }
  });
});

describe('cancel', () => {
  it('is 409 with nothing to cancel', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    expectProblem(await api.post(billingPath(ws, 'cancel/'), { immediate: true }, { token: ws.admin.token }), 409, 'conflict');
    expectProblem(await api.post(billingPath(ws, 'cancel/'), {}, { token: ws.admin.token }), 400, 'validation_failed');
  });

  it('cancels at period end (keeps the status) or now (canceled, free limits)', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    await api.post(billingPath(ws, 'trial/'), { plan_slug: 'pro' }, { token: ws.admin.token });
    const later = await api.post(billingPath(ws, 'cancel/'), { immediate: false }, { token: ws.admin.token });
    expect(later.status, later.text).toBe(200);
    expect(later.body.subscription).toMatchObject({ status: 'trialing', cancel_at_period_end: true });
    expect(later.body.limits.plan_slug).toBe('pro');
    const now = await api.post(billingPath(ws, 'cancel/'), { immediate: true }, { token: ws.admin.token });
    expect(now.status).toBe(200);
    expect(now.body.subscription).toMatchObject({ status: 'canceled' });
    expect(now.body.limits).toEqual(FREE_LIMITS);
    expectProblem(await api.post(billingPath(ws, 'cancel/'), { immediate: true }, { token: ws.admin.token }), 409, 'conflict');
  });
});

describe('admin: plans and coupons', () => {
  it('lets only an instance admin manage plans (403 for everyone else)', async () => {
    const t = ctx();
    const op = await instanceAdmin(t);
    const user = await signUp(t.api);
    expectProblem(await t.api.get('/api/admin/plans/', { token: user.token }), 403, 'forbidden');
    expectProblem(await t.api.post('/api/admin/plans/', {}, { token: user.token }), 400, 'validation_failed');
    expectProblem(await t.api.patch('/api/admin/plans/pro/', { name: 'X' }, { token: user.token }), 403, 'forbidden');
    expectProblem(await t.api.get('/api/admin/coupons/', { token: user.token }), 403, 'forbidden');
    expectProblem(await t.api.delete('/api/admin/coupons/abc/', { token: user.token }), 403, 'forbidden');
    expectProblem(await t.api.get('/api/admin/plans/'), 401, 'unauthenticated');

    const created = await t.api.post(
      '/api/admin/plans/',
      { slug: 'team', name: 'Team', max_users: 10, max_projects: 10, max_storage_gb: 10, ai_tokens_monthly: 0, price_month: 9900, currency: 'TRY' },
      { token: op.token },
    );
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      slug: 'team',
      price_year: null,
      trial_days: 0,
      is_active: true,
      features: { time_tracking: false, custom_properties: false },
    });
    expectProblem(
      await t.api.post(
        '/api/admin/plans/',
        { slug: 'team', name: 'Team', max_users: 1, max_projects: 1, max_storage_gb: 1, ai_tokens_monthly: 0, currency: 'TRY' },
        { token: op.token },
      ),
      409,
      'conflict',
    );
    const retired = await t.api.patch('/api/admin/plans/team/', { is_active: false }, { token: op.token });
    expect(retired.status).toBe(200);
    expect(retired.body.is_active).toBe(false);
    expect((await t.api.get('/api/billing/plans/')).body.map((p: any) => p.slug)).not.toContain('team');
    expect((await t.api.get('/api/admin/plans/', { token: op.token })).body.map((p: any) => p.slug)).toContain('team');
    expectProblem(await t.api.patch('/api/admin/plans/nope/', { name: 'X' }, { token: op.token }), 404, 'not_found');

    const ws = await createWorkspace(t.api);
    expectProblem(
      await t.api.post(billingPath(ws, 'checkout/'), { plan_slug: 'team', billing_interval: 'month' }, { token: ws.admin.token }),
      400,
      'validation_failed',
    );
  });
});

const sqlType = (type: string) => sql`type = ${type}`;

describe('isolation and pagination', () => {
  it('shows each workspace only its own payments, invoices and subscription', async () => {
    const t = ctx();
    const a = await createWorkspace(t.api);
    const b = await createWorkspace(t.api);
    for (const ws of [a, b]) await pressSandbox((await checkout(t.api, ws)).iframe_url!, 'pay');
    await checkout(t.api, b);
    for (const [ws, n] of [
      [a, 1],
      [b, 2],
    ] as const) {
      const payments = (await t.api.get(billingPath(ws, 'payments/'), { token: ws.admin.token })).body;
      expect(payments.total).toBe(n);
      expect((await t.api.get(billingPath(ws, 'invoices/'), { token: ws.admin.token })).body.total).toBe(1);
    }
    // the admin of A is a stranger to B
    expectProblem(await t.api.get(billingPath(b, 'subscription/'), { token: a.admin.token }), 404, 'not_found');
    expectProblem(await t.api.get(billingPath(b, 'invoices/'), { token: a.admin.token }), 404, 'not_found');
    expectProblem(await t.api.post(billingPath(b, 'cancel/'), { immediate: true }, { token: a.admin.token }), 404, 'not_found');
    expect((await getSubscription(t.api, b)).subscription?.status).toBe('active');
  });

  it('pages payments newest first and refuses bad paging (400)', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const oids: string[] = [];
    for (let i = 0; i < 3; i++) {
      oids.push((await checkout(t.api, ws)).merchant_oid);
      t.clock.advance(1000);
    }
    const page = (await t.api.get(billingPath(ws, 'payments/?offset=1&per_page=1'), { token: ws.admin.token })).body;
    expect(page).toMatchObject({ total: 3, offset: 1, per_page: 1 });
    expect(page.results.map((p: any) => p.merchant_oid)).toEqual([oids[1]]);
    const all = (await t.api.get(billingPath(ws, 'payments/'), { token: ws.admin.token })).body;
    expect(all.results.map((p: any) => p.merchant_oid)).toEqual([...oids].reverse());
    for (const q of ['per_page=0', 'per_page=101', 'offset=-1', 'per_page=abc']) {
      expectProblem(await t.api.get(billingPath(ws, `payments/?${q}`), { token: ws.admin.token }), 400, 'validation_failed');
      expectProblem(await t.api.get(billingPath(ws, `invoices/?${q}`), { token: ws.admin.token }), 400, 'validation_failed');
    }
  });

  it('answers the callback without a trailing slash too', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const session = await checkout(t.api, ws);
    const res = await t.api.request('POST', '/api/webhooks/provider/callback', {
      raw: signedCallback(t, session.merchant_oid, 'success', session.amount).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.text).toBe('OK');
  });
});
