/**
 * deploy/Caddyfile in front of the service, as documented (README "Behind a proxy / TLS"): Caddy with its internal CA
 * on free local ports, the service in its own process with PUBLIC_BASE_URL=https://localhost:<port> and
 * TRUST_PROXY=127.0.0.1. Plain HTTP is redirected to HTTPS; the console, the payment page and the docs work through it
 * in Chromium with the headers of section 22 and HSTS; check-payment-page passes through it. Skips without caddy.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWeb } from '../../scripts/build-web.js';
import { CHROMIUM } from './harness.js';
import { driveConsole } from './security-flow.js';

const CADDY = '/usr/bin/caddy';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.pid === undefined) return Promise.resolve();
  // The service runs under npx/tsx in its own process group: end that group (ours alone), not a name. The group
  // may already be gone (a child ended by a signal has a null exitCode), so a missing group is not an error.
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  };
  return new Promise((resolve) => {
    const escalate = setTimeout(() => signalGroup('SIGKILL'), 10_000);
    escalate.unref();
    child.once('exit', () => {
      clearTimeout(escalate);
      resolve();
    });
    signalGroup('SIGTERM');
  });
}

describe.skipIf(!existsSync(CADDY) || !existsSync(CHROMIUM))('behind Caddy (deploy/Caddyfile, tls internal)', () => {
  let dir = '';
  let caddy: ChildProcess | undefined;
  let service: ChildProcess | undefined;
  let browser: Browser | undefined;
  let base = '';
  let httpBase = '';
  let serviceEnv: NodeJS.ProcessEnv = {};
  let tls: Agent;
  const logs: string[] = [];
  const get = (url: string, init: Parameters<typeof undiciFetch>[1] = {}) => undiciFetch(url, { ...init, dispatcher: tls, redirect: 'manual' });

  beforeAll(async () => {
    buildWeb({ quiet: true });
    dir = await mkdtemp(join(tmpdir(), 'wis-caddy-'));
    const [upstream, httpPort, httpsPort] = [await freePort(), await freePort(), await freePort()];
    base = `https://localhost:${httpsPort}`;
    httpBase = `http://localhost:${httpPort}`;
    caddy = spawn(CADDY, ['run', '--config', 'deploy/Caddyfile', '--adapter', 'caddyfile'], {
      detached: true,
      env: {
        ...process.env,
        HOME: dir,
        XDG_DATA_HOME: join(dir, 'data'),
        XDG_CONFIG_HOME: join(dir, 'config'),
        SITE: 'localhost',
        TLS: 'internal',
        HTTP_PORT: String(httpPort),
        HTTPS_PORT: String(httpsPort),
        UPSTREAM: `127.0.0.1:${upstream}`,
        CADDY_ADMIN: 'off',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    caddy.stderr?.on('data', (d: Buffer) => logs.push(`caddy: ${d.toString().slice(0, 300)}`));
    const rootCert = join(dir, 'data/caddy/pki/authorities/local/root.crt');
    await until('the internal CA', async () => (existsSync(rootCert) ? true : undefined));
    tls = new Agent({ connect: { ca: readFileSync(rootCert, 'utf8') } });

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(upstream),
      HOST: '127.0.0.1',
      DATA_DIR: join(dir, 'service'),
      PUBLIC_BASE_URL: base,
      TRUST_PROXY: '127.0.0.1,::1',
      RATE_LIMIT_SIGNIN_FAILURES: '3',
      LOG_LEVEL: 'warn',
      JOB_INTERVAL_MS: '0',
      // The service calls itself through Caddy (the sandbox's get-token and callback): it trusts Caddy's CA.
      NODE_EXTRA_CA_CERTS: rootCert,
    };
    delete env.DATABASE_URL;
    delete env.REDIS_URL;
    serviceEnv = env;
    service = spawn('npx', ['tsx', 'src/main.ts'], { detached: true, env, stdio: ['ignore', 'pipe', 'pipe'] });
    service.stderr?.on('data', (d: Buffer) => logs.push(`service: ${d.toString().slice(0, 300)}`));
    service.stdout?.on('data', (d: Buffer) => logs.push(`service: ${d.toString().slice(0, 300)}`));
    await until('the service through Caddy', async () => ((await get(`${base}/openapi.json`)).status === 200 ? true : undefined), 90_000);

    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await stop(service);
    await stop(caddy);
    await tls?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('redirects plain HTTP to HTTPS', async () => {
    const res = await undiciFetch(`${httpBase}/app/`, { redirect: 'manual' });
    expect([301, 302, 307, 308]).toContain(res.status);
    expect(res.headers.get('location')).toBe(`${base}/app/`);
    // ("https://host:443/..." in production: the same address.)
  });

  it('every answer through it carries HSTS and the headers of its surface', async () => {
    const hsts = 'max-age=63072000; includeSubDomains';
    const api = await get(`${base}/api/workspaces/`);
    expect(api.status).toBe(401);
    expect(api.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
    expect(api.headers.get('referrer-policy')).toBe('no-referrer');
    for (const path of ['/api/workspaces/', '/app/', '/docs/', '/billing/return/ok', '/openapi.json', '/nowhere']) {
      const res = await get(base + path);
      expect(res.headers.get('strict-transport-security'), path).toBe(hsts);
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('server'), path).toBeNull();
    }
    const console = await get(`${base}/app/`);
    expect(console.headers.get('content-security-policy')).toMatch(/script-src 'self';.*frame-ancestors 'none';frame-src 'self'/);
    expect(console.headers.get('x-frame-options')).toBe('DENY');
  });

  it("a client's forged X-Forwarded-For does not get through Caddy: the sign-in limit keys on the real client", async () => {
    const fail = (forged: string) =>
      get(`${base}/api/auth/sign-in/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forged },
        body: JSON.stringify({ email: `nobody.${forged}@example.com`, password: 'wrong password' }),
      });
    const statuses = [];
    for (const forged of ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4']) statuses.push((await fail(forged)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it('the console, a sandbox checkout in its iframe and the docs work in Chromium: no CSP violation, no error', async () => {
    const report = await driveConsole(browser!, base);
    expect(report.violations).toEqual([]);
    expect(report.errors).toEqual([]);
    expect(report.paymentScriptLoaded).toBe(true);
    expect(report.subscriptionActive).toBe(true);
    for (const name of ['console', 'docs', 'payment'] as const) {
      expect(report.documents[name]?.['strict-transport-security'], name).toBe('max-age=63072000; includeSubDomains');
    }
    expect(report.documents.payment?.['content-security-policy']).toMatch(/script-src 'sha384-[^']+';.*form-action 'self';frame-ancestors 'self'$/);
  }, 120_000);

  it('check-payment-page passes through it', async () => {
    const child = spawn('npx', ['tsx', 'src/cli/main.ts', 'check-payment-page'], { env: serviceEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(out).toMatch(/^ok https:\/\/localhost:\d+\/sandbox\/paytr\/odeme\/guvenli\/<token>: headers and scripts match/m);
    expect(code, out).toBe(0);
  }, 60_000);
});
