import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import { openTestDatabase } from '../helpers/databases.js';

let db: DatabaseHandle;
let dir: string;
let built: FastifyInstance;
let missing: FastifyInstance;

beforeAll(async () => {
  db = await openTestDatabase({ pgliteTemplate: inject('pgliteTemplate'), postgresTemplate: inject('postgresTemplate') });
  dir = await mkdtemp(join(tmpdir(), 'console-'));
  await mkdir(join(dir, 'assets'));
  await writeFile(join(dir, 'index.html'), '<!doctype html><div id="root"></div>');
  await writeFile(join(dir, 'assets', 'index-Ab12Cd34.js'), 'console.log(1)');
  await writeFile(join(dir, 'favicon.txt'), 'hi');
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  built = await buildApp({ config, database: db, consoleDir: dir });
  missing = await buildApp({ config, database: db, consoleDir: join(dir, 'nowhere') });
});

afterAll(async () => {
  await built?.close();
  await missing?.close();
  await db?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the web console at /app/', () => {
  it('serves index.html at /app/ without a token, never cached', async () => {
    const res = await built.inject({ url: '/app/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toContain('id="root"');
  });

  it('answers index.html for any /app/ path that is not a file (history routing)', async () => {
    for (const url of ['/app/w/acme/p/123/issues', '/app/sign-in', '/app/w/acme/billing?x=1']) {
      const res = await built.inject({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toContain('id="root"');
    }
    expect((await built.inject({ url: '/app' })).statusCode).toBe(200);
    expect((await missing.inject({ url: '/app' })).statusCode).toBe(503);
    expect((await missing.inject({ url: '/app/' })).statusCode).toBe(503);
  });

  it('caches hashed assets for a year as immutable', async () => {
    const res = await built.inject({ url: '/app/assets/index-Ab12Cd34.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await built.inject({ url: '/app/favicon.txt' })).headers['cache-control']).toBe('no-cache');
  });

  it('answers 404 for a missing asset and never serves files outside the build', async () => {
    expect((await built.inject({ url: '/app/assets/index-gone0000.js' })).statusCode).toBe(404);
    const res = await built.inject({ url: '/app/../package.json' });
    expect(res.body).not.toContain('"dependencies"');
    const enc = await built.inject({ url: '/app/%2e%2e/%2e%2e/package.json' });
    expect(enc.body).not.toContain('"dependencies"');
  });

  it('answers 503 problem+json naming the fix when the console is not built', async () => {
    const res = await missing.inject({ url: '/app/w/acme' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.json()).toMatchObject({ status: 503, code: 'console_not_built', detail: 'the console is not built: run npm run build:web' });
  });

  it('keeps the API out of the console: /api/ still needs a token', async () => {
    expect((await built.inject({ url: '/api/workspaces/' })).statusCode).toBe(401);
  });
});
