import { afterAll, describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/cli.js';
import { checkPaymentPageCommand } from '../../src/cli/commands/check-payment-page.js';
import { decodeDirectBasket, directPaymentHash } from '../../src/modules/billing/provider/paytr/index.js';
import { createWorkspace } from '../helpers/factories.js';
import { useTestApp, type TestApp } from '../helpers/test-app.js';
import { billingPath, checkout, postCallback, signedCallback } from '../billing/billing-helpers.js';
import { startServer } from './support.js';

/** PayTR played by a local server: get-token answers a token, capi/list the card the card page's payment stored. */
const paytr = await startServer((req, res) => {
  const json = (body: unknown) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (req.url === '/odeme/api/get-token') json({ status: 'success', token: 'iframetok1' });
  else if (req.url === '/odeme/capi/list') {
    json([{ ctoken: 'CTOKcard1', last_4: '4358', require_cvv: '0', month: '12', year: '30', c_bank: 'Test Bank', schema: 'VISA' }]);
  } else res.writeHead(404).end();
});
afterAll(() => paytr.close());

const FRAME_ANCESTOR = 'https://shop.example';
const ctx = useTestApp({
  paymentProvider: 'paytr',
  paymentPageFrameAncestors: [FRAME_ANCESTOR],
  paytr: { apiBase: paytr.url, iframeBase: 'https://iframe.paytr.example', timeoutMs: 2_000, testMode: true },
});

const getTokenCalls = () => paytr.requests.filter((r) => r.url === '/odeme/api/get-token').length;

const HTML_DECODE: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const unescape = (s: string) => s.replace(/&(?:amp|lt|gt|quot|#39);/g, (e) => HTML_DECODE[e]!);

/** The card page as a browser gets it (the page's path on the test app: PUBLIC_BASE_URL is not the test port). */
async function fetchPage(t: TestApp, iframeUrl: string) {
  const res = await fetch(`${t.url}${new URL(iframeUrl).pathname}`);
  return { status: res.status, headers: res.headers, html: await res.text() };
}

/** The card form: its method, action and hidden fields (in order). */
function cardForm(html: string) {
  const form = /<form\b([^>]*)>([\s\S]*?)<\/form>/i.exec(html);
  expect(form, 'the page has a form').not.toBeNull();
  const attrs = form![1]!;
  const hidden = [...form![2]!.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map((m) => [m[1]!, unescape(m[2]!)] as const);
  return {
    method: /method="([^"]*)"/.exec(attrs)?.[1],
    action: unescape(/action="([^"]*)"/.exec(attrs)?.[1] ?? ''),
    fields: new Map(hidden),
    names: hidden.map(([n]) => n),
    body: form![2]!,
  };
}

const CHECKED = ['content-security-policy', 'x-frame-options', 'cache-control', 'referrer-policy', 'x-content-type-options', 'strict-transport-security'];
const securityHeaders = (h: Headers) => Object.fromEntries(CHECKED.map((n) => [n, h.get(n)]));

function cli(t: TestApp) {
  const lines: string[] = [];
  const cliCtx: CliContext = {
    config: () => t.config,
    out: (line) => lines.push(line),
    operator: { userId: '00000000-0000-7000-8000-000000000000', tokenId: 'cli', isInstanceAdmin: true, isOperator: true },
    services: async () => t.app.services,
    database: async () => t.database,
  };
  return { run: async (values: Record<string, string>) => (await checkPaymentPageCommand.run(values, cliCtx)) ?? 0, lines };
}

describe('the card page of 19.1 (PAYMENT_PROVIDER=paytr)', () => {
  it('a checkout with save_card answers the card page, without asking PayTR for an iFrame token', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const before = getTokenCalls();
    const session = await checkout(t.api, ws, { plan_slug: 'pro', billing_interval: 'month' });
    expect(getTokenCalls()).toBe(before);
    expect(session.iframe_token).toMatch(/^[A-Za-z0-9]+\.[A-Za-z0-9_-]{43}$/);
    expect(session.iframe_url).toBe(`${t.config.publicBaseUrl}/billing/card/${session.iframe_token}`);
    expect(session.iframe_token!.startsWith(`${session.merchant_oid}.`)).toBe(true);
    const payments = (await t.api.get(billingPath(ws, 'payments/'), { token: ws.admin.token })).body;
    expect(payments.results[0]).toMatchObject({ merchant_oid: session.merchant_oid, status: 'pending' });
  });

  it('a checkout with save_card false still uses PayTR iFrame get-token, without store_card', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const before = getTokenCalls();
    const session = await checkout(t.api, ws, { plan_slug: 'pro', billing_interval: 'month', save_card: false });
    expect(getTokenCalls()).toBe(before + 1);
    expect(session).toMatchObject({ iframe_token: 'iframetok1', iframe_url: 'https://iframe.paytr.example/odeme/guvenli/iframetok1' });
    const form = new URLSearchParams(paytr.requests.filter((r) => r.url === '/odeme/api/get-token').at(-1)!.body);
    expect(form.get('merchant_oid')).toBe(session.merchant_oid);
    expect(form.has('store_card')).toBe(false);
    // and its payment has no card page
    const page = await fetchPage(t, `${t.url}/billing/card/${session.merchant_oid}.${'A'.repeat(43)}`);
    expect(page.status).toBe(404);
  });

  it('serves a form posting to PayTR /odeme with a valid paytr_token, store_card=1 and empty card inputs, locked down', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const session = await checkout(t.api, ws);
    const page = await fetchPage(t, session.iframe_url!);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);

    const form = cardForm(page.html);
    expect(form.method?.toLowerCase()).toBe('post');
    expect(form.action).toBe(`${paytr.url}/odeme`);
    const f = form.fields;
    expect(Object.fromEntries(f)).toMatchObject({
      merchant_id: t.config.paytr.merchantId,
      merchant_oid: session.merchant_oid,
      email: ws.admin.user.email,
      payment_amount: '299.00',
      payment_type: 'card',
      installment_count: '0',
      currency: 'TL',
      test_mode: '1',
      non_3d: '0',
      debug_on: '1',
      store_card: '1',
      merchant_ok_url: `${t.config.publicBaseUrl}/billing/return/ok`,
      merchant_fail_url: `${t.config.publicBaseUrl}/billing/return/fail`,
    });
    expect(f.get('user_ip')).toBe('127.0.0.1');
    for (const name of ['client_lang', 'user_name', 'user_address', 'user_phone']) expect(f.get(name), name).toBeTruthy();
    expect(decodeDirectBasket(f.get('user_basket')!)).toEqual([['Pro plan, 1 month', '299.00', 1]]);
    // a first card: no utoken yet
    expect(f.has('utoken')).toBe(false);
    // the token PayTR recomputes
    const token = directPaymentHash(t.config.paytr, {
      user_ip: f.get('user_ip')!,
      merchant_oid: f.get('merchant_oid')!,
      email: f.get('email')!,
      payment_amount: f.get('payment_amount')!,
      payment_type: f.get('payment_type')!,
      installment_count: f.get('installment_count')!,
      currency: f.get('currency')!,
      test_mode: f.get('test_mode')!,
      non_3d: f.get('non_3d')!,
    });
    expect(f.get('paytr_token')).toBe(token);

    // card inputs with PayTR's names, visible and empty; never hidden, never prefilled
    for (const name of ['cc_owner', 'card_number', 'expiry_month', 'expiry_year', 'cvv']) {
      const input = new RegExp(`<input\\b[^>]*\\bname="${name}"[^>]*>`).exec(form.body)?.[0];
      expect(input, name).toBeDefined();
      expect(input).not.toMatch(/\bvalue=|type="hidden"/);
      expect(form.names).not.toContain(name);
    }
    // no secret on the page
    expect(page.html).not.toContain(t.config.paytr.merchantKey);
    expect(page.html).not.toContain(t.config.paytr.merchantSalt);
    // no inline script: only the inventory's scripts, with their SRI hash
    for (const m of page.html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
      expect(m[2]).toBe('');
      expect(m[1]).toMatch(/\bsrc="\/payment-page\/assets\/[^"]+" integrity="sha384-/);
    }

    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain(`form-action ${paytr.url}`);
    expect(csp).not.toMatch(/form-action[^;]*'self'/);
    expect(csp).toContain(`frame-ancestors 'self' ${FRAME_ANCESTOR}`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'sha384-[^']+'/);
    expect(/script-src ([^;]*)/.exec(csp)?.[1]).not.toMatch(/unsafe|'self'/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-frame-options')).toBeNull(); // it cannot name the shop's origin
    expect(page.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');

    // the weekly tamper check passes on it
    const { run, lines } = cli(t);
    expect(await run({ url: `${t.url}${new URL(session.iframe_url!).pathname}` }), lines.join('\n')).toBe(0);
    expect(lines.join('\n')).toMatch(/^ok .*\/billing\/card\/<token>/);
  });

  it('answers 404, with the same headers, for an unknown or tampered token', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const session = await checkout(t.api, ws);
    const good = await fetchPage(t, session.iframe_url!);
    const token = session.iframe_token!;
    const flipped = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const otherOid = `WIS${'0'.repeat(32)}${token.slice(token.indexOf('.'))}`;
    for (const bad of [flipped, otherOid, 'nope', `${session.merchant_oid}`, `${session.merchant_oid}.`, encodeURIComponent('<script>')]) {
      const res = await fetchPage(t, `${t.url}/billing/card/${bad}`);
      expect(res.status, bad).toBe(404);
      expect(res.html).toContain('Payment not found');
      expect(res.html).not.toContain('<form');
      expect(securityHeaders(res.headers), bad).toEqual(securityHeaders(good.headers));
    }
  });

  it('once paid: 404; the callback with utoken lists the card; the next checkout page carries that utoken', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const session = await checkout(t.api, ws);
    const good = await fetchPage(t, session.iframe_url!);
    expect(good.status).toBe(200);

    const ok = await postCallback(t, signedCallback(t, session.merchant_oid, 'success', session.amount, { currency: 'TL', utoken: 'UTOKcard1' }));
    expect(ok.text).toBe('OK');
    const list = paytr.requests.filter((r) => r.url === '/odeme/capi/list').at(-1);
    expect(new URLSearchParams(list!.body).get('utoken')).toBe('UTOKcard1');
    const methods = await t.api.get(billingPath(ws, 'payment-methods/'), { token: ws.admin.token });
    expect(methods.status, methods.text).toBe(200);
    expect(methods.body).toEqual([expect.objectContaining({ brand: 'visa', last4: '4358', exp_month: 12, exp_year: 2030, is_default: true })]);

    const used = await fetchPage(t, session.iframe_url!);
    expect(used.status).toBe(404);
    expect(securityHeaders(used.headers)).toEqual(securityHeaders(good.headers));

    // a later checkout of the workspace joins the same PayTR user
    const next = await checkout(t.api, ws, { plan_slug: 'business', billing_interval: 'month' });
    const form = cardForm((await fetchPage(t, next.iframe_url!)).html);
    expect(form.fields.get('utoken')).toBe('UTOKcard1');
    expect(form.fields.get('store_card')).toBe('1');
  });

  it('a declined payment closes its page too', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    const session = await checkout(t.api, ws);
    const failed = await postCallback(
      t,
      signedCallback(t, session.merchant_oid, 'failed', session.amount, { failed_reason_code: '0', failed_reason_msg: 'declined' }),
    );
    expect(failed.text).toBe('OK');
    expect((await fetchPage(t, session.iframe_url!)).status).toBe(404);
  });
});
