import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const API_CSP = "default-src 'none';frame-ancestors 'none'";

/** The headers every answer carries, whatever its surface. */
function expectBaseline(headers: Headers): void {
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('referrer-policy')).toMatch(/^(no-referrer|strict-origin-when-cross-origin)$/);
}

function directives(csp: string | null): Map<string, string> {
  return new Map(
    (csp ?? '')
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((p) => p[0])
      .map((p) => [p[0]!, p.slice(1).join(' ')]),
  );
}

async function signUp(app: TestApp): Promise<string> {
  const res = await app.api.post('/api/auth/sign-up/', { email: `u.${randomUUID()}@example.com`, password: 'correct horse battery', display_name: 'U' });
  expect(res.status, res.text).toBe(201);
  return res.body.token as string;
}

describe('security headers per surface (section 22)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => app?.close());

  it('API answers: CSP default-src none with frame-ancestors none, no-referrer, nosniff, and no-store for authenticated requests', async () => {
    const token = await signUp(app);
    for (const res of [
      await app.api.get('/api/workspaces/', { token }),
      await app.api.get('/api/workspaces/'),
      await app.api.get('/api/nothing-here/', { token }),
    ]) {
      expect(res.headers.get('content-security-policy')).toBe(API_CSP);
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    // Problem answers too (401 without a token, 404 for an unknown path).
    expect((await app.api.get('/api/workspaces/')).status).toBe(401);
    // No HSTS on plain http.
    expect((await app.api.get('/api/workspaces/', { token })).headers.get('strict-transport-security')).toBeNull();
  });

  it('the console and the API reference: script-src self (plus hashes of inline scripts), no unsafe-inline or unsafe-eval for scripts, no framing, frame-src only the payment page', async () => {
    for (const path of ['/app/', '/docs/']) {
      const res = await app.api.get(path);
      expectBaseline(res.headers);
      const csp = directives(res.headers.get('content-security-policy'));
      const scriptSrc = csp.get('script-src')!;
      expect(scriptSrc.split(' ')[0]).toBe("'self'");
      expect(scriptSrc).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
      for (const source of scriptSrc.split(' ').slice(1)) expect(source).toMatch(/^'sha256-[A-Za-z0-9+/=]+'$/);
      expect(csp.get('object-src')).toBe("'none'");
      expect(csp.get('base-uri')).toBe("'self'");
      expect(csp.get('form-action')).toBe("'self'");
      expect(csp.get('frame-ancestors')).toBe("'none'");
      // The sandbox's payment page is the service's own.
      expect(csp.get('frame-src')).toBe("'self'");
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    }
    // The API reference's start-up script is inline: its hash is exactly what the page holds.
    const docs = await app.api.get('/docs/');
    const inline = [...docs.text.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(inline.length).toBeGreaterThan(0);
    const { createHash } = await import('node:crypto');
    const scriptSrc = directives(docs.headers.get('content-security-policy')).get('script-src')!;
    for (const body of inline) expect(scriptSrc).toContain(`'sha256-${createHash('sha256').update(body).digest('base64')}'`);
  });

  it('health, OpenAPI and unknown paths carry nosniff and a Referrer-Policy too; no CORS header without CORS_ORIGINS', async () => {
    for (const path of ['/openapi.json', '/no/such/page', '/payment-page/assets/submit-once.js']) {
      const res = await app.api.get(path, { headers: { origin: 'https://evil.example' } });
      expectBaseline(res.headers);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
    const preflight = await app.api.request('OPTIONS', '/api/workspaces/', {
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-methods')).toBeNull();
  });
});

describe('HTTPS: HSTS when PUBLIC_BASE_URL is https', () => {
  it('sends Strict-Transport-Security on every answer', async () => {
    const app = await startTestApp({ publicBaseUrl: 'https://work.example.com' });
    try {
      for (const path of ['/api/workspaces/', '/app/', '/docs/', '/billing/return/ok', '/nowhere']) {
        expect((await app.api.get(path)).headers.get('strict-transport-security'), path).toBe('max-age=63072000; includeSubDomains');
      }
    } finally {
      await app.close();
    }
  });
});

describe('CORS_ORIGINS', () => {
  const listed = 'https://portal.example.com';
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ corsOrigins: [listed, 'http://localhost:5173'] });
  });
  afterAll(async () => app?.close());

  it('a listed origin gets its own origin back (never *) with Vary: Origin', async () => {
    const token = await signUp(app);
    const res = await app.api.get('/api/workspaces/', { token, headers: { origin: listed } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(listed);
    expect(res.headers.get('vary')).toMatch(/\bOrigin\b/);
  });

  it('errors answer a listed origin too (the browser can read the problem), and every API answer varies on Origin', async () => {
    const unauthorized = await app.api.get('/api/workspaces/', { headers: { origin: listed } });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('access-control-allow-origin')).toBe(listed);
    expect(unauthorized.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
    const missing = await app.api.get('/api/no-such-route/', { headers: { origin: 'http://localhost:5173' } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    const noOrigin = await app.api.get('/api/workspaces/');
    expect(noOrigin.headers.get('access-control-allow-origin')).toBeNull();
    expect(noOrigin.headers.get('vary')).toMatch(/\bOrigin\b/);
    expect(noOrigin.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('a preflight from a listed origin: 204 with the methods, the three headers and a max age', async () => {
    const res = await app.api.request('OPTIONS', '/api/workspaces/', {
      headers: { origin: listed, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,idempotency-key' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(listed);
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST, PUT, PATCH, DELETE');
    expect(res.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, Idempotency-Key');
    expect(res.headers.get('access-control-max-age')).toBe('600');
    expect(res.headers.get('vary')).toMatch(/\bOrigin\b/);
  });

  it('any other origin gets no CORS header, preflight or not; nor does a near miss of a listed one', async () => {
    for (const origin of ['https://evil.example', 'https://portal.example.com.evil.example', 'http://portal.example.com', 'null']) {
      const get = await app.api.get('/api/workspaces/', { headers: { origin } });
      const preflight = await app.api.request('OPTIONS', '/api/workspaces/', { headers: { origin, 'access-control-request-method': 'GET' } });
      for (const res of [get, preflight]) {
        for (const name of ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers', 'access-control-max-age']) {
          expect(res.headers.get(name), `${origin} ${name}`).toBeNull();
        }
      }
      expect(preflight.status).toBe(404);
    }
  });

  it('the provider callback never answers CORS, not even to a listed origin; nor do pages outside the API', async () => {
    const callback = await app.api.request('POST', '/api/webhooks/provider/callback/', {
      headers: { origin: listed },
      raw: new URLSearchParams({ merchant_oid: 'x' }),
    });
    const preflight = await app.api.request('OPTIONS', '/api/webhooks/provider/callback/', {
      headers: { origin: listed, 'access-control-request-method': 'POST' },
    });
    const page = await app.api.get('/app/', { headers: { origin: listed } });
    for (const res of [callback, preflight, page]) expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-methods')).toBeNull();
  });
});

describe('TRUST_PROXY', () => {
  const signInFails = (app: TestApp, forwardedFor?: string) =>
    app.api.post(
      '/api/auth/sign-in/',
      { email: `nobody.${randomUUID()}@example.com`, password: 'wrong password' },
      forwardedFor ? { headers: { 'x-forwarded-for': forwardedFor } } : {},
    );

  it('off (the default): a forged X-Forwarded-For is ignored, so a direct client cannot escape its own sign-in limit', async () => {
    const app = await startTestApp({ rateLimits: { signInFailures: 3 } });
    try {
      for (let i = 0; i < 3; i++) expect((await signInFails(app, `198.51.100.${i + 1}`)).status).toBe(401);
      // A new forged address each time, and none at all: the same client, locked out.
      expect((await signInFails(app, '198.51.100.77')).status).toBe(429);
      expect((await signInFails(app)).status).toBe(429);
    } finally {
      await app.close();
    }
  });

  it('a sender that is not in the list is not believed either', async () => {
    const app = await startTestApp({ trustProxy: ['10.0.0.0/8'], rateLimits: { signInFailures: 2 } });
    try {
      expect((await signInFails(app, '203.0.113.1')).status).toBe(401);
      expect((await signInFails(app, '203.0.113.2')).status).toBe(401);
      expect((await signInFails(app, '203.0.113.3')).status).toBe(429);
    } finally {
      await app.close();
    }
  });

  it('behind a trusted proxy, two clients get separate sign-in limits (keyed by the real client address)', async () => {
    for (const trustProxy of [['127.0.0.1'], ['127.0.0.0/8', '::1'], 1] as const) {
      const app = await startTestApp({ trustProxy: trustProxy as string[] | number, rateLimits: { signInFailures: 2 } });
      try {
        expect((await signInFails(app, '203.0.113.10')).status).toBe(401);
        expect((await signInFails(app, '203.0.113.10')).status).toBe(401);
        expect((await signInFails(app, '203.0.113.10')).status, String(trustProxy)).toBe(429);
        // Another customer behind the same proxy is not locked out by the first one.
        expect((await signInFails(app, '203.0.113.20')).status).toBe(401);
        // A client-supplied entry in front of the proxy's own is not the address the proxy saw.
        expect((await signInFails(app, '203.0.113.20, 203.0.113.10')).status).toBe(429);
      } finally {
        await app.close();
      }
    }
  });

  it("behind a trusted proxy, PayTR is told the customer's address as user_ip, not the proxy's", async () => {
    const forms: URLSearchParams[] = [];
    const paytr = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        forms.push(new URLSearchParams(body));
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ status: 'success', token: 'tok123' }));
      });
    });
    await new Promise<void>((resolve) => paytr.listen(0, '127.0.0.1', resolve));
    const paytrUrl = `http://127.0.0.1:${(paytr.address() as { port: number }).port}`;
    const app = await startTestApp({
      trustProxy: ['127.0.0.1'],
      paymentProvider: 'paytr',
      paytr: { apiBase: paytrUrl, iframeBase: paytrUrl, merchantId: '1', merchantKey: 'k', merchantSalt: 's' },
    });
    try {
      const token = await signUp(app);
      const slug = `ip-${Date.now().toString(36)}`;
      expect((await app.api.post('/api/workspaces/', { name: 'IP', slug }, { token })).status).toBe(201);
      const res = await app.api.post(
        `/api/workspaces/${slug}/billing/checkout/`,
        { plan_slug: 'business', billing_interval: 'month', save_card: false },
        { token, headers: { 'x-forwarded-for': '203.0.113.77' } },
      );
      expect(res.status, res.text).toBe(201);
      expect(forms.at(-1)?.get('user_ip')).toBe('203.0.113.77');
      // with save_card, the card page (19.1) tells PayTR the address of the browser that shows it
      const card = await app.api.post(`/api/workspaces/${slug}/billing/checkout/`, { plan_slug: 'business', billing_interval: 'month' }, { token });
      expect(card.status, card.text).toBe(201);
      const page = await fetch(`${app.url}${new URL(card.body.iframe_url).pathname}`, { headers: { 'x-forwarded-for': '203.0.113.78' } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('name="user_ip" value="203.0.113.78"');
    } finally {
      await app.close();
      await new Promise((resolve) => paytr.close(resolve));
    }
  });
});
