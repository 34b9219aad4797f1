import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, type PaytrConfig } from '../../src/config/config.js';
import {
  buildTokenForm,
  callbackHash,
  createPaytrClient,
  parseCallback,
  PaytrError,
  sandboxRoutes,
  type TokenRequest,
  tokenRequestHash,
} from '../../src/modules/billing/provider/paytr/index.js';
import { eventually, type FakeServer, type Recorded, startServer } from './support.js';

const config = loadConfig({ PAYTR_TIMEOUT_MS: '2000' });
let app: FastifyInstance;
let base: string;
let paytr: PaytrConfig;
let receiver: FakeServer;
/** How the merchant's callback answers, per attempt (index into this list; the last one repeats). */
let answers: string[] = ['OK'];
let clockOffset = 0;

beforeAll(async () => {
  receiver = await startServer((_req: Recorded, res: ServerResponse, index: number) => {
    const reply = answers[Math.min(attemptsFor(receiver.requests[index]), answers.length - 1)] ?? 'OK';
    res.writeHead(200, { 'content-type': 'text/plain' }).end(reply);
  });
  app = Fastify();
  // A sibling route at the root: the sandbox's form parser must not leak out of its plugin.
  app.post('/outside', async () => ({ ok: true }));
  await app.register(sandboxRoutes, {
    config,
    callbackUrl: `${receiver.url}/api/webhooks/provider/callback/`,
    retryDelaysMs: [20, 20, 20],
    now: () => Date.now() + clockOffset,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  paytr = { ...config.paytr, apiBase: `${base}/sandbox/paytr`, iframeBase: `${base}/sandbox/paytr` };
});

afterAll(async () => {
  await app.close();
  await receiver.close();
});

beforeEach(() => {
  answers = ['OK'];
  clockOffset = 0;
  receiver.requests.length = 0;
});

/** Which attempt (0-based) for its merchant_oid a recorded callback was. */
function attemptsFor(req: Recorded | undefined): number {
  if (!req) return 0;
  const oid = new URLSearchParams(req.body).get('merchant_oid');
  const index = receiver.requests.indexOf(req);
  return receiver.requests.slice(0, index).filter((r) => new URLSearchParams(r.body).get('merchant_oid') === oid).length;
}

let seq = 0;
function order(overrides: Partial<TokenRequest> = {}): TokenRequest {
  seq += 1;
  return {
    merchantOid: `SBX${Date.now()}${seq}`,
    email: 'admin@example.com',
    amount: 23920,
    currency: 'TRY',
    userIp: '127.0.0.1',
    userName: 'Ada <Admin>',
    userAddress: 'Workspace acme',
    userPhone: '05555555555',
    basket: [{ name: 'Pro plan (month)', amount: 23920, quantity: 1 }],
    okUrl: 'http://127.0.0.1:3000/billing/return/ok',
    failUrl: 'http://127.0.0.1:3000/billing/return/fail',
    ...overrides,
  };
}

const callbacksOf = (oid: string) => receiver.requests.map((r) => Object.fromEntries(new URLSearchParams(r.body))).filter((f) => f.merchant_oid === oid);

async function postForm(url: string, form: Record<string, string> | URLSearchParams = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
  });
}

async function getToken(form: URLSearchParams): Promise<unknown> {
  return (await postForm(`${base}/sandbox/paytr/odeme/api/get-token`, form)).json();
}

