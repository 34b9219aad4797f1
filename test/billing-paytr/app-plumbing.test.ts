import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { registerAuthentication } from '../../src/http/auth.js';
import { registerErrorHandling } from '../../src/http/errors.js';
import { registerJsonParser } from '../../src/http/json-parser.js';
import { buildTokenForm, createPaytrClient, returnPages, sandboxRoutes, type TokenRequest } from '../../src/modules/billing/provider/paytr/index.js';

/**
 * The sandbox inside the service's own HTTP plumbing (JSON-only root parser, problem+json errors, token auth on
 * /api/), without a database: the routes are public, parse forms and keep trailing-slash tolerance.
 */
async function plumbedApp() {
  const config = loadConfig({});
  const app = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
  registerJsonParser(app);
  registerErrorHandling(app);
  registerAuthentication(app, async () => null);
  app.post('/api/webhooks/provider/callback/', { config: { public: true } }, async (_req, reply) => reply.type('text/plain').send('OK'));
  await app.register(sandboxRoutes, { config, callbackUrl: 'http://127.0.0.1:9/unused' });
  await app.register(returnPages);
  await app.ready();
  return { app, config };
}

const REQ: TokenRequest = {
  merchantOid: 'PLUMB1',
  email: 'a@example.com',
  amount: 29900,
  currency: 'TRY',
  userIp: '127.0.0.1',
  userName: 'A',
  userAddress: 'acme',
  userPhone: '0555',
  basket: [{ name: 'Pro', amount: 29900, quantity: 1 }],
  okUrl: 'http://127.0.0.1:3000/billing/return/ok',
  failUrl: 'http://127.0.0.1:3000/billing/return/fail',
};

describe('sandbox inside the service plumbing', () => {
  it('needs no token, parses forms and answers with and without a trailing slash', async () => {
    const { app, config } = await plumbedApp();
    const form = buildTokenForm(config.paytr, REQ).toString();
    for (const url of ['/sandbox/paytr/odeme/api/get-token', '/sandbox/paytr/odeme/api/get-token/']) {
      const res = await app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: form,
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: 'success' });
    }
    expect((await app.inject('/billing/return/ok/')).statusCode).toBe(200);
    expect((await app.inject('/sandbox/paytr/odeme/guvenli/nope/')).statusCode).toBe(404);
    await app.close();
  });

  it('lets the client talk to it through an injected fetch', async () => {
    const { app, config } = await plumbedApp();
    const viaInject: typeof fetch = async (input, init) => {
      const url = new URL(String(input));
      const res = await app.inject({
        method: 'POST',
        url: url.pathname,
        headers: init?.headers as Record<string, string>,
        payload: String(init?.body ?? ''),
      });
      return new Response(res.body, { status: res.statusCode });
    };
    const client = createPaytrClient(config.paytr, { fetch: viaInject });
    const { token, iframeUrl } = await client.getToken({ ...REQ, merchantOid: 'PLUMB2' });
    expect(iframeUrl).toBe(`${config.paytr.iframeBase}/odeme/guvenli/${token}`);
    expect(iframeUrl).toMatch(/^http:\/\/127\.0\.0\.1:3000\/sandbox\/paytr\/odeme\/guvenli\//);
    const page = await app.inject(new URL(iframeUrl).pathname);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('299.00 TL');
    await app.close();
  });

  it('stays out of the OpenAPI document', async () => {
    const swagger = (await import('@fastify/swagger')).default;
    const config = loadConfig({});
    const app = Fastify();
    await app.register(swagger, { openapi: { openapi: '3.1.0', info: { title: 't', version: '1' } } });
    await app.register(sandboxRoutes, { config, callbackUrl: 'http://127.0.0.1:9/unused' });
    await app.ready();
    const paths = Object.keys((app.swagger() as { paths?: Record<string, unknown> }).paths ?? {});
    expect(paths.filter((p) => p.startsWith('/sandbox') || p.startsWith('/billing/return'))).toEqual([]);
    await app.close();
  });
});
