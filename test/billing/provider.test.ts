import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkspace, expectProblem } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { billingPath, getSubscription, postCallback, signedCallback } from './billing-helpers.js';

/** A local HTTP server playing PayTR's token endpoint; `mode` says how it answers the next requests. */
let mode: 'success' | 'refused' | 'timeout' | 'garbage' | 'http500' = 'success';
const received: URLSearchParams[] = [];
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    if (req.url !== '/odeme/api/get-token' || req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    received.push(new URLSearchParams(body));
    switch (mode) {
      case 'success':
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'success', token: 'tok123abc' }));
        return;
      case 'refused':
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'failed', reason: 'paytr_token is invalid' }));
        return;
      case 'garbage':
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
        return;
      case 'http500':
        res.writeHead(500).end('oops');
        return;
      case 'timeout':
        setTimeout(() => res.writeHead(200).end('{"status":"success","token":"late"}'), 1500).unref();
        return;
    }
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const ctx = useTestApp({ paymentProvider: 'paytr', paytr: { apiBase: base, iframeBase: base, timeoutMs: 300 } });

describe('checkout against the PayTR API (a local stand-in)', () => {
  // With save_card (the default) a PayTR checkout goes to the service's card page instead (19.1,
  // test/billing-paytr/card-page.test.ts): these are checkouts without it, through PayTR's iFrame API.
  it('sends the token request and returns the iframe session', async () => {
    mode = 'success';
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const res = await t.api.post(
      billingPath(ws, 'checkout/'),
      { plan_slug: 'business', billing_interval: 'year', save_card: false },
      { token: ws.admin.token },
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      iframe_token: 'tok123abc',
      iframe_url: `${base}/odeme/guvenli/tok123abc`,
      merchant_oid: expect.any(String),
      amount: 799000,
      currency: 'TRY',
      proration_credit: 0,
    });
    const form = received.at(-1)!;
    expect(form.get('merchant_oid')).toBe(res.body.merchant_oid);
    expect(form.get('payment_amount')).toBe('799000');
    expect(form.get('currency')).toBe('TL');
    expect(form.get('email')).toBe(ws.admin.user.email);
    expect(form.get('merchant_ok_url')).toBe(`${t.config.publicBaseUrl}/billing/return/ok`);
    expect(form.get('merchant_fail_url')).toBe(`${t.config.publicBaseUrl}/billing/return/fail`);

    // the provider's notification then activates it, exactly as with the sandbox
    const ok = await postCallback(t, signedCallback(t, res.body.merchant_oid, 'success', 799000, { currency: 'TL' }));
    expect(ok.text).toBe('OK');
    expect((await getSubscription(t.api, ws)).subscription).toMatchObject({ status: 'active', plan_slug: 'business', billing_interval: 'year' });
    // the payment pages the provider sends the browser back to exist in paytr mode too
    expect((await fetch(`${t.url}/billing/return/ok`)).status).toBe(200);
  });

  for (const [m, why] of [
    ['refused', /paytr_token is invalid/],
    ['timeout', /300 ms/],
    ['garbage', /not JSON/],
    ['http500', /HTTP 500/],
  ] as const) {
    it(`answers 502 and marks the payment failed when the provider ${m === 'refused' ? 'refuses' : `answers with ${m}`}`, async () => {
      mode = m;
      const t = ctx();
      const ws = await createWorkspace(t.api);
      const res = await t.api.post(billingPath(ws, 'checkout/'), { plan_slug: 'pro', billing_interval: 'month', save_card: false }, { token: ws.admin.token });
      expectProblem(res, 502, 'payment_provider_error');
      expect(res.text).not.toContain(t.config.paytr.merchantKey);
      const payments = (await t.api.get(billingPath(ws, 'payments/'), { token: ws.admin.token })).body;
      expect(payments.total).toBe(1);
      expect(payments.results[0]).toMatchObject({ status: 'failed', failure_reason: expect.stringMatching(why) });
      expect((await getSubscription(t.api, ws)).subscription).toBeNull();
      // a late success notification for a payment that already failed changes nothing
      const late = await postCallback(t, signedCallback(t, payments.results[0].merchant_oid, 'success', 29900));
      expect(late.text).toBe('OK');
      expect((await getSubscription(t.api, ws)).subscription).toBeNull();
    });
  }

  it('does not serve the sandbox when the provider is PayTR', async () => {
    const t = ctx();
    expect((await fetch(`${t.url}/sandbox/paytr/odeme/guvenli/whatever`)).status).toBe(404);
  });
});
