import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, inject } from 'vitest';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config/config.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import { ManualClock } from '../../src/kernel/clock.js';
import { openTestDatabase } from './databases.js';
import { type Api, apiClient } from './http.js';

export interface TestApp {
  app: FastifyInstance;
  api: Api;
  clock: ManualClock;
  database: DatabaseHandle;
  config: Config;
  url: string;
  close(): Promise<void>;
}

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

export type ConfigOverrides = Partial<Omit<Config, 'paytr' | 'rateLimits' | 'webhooks'>> & {
  webhooks?: Partial<Config['webhooks']>;
  paytr?: Partial<Config['paytr']>;
  rateLimits?: Partial<Config['rateLimits']>;
};

/** The service on a fresh database of its own, listening on a real port, with a clock the test moves. */
export async function startTestApp(overrides: ConfigOverrides = {}, database?: DatabaseHandle): Promise<TestApp> {
  const port = await freePort();
  const base = loadConfig({ PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' });
  // Each app stores attachments in a folder of its own (removed on close), never in the checkout's ./data.
  const storageDir = overrides.storage ? null : mkdtempSync(join(tmpdir(), 'wis-files-'));
  const config: Config = {
    ...base,
    storage: { ...base.storage, dir: storageDir ?? base.storage.dir },
    // Tests send many requests with one token; the limit's own tests lower it.
    apiRateLimit: 1_000_000,
    // One Redis serves every test app (and run): each counts under its own prefix.
    redisPrefix: `wis-test:${randomUUID()}:`,
    ...overrides,
    paytr: { ...base.paytr, ...overrides.paytr },
    rateLimits: {
      ...base.rateLimits,
      signInFailures: 1_000_000,
      signUps: 1_000_000,
      ...overrides.rateLimits,
    },
    // Test receivers listen on 127.0.0.1.
    webhooks: { ...base.webhooks, allowPrivateTargets: true, ...overrides.webhooks },
  };
  const db = database ?? (await openTestDatabase({ pgliteTemplate: inject('pgliteTemplate'), postgresTemplate: inject('postgresTemplate') }));
  const clock = new ManualClock();
  const app = await buildApp({ config, database: db, clock });
  await app.listen({ port, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${port}`;
  return {
    app,
    api: apiClient(url),
    clock,
    database: db,
    config,
    url,
    close: async () => {
      // As src/server.ts shuts down: a keep-alive connection that turns idle after close() began (a sandbox
      // notification answered during the close) is closed at once, not after its 72 s keep-alive timeout.
      const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
      try {
        await app.close();
      } finally {
        clearInterval(sweep);
      }
      if (!database) await db.close();
      if (storageDir) rmSync(storageDir, { recursive: true, force: true });
    },
  };
}

/** One app per test file; each test makes its own users and workspace. */
export function useTestApp(overrides: ConfigOverrides = {}): () => TestApp {
  let ctx: TestApp | undefined;
  beforeAll(async () => {
    ctx = await startTestApp(overrides);
  });
  afterAll(async () => {
    await ctx?.close();
  });
  return () => {
    if (!ctx) throw new Error('test app not started');
    return ctx;
  };
}
