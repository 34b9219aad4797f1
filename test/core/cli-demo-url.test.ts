/** The CLI demo against a running service: refused beside one holding the embedded database, and through --url. */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliContext } from '../../src/cli/cli.js';
import { demoCommand } from '../../src/cli/commands/demo.js';
import { httpBackend } from '../../src/cli/demo/demo.http.js';
import { runDemo } from '../../src/cli/demo/demo.runner.js';
import { loadConfig } from '../../src/config/config.js';
import { demoPlan, SEARCH_EXAMPLES } from '../../src/cli/demo/demo.plan.js';
import { openDatabase } from '../../src/db/database.js';
import { startTestApp, useTestApp } from '../helpers/test-app.js';
import { removeDemoFiles, counts, workItemCore, addedNothing } from './cli-demo.helpers.js';
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';

const ctx = useTestApp();
afterAll(removeDemoFiles);

describe('cli demo, embedded database held by a running service', () => {
  let holder: ChildProcess | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'wis-demo-lock-'));
  afterAll(() => {
    if (holder?.pid) process.kill(holder.pid);
    rmSync(dir, { recursive: true, force: true });
  });

  it('says so, and names the ways out: stop the service, or --url against it', async () => {
    // Another process holds the folder, as `npm start` does.
    const module = fileURLToPath(new URL('../../src/db/database.ts', import.meta.url));
    const code = `const { openPglite } = await import(${JSON.stringify(module)}); await openPglite(${JSON.stringify(dir)}); console.log('ready'); setInterval(() => {}, 60000);`;
    holder = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      holder!.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      holder!.once('exit', (code) => reject(new Error(`the holder exited (${code})`)));
    });

    const lines: string[] = [];
    const cfg = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dir, PORT: '3999' });
    const cli: CliContext = {
      config: () => cfg,
      database: () => openDatabase(cfg),
      services: () => Promise.reject(new Error('the demo builds its own services')),
      out: (line) => lines.push(line),
      operator: { userId: 'cli', tokenId: 'cli', isInstanceAdmin: true, isOperator: true },
    };
    expect(await demoCommand.run({}, cli)).toBe(1);
    const text = lines.join('\n');
    expect(text).toMatch(new RegExp(`the embedded database in .*${dir.split('/').pop()!} is held by a running service \\(process ${holder.pid}\\)`));
    expect(text).toMatch(/stop the service/);
    expect(text).toMatch(/npm run cli -- demo --url http:\/\/127\.0\.0\.1:3999/);
  }, 120_000);
});

describe('cli demo --url', () => {
  it('goes through the API of a running service with a low rate limit (120 a minute), waiting out each 429 by its Retry-After, and completes', async () => {
    const limited = await startTestApp({ apiRateLimit: 120 });
    try {
      const waits: number[] = [];
      const lines: string[] = [];
      const api = httpBackend(limited.url, { onWait: (ms) => waits.push(ms) });
      const { result } = { result: await runDemo(api, { out: (l) => lines.push(l), issueCount: 12 }) };
      expect(waits.length).toBeGreaterThan(0);
      expect(waits.every((ms) => ms >= 1000 && ms <= 61_000)).toBe(true);
      expect(lines.join('\n')).toMatch(/Done in/);
      expect(result.added.find((s) => s.step === 'webhook endpoint')!.added).toHaveLength(1);
      const small = demoPlan(12);
      expect(await counts(limited.database.db)).toMatchObject({
        issues: 12 + small.history.length + small.subIssues.length + SEARCH_EXAMPLES.length,
        baselines: 2,
        payments: 1,
        invoices: 1,
        labels: 12,
        issue_relations: small.relations.length,
      });
      await workItemCore(limited.database.db, limited.url, 12);
      // Over HTTP too, a second workspace past due: its test clock moved past the period's end, the renewal declined.
      expect(lines.join('\n')).toMatch(/a workspace in dunning\s+added .*renewal declined: subscription past_due, 1 attempt/);
      const dunning = await limited.database.db
        .selectFrom('subscriptions as s')
        .innerJoin('workspaces as w', 'w.id', 's.workspace_id')
        .select(['s.status', 's.dunning_attempts'])
        .where('w.slug', '=', 'demo-dunning')
        .executeTakeFirstOrThrow();
      expect(dunning).toEqual({ status: 'past_due', dunning_attempts: 1 });

      const again: string[] = [];
      const second = await runDemo(httpBackend(limited.url), { out: (l) => again.push(l), issueCount: 12 });
      expect(addedNothing(second)).toBe(true);
    } finally {
      await limited.close();
    }
  }, 360_000);

  it('says so in one line when the service does not answer', async () => {
    const lines: string[] = [];
    const cli = { config: () => ctx().config, out: (l: string) => lines.push(l) } as unknown as CliContext;
    expect(await demoCommand.run({ url: 'http://127.0.0.1:9' }, cli)).toBe(1);
    expect(lines).toEqual([expect.stringMatching(/^error: the service does not answer at http:\/\/127\.0\.0\.1:9/)]);
  });
});
