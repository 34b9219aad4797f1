import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createWorkspace, expectProblem, signUp, unique } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { billingPath, checkout, countRows, getSubscription, instanceAdmin, postCallback, pressSandbox, signedCallback } from './billing-helpers.js';

const ctx = useTestApp();

const couponCode = () => unique('SAVE').toUpperCase();

async function createCoupon(body: Record<string, unknown>) {
  const t = ctx();
  const op = await instanceAdmin(t);
  const res = await t.api.post('/api/admin/coupons/', body, { token: op.token });
  expect(res.status, res.text).toBe(201);
  return { coupon: res.body, op };
}

describe('admin coupons', () => {
  it('creates, lists and deletes coupons; codes are case-insensitive', async () => {
    const code = couponCode();
    const { coupon, op } = await createCoupon({ code, percent_off: 20, plan_slugs: ['pro'], max_redemptions: 10, redeem_by: '2027-01-01T00:00:00.000Z' });
    expect(coupon).toEqual({
      code: code.toLowerCase(),
      percent_off: 20,
      amount_off: null,
      currency: null,
      plan_slugs: ['pro'],
      max_redemptions: 10,
      redeem_by: '2027-01-01T00:00:00.000Z',
      times_redeemed: 0,
      created_at: expect.any(String),
    });
    const { api } = ctx();
    expectProblem(await api.post('/api/admin/coupons/', { code: code.toLowerCase(), percent_off: 5 }, { token: op.token }), 409, 'conflict');
    const list = await api.get('/api/admin/coupons/', { token: op.token });
    expect(list.body.map((c: any) => c.code)).toContain(code.toLowerCase());
    expect((await api.delete(`/api/admin/coupons/${code}/`, { token: op.token })).status).toBe(204);
    expectProblem(await api.delete(`/api/admin/coupons/${code}/`, { token: op.token }), 404, 'not_found');
  });

  it('refuses malformed coupons (400)', async () => {
    const t = ctx();
    const op = await instanceAdmin(t);
    const post = (body: unknown) => t.api.post('/api/admin/coupons/', body, { token: op.token });
    expectProblem(await post({ code: couponCode(), percent_off: 10, amount_off: 100, currency: 'TRY' }), 400, 'validation_failed');
    expectProblem(await post({ code: couponCode() }), 400, 'validation_failed');
    expectProblem(await post({ code: couponCode(), amount_off: 100 }), 400, 'validation_failed');
    expectProblem(await post({ code: couponCode(), percent_off: 10, currency: 'TRY' }), 400, 'validation_failed');
    expectProblem(await post({ code: couponCode(), percent_off: 101 }), 400, 'validation_failed');
    expectProblem(await post({ code: couponCode(), percent_off: 0 }), 400, 'validation_failed');
    expectProblem(await post({ code: 'has space', percent_off: 10 }), 400, 'validation_failed');
    expectProblem(await post({ code: couponCode(), percent_off: 10, plan_slugs: ['gold'] }), 400, 'validation_failed');
  });

  it('is for instance admins only (403)', async () => {
    const { api } = ctx();
    const user = await signUp(api);
    expectProblem(await api.post('/api/admin/coupons/', { code: couponCode(), percent_off: 10 }, { token: user.token }), 403, 'forbidden');
  });
});

describe('validate-coupon', () => {
  it('gives the discounted amount and the signed display for a good coupon', async () => {
    const code = couponCode();
    await createCoupon({ code, percent_off: 20 });
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const res = await api.post(billingPath(ws, 'validate-coupon/'), { code: code.toLowerCase(), plan_slug: 'pro', amount: 29900 }, { token: ws.admin.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: true, discounted_amount: 23920, discount_display: '-59.80' });
  });

  it('answers 200 with valid: false for a bad coupon', async () => {
    const expired = couponCode();
    const businessOnly = couponCode();
    const usd = couponCode();
    await createCoupon({ code: expired, percent_off: 10, redeem_by: '2025-01-01T00:00:00.000Z' });
    await createCoupon({ code: businessOnly, percent_off: 10, plan_slugs: ['business'] });
    await createCoupon({ code: usd, amount_off: 500, currency: 'USD' });
    const { api } = ctx();
    const ws = await createWorkspace(api);
    for (const [code, reason] of [
      ['NOSUCHCODE', 'not_found'],
      [expired, 'expired'],
      [businessOnly, 'not_applicable_to_plan'],
      [usd, 'currency_mismatch'],
    ]) {
      const res = await api.post(billingPath(ws, 'validate-coupon/'), { code, plan_slug: 'pro', amount: 1000 }, { token: ws.admin.token });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ valid: false, discounted_amount: 1000, discount_display: '0.00', reason: expect.any(String), reason_code: reason });
    }
  });

  it('needs a positive integer amount and a known plan (400)', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    for (const amount of [0, -5, 1.5, '100', null]) {
      expectProblem(
        await api.post(billingPath(ws, 'validate-coupon/'), { code: 'X', plan_slug: 'pro', amount }, { token: ws.admin.token }),
        400,
        'validation_failed',
      );
    }
    expectProblem(await api.post(billingPath(ws, 'validate-coupon/'), { code: 'X', plan_slug: 'pro' }, { token: ws.admin.token }), 400, 'validation_failed');
    expectProblem(
      await api.post(billingPath(ws, 'validate-coupon/'), { code: 'X', plan_slug: 'gold', amount: 100 }, { token: ws.admin.token }),
      400,
      'validation_failed',
    );
  });
});