describe('sandbox provider, end to end over HTTP', () => {
  it('issues a token, shows the payment page and, on Pay, sends a signed success callback and redirects to ok', async () => {
    const req = order();
    const { token, iframeUrl } = await createPaytrClient(paytr).getToken(req);
    expect(iframeUrl).toBe(`${base}/sandbox/paytr/odeme/guvenli/${token}`);

    const pageRes = await fetch(iframeUrl);
    expect(pageRes.status).toBe(200);
    expect(pageRes.headers.get('content-type')).toMatch(/text\/html/);
    const html = await pageRes.text();
    expect(html).toContain('239.20 TL');
    expect(html).toContain(req.merchantOid);
    expect(html).toContain('Ada &lt;Admin&gt;');
    expect(html).not.toContain('Ada <Admin>');
    expect(html).toContain(`action="/sandbox/paytr/odeme/guvenli/${token}/pay"`);
    expect(html).toContain(`action="/sandbox/paytr/odeme/guvenli/${token}/decline"`);

    const pay = await postForm(`${iframeUrl}/pay`);
    expect(pay.status).toBe(303);
    expect(pay.headers.get('location')).toBe(req.okUrl);

    const [cb, ...rest] = callbacksOf(req.merchantOid);
    expect(rest).toHaveLength(0);
    expect(receiver.requests[0]?.url).toBe('/api/webhooks/provider/callback/');
    expect(receiver.requests[0]?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(cb).toEqual({
      merchant_oid: req.merchantOid,
      status: 'success',
      total_amount: '23920',
      hash: callbackHash(config.paytr, req.merchantOid, 'success', '23920'),
      test_mode: '1',
      payment_type: 'card',
      currency: 'TL',
      payment_amount: '23920',
    });
    expect(parseCallback(cb, config.paytr)).toMatchObject({
      ok: true,
      payload: { status: 'success', totalAmount: 23920, currency: 'TRY', testMode: true },
    });
  });

  it('on Decline sends a signed failed callback with the reason and redirects to fail', async () => {
    const req = order({ currency: 'USD', amount: 1999, basket: [{ name: 'Pro', amount: 1999, quantity: 1 }] });
    const { iframeUrl } = await createPaytrClient(paytr).getToken(req);
    expect(await (await fetch(iframeUrl)).text()).toContain('19.99 USD');
    const decline = await postForm(`${iframeUrl}/decline`, { reason: '6' });
    expect(decline.status).toBe(303);
    expect(decline.headers.get('location')).toBe(req.failUrl);
    const [cb] = callbacksOf(req.merchantOid);
    expect(cb).toMatchObject({ status: 'failed', total_amount: '1999', failed_reason_code: '6', payment_type: 'card' });
    expect(cb?.hash).toBe(callbackHash(config.paytr, req.merchantOid, 'failed', '1999'));
    expect(cb?.failed_reason_msg).toMatch(/abandoned/);
    expect(parseCallback(cb, config.paytr)).toMatchObject({ ok: true, payload: { status: 'failed', failedReasonCode: '6' } });
  });

  it('retries the callback until the merchant answers exactly OK', async () => {
    answers = ['ok', 'OK\n<html>', 'OK'];
    const req = order();
    const { iframeUrl } = await createPaytrClient(paytr).getToken(req);
    const pay = await postForm(`${iframeUrl}/pay`);
    expect(pay.status).toBe(303);
    await eventually(() => callbacksOf(req.merchantOid).length === 3);
    await new Promise((r) => setTimeout(r, 100));
    const calls = callbacksOf(req.merchantOid);
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.hash)).size).toBe(1);
  });

  it('gives up after the configured retries', async () => {
    answers = ['nope'];
    const req = order();
    const { iframeUrl } = await createPaytrClient(paytr).getToken(req);
    await postForm(`${iframeUrl}/pay`);
    await eventually(() => callbacksOf(req.merchantOid).length === 4);
    await new Promise((r) => setTimeout(r, 150));
    expect(callbacksOf(req.merchantOid)).toHaveLength(4);
  });

  it('completes a payment once: a second Pay or Decline changes nothing', async () => {
    const req = order();
    const { iframeUrl } = await createPaytrClient(paytr).getToken(req);
    expect((await postForm(`${iframeUrl}/pay`)).status).toBe(303);
    expect((await postForm(`${iframeUrl}/pay`)).status).toBe(409);
    expect((await postForm(`${iframeUrl}/decline`)).status).toBe(409);
    expect((await fetch(iframeUrl)).status).toBe(409);
    expect(callbacksOf(req.merchantOid)).toHaveLength(1);
  });

  it('refuses a new token for a merchant_oid that is already paid', async () => {
    const req = order();
    const client = createPaytrClient(paytr);
    await postForm(`${(await client.getToken(req)).iframeUrl}/pay`);
    await expect(client.getToken(req)).rejects.toMatchObject({ kind: 'refused', reason: expect.stringMatching(/already been paid/) });
  });

  it('answers unknown and expired payment pages with a 404 HTML page', async () => {
    const unknown = await fetch(`${base}/sandbox/paytr/odeme/guvenli/doesnotexist`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toMatch(/Payment not found/);
    expect((await postForm(`${base}/sandbox/paytr/odeme/guvenli/doesnotexist/pay`)).status).toBe(404);

    const req = order({ timeoutLimitMinutes: 5 });
    const { iframeUrl } = await createPaytrClient(paytr).getToken(req);
    expect((await fetch(iframeUrl)).status).toBe(200);
    clockOffset = 5 * 60_000 + 1;
    expect((await fetch(iframeUrl)).status).toBe(404);
    expect((await postForm(`${iframeUrl}/pay`)).status).toBe(404);
    expect(callbacksOf(req.merchantOid)).toHaveLength(0);
  });

  it('serves the return pages', async () => {
    const ok = await fetch(`${base}/billing/return/ok`);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toMatch(/Payment received.*close this window/s);
    const fail = await fetch(`${base}/billing/return/fail`);
    expect(fail.status).toBe(200);
    expect(await fail.text()).toMatch(/Payment failed/);
  });

  it('keeps its form parser to itself', async () => {
    const res = await postForm(`${base}/outside`, { a: '1' });
    expect(res.status).toBe(415);
  });
});