describe('coupons at checkout', () => {
  it('charges the discounted amount, records the redemption with the payment, and only once per workspace', async () => {
    const code = couponCode();
    await createCoupon({ code, percent_off: 20 });
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const session = await checkout(t.api, ws, { plan_slug: 'pro', billing_interval: 'month', coupon_code: code });
    expect(session.amount).toBe(23920);
    // not redeemed until the payment succeeds
    const op = await instanceAdmin(t);
    const timesRedeemed = async () =>
      (await t.api.get('/api/admin/coupons/', { token: op.token })).body.find((c: any) => c.code === code.toLowerCase()).times_redeemed;
    expect(await timesRedeemed()).toBe(0);
    await pressSandbox(session.iframe_url!, 'pay');
    expect(await timesRedeemed()).toBe(1);
    const payment = (await t.api.get(billingPath(ws, 'payments/'), { token: ws.admin.token })).body.results[0];
    expect(payment).toMatchObject({ amount: 23920, list_amount: 29900, discount_amount: 5980, coupon_code: code.toLowerCase(), status: 'success' });
    const invoice = (await t.api.get(billingPath(ws, 'invoices/'), { token: ws.admin.token })).body.results[0];
    expect(invoice).toMatchObject({ total_amount: 23920, subtotal_amount: 29900, discount_amount: 5980 });
    expect((await getSubscription(t.api, ws)).subscription?.amount_per_period).toBe(29900);

    expectProblem(
      await t.api.post(billingPath(ws, 'checkout/'), { plan_slug: 'pro', billing_interval: 'month', coupon_code: code }, { token: ws.admin.token }),
      400,
      'coupon_invalid',
    );
    const again = await t.api.post(billingPath(ws, 'validate-coupon/'), { code, plan_slug: 'pro', amount: 29900 }, { token: ws.admin.token });
    expect(again.body).toMatchObject({ valid: false, reason_code: 'already_redeemed' });
  });

  it('activates at once when the coupon makes the amount zero', async () => {
    const code = couponCode();
    await createCoupon({ code, percent_off: 100 });
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const session = await checkout(t.api, ws, { plan_slug: 'business', billing_interval: 'year', coupon_code: code });
    expect(session).toEqual({
      iframe_token: null,
      iframe_url: null,
      merchant_oid: expect.stringMatching(/^[A-Za-z0-9]+$/),
      amount: 0,
      currency: 'TRY',
      proration_credit: 0,
    });
    const { subscription, limits } = await getSubscription(t.api, ws);
    expect(subscription).toMatchObject({ plan_slug: 'business', status: 'active', billing_interval: 'year', amount_per_period: 799000 });
    expect(limits.plan_slug).toBe('business');
    const payment = (await t.api.get(billingPath(ws, 'payments/'), { token: ws.admin.token })).body.results[0];
    expect(payment).toMatchObject({ status: 'success', amount: 0 });
    expect((await t.api.get(billingPath(ws, 'invoices/'), { token: ws.admin.token })).body.results[0]).toMatchObject({ total_amount: 0 });
  });

  it('counts the last redemption once when two workspaces pay with it; the second payment is still honoured', async () => {
    const code = couponCode();
    await createCoupon({ code, amount_off: 10000, currency: 'TRY', max_redemptions: 1 });
    const t = ctx();
    const a = await createWorkspace(t.api);
    const b = await createWorkspace(t.api);
    const sa = await checkout(t.api, a, { plan_slug: 'pro', billing_interval: 'month', coupon_code: code });
    const sb = await checkout(t.api, b, { plan_slug: 'pro', billing_interval: 'month', coupon_code: code });
    expect(sa.amount).toBe(19900);
    const answers = await Promise.all([
      postCallback(t, signedCallback(t, sa.merchant_oid, 'success', sa.amount)),
      postCallback(t, signedCallback(t, sb.merchant_oid, 'success', sb.amount)),
    ]);
    expect(answers.map((r) => r.text)).toEqual(['OK', 'OK']);
    for (const ws of [a, b]) expect((await getSubscription(t.api, ws)).subscription?.status).toBe('active');
    const r = await sql<{ times_redeemed: number; redemptions: number }>`
      SELECT times_redeemed, (SELECT count(*)::int FROM coupon_redemptions WHERE coupon_code = ${code.toLowerCase()}) AS redemptions
      FROM coupons WHERE code = ${code.toLowerCase()}`.execute(t.database.db);
    expect(r.rows[0]).toEqual({ times_redeemed: 1, redemptions: 1 });
    const skipped =
      (await countRows(t, 'billing_events', a.workspaceId, sql`type = 'coupon.redemption_skipped'`)) +
      (await countRows(t, 'billing_events', b.workspaceId, sql`type = 'coupon.redemption_skipped'`));
    expect(skipped).toBe(1);
    const c = await createWorkspace(t.api);
    expectProblem(
      await t.api.post(billingPath(c, 'checkout/'), { plan_slug: 'pro', billing_interval: 'month', coupon_code: code }, { token: c.admin.token }),
      400,
      'coupon_invalid',
    );
  });
});