describe('sandbox get-token validates like PayTR', () => {
  const valid = () => buildTokenForm(paytr, order());

  /** Re-signs a form after a change, so that only the changed rule can fail. */
  function resign(form: URLSearchParams): URLSearchParams {
    const f = (n: string) => form.get(n) ?? '';
    form.set(
      'paytr_token',
      tokenRequestHash(config.paytr, {
        user_ip: f('user_ip'),
        merchant_oid: f('merchant_oid'),
        email: f('email'),
        payment_amount: f('payment_amount'),
        user_basket: f('user_basket'),
        no_installment: f('no_installment'),
        max_installment: f('max_installment'),
        currency: f('currency'),
        test_mode: f('test_mode'),
      }),
    );
    return form;
  }

  function changed(name: string, value: string | null, sign = true): URLSearchParams {
    const form = valid();
    if (value === null) form.delete(name);
    else form.set(name, value);
    return sign ? resign(form) : form;
  }

  it('accepts a correct request', async () => {
    expect(await getToken(valid())).toMatchObject({ status: 'success', token: expect.stringMatching(/^[0-9a-f]{48}$/) });
  });

  it('refuses a paytr_token that does not verify', async () => {
    expect(await getToken(changed('payment_amount', '1', false))).toEqual({
      status: 'failed',
      reason: expect.stringMatching(/paytr_token/),
    });
    expect(await getToken(changed('paytr_token', 'forged', false))).toMatchObject({ status: 'failed' });
  });

  it('refuses a paytr_token signed with other credentials, and another merchant_id', async () => {
    const other = createPaytrClient({ ...paytr, merchantKey: 'not-the-key' });
    await expect(other.getToken(order())).rejects.toBeInstanceOf(PaytrError);
    expect(await getToken(changed('merchant_id', '999999'))).toEqual({
      status: 'failed',
      reason: expect.stringMatching(/merchant_id/),
    });
  });

  it.each([
    ['merchant_oid', 'has-dash', /merchant_oid/],
    ['merchant_oid', 'A'.repeat(65), /merchant_oid/],
    ['payment_amount', '0', /payment_amount/],
    ['payment_amount', '12.50', /payment_amount/],
    ['payment_amount', '-100', /payment_amount/],
    ['user_basket', 'not-base64!', /user_basket/],
    ['user_basket', Buffer.from('[["x","abc",1]]').toString('base64'), /user_basket/],
    ['currency', 'XYZ', /currency/],
    ['no_installment', '2', /no_installment/],
    ['max_installment', '1', /max_installment/],
    ['test_mode', 'yes', /test_mode/],
    ['email', 'not-an-email', /email/],
    ['merchant_ok_url', 'javascript:alert(1)', /merchant_ok_url/],
    ['user_name', 'x'.repeat(61), /user_name/],
    ['user_phone', '', /user_phone/],
    ['user_ip', null, /user_ip/],
  ])('refuses %s = %s', async (name, value, reason) => {
    expect(await getToken(changed(name, value))).toEqual({ status: 'failed', reason: expect.stringMatching(reason) });
  });

  it('accepts TRY as a synonym of TL and an absent currency as TL, like PayTR', async () => {
    expect(await getToken(changed('currency', 'TRY'))).toMatchObject({ status: 'success' });
    expect(await getToken(changed('currency', null))).toMatchObject({ status: 'success' });
  });

  it('answers failed for an empty or JSON body instead of crashing', async () => {
    const empty = await postForm(`${base}/sandbox/paytr/odeme/api/get-token`);
    expect(await empty.json()).toMatchObject({ status: 'failed' });
    const json = await fetch(`${base}/sandbox/paytr/odeme/api/get-token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(Object.fromEntries(valid())),
    });
    expect(await json.json()).toMatchObject({ status: 'success' });
  });
});
