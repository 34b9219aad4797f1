import type { DatabaseHandle } from '../../db/database.js';
import { type Command, UsageError } from '../cli.js';
import type { DemoBackend } from '../demo/demo.backend.js';
import { DEMO_ACCOUNT, DEFAULT_ISSUE_COUNT } from '../demo/demo.plan.js';

/**
 * `demo`: a living example workspace. By default in process, through the module services the routes use, on the
 * database `npm start` would use (no HTTP, no rate limit, no running service needed); with `--url`, over HTTP
 * against a running service. Either way idempotent: each step adds only what is missing.
 */
export const demoCommand: Command = {
  name: 'demo',
  summary: 'fill the database with a demo workspace (again: completes what is missing)',
  usage: '[--url http://127.0.0.1:3000]',
  help:
    `Creates the account ${DEMO_ACCOUNT.email} (password ${DEMO_ACCOUNT.password}), the workspace "demo" with two members\n` +
    `and a guest, a paid Pro subscription with its invoice (sandbox provider), an SLA calendar and two policies, two\n` +
    `projects with their labels, ${DEFAULT_ISSUE_COUNT} issues over two weeks (assignees, labels, custom values, comments, history,\n` +
    'met and breached SLA targets), sub-issue trees, relations between issues, two baselines, a paused webhook\n' +
    'endpoint, and a second workspace "demo-dunning" whose renewal was declined (past due). Each step adds only what\n' +
    'is missing: run it again after an interrupted run.\n\n' +
    'Without --url it writes in process to the database `npm start` uses (DATABASE_URL, or the embedded one in\n' +
    'DATA_DIR, which must not be held by a running service). With --url it goes through the API of a running\n' +
    'service, waiting out its rate limit.',
  options: { url: { type: 'string' } },
  run: async (values, ctx) => {
    let api: DemoBackend;
    if (typeof values.url === 'string') {
      const baseUrl = values.url.replace(/\/+$/, '');
      if (!/^https?:\/\/[^/]+/.test(baseUrl)) throw new UsageError(`--url "${baseUrl}" is not an http(s) address`);
      try {
        await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(5_000) });
      } catch {
        ctx.out(`error: the service does not answer at ${baseUrl}`);
        return 1;
      }
      // Loaded on use: the other commands start without the demo's modules.
      const { httpBackend } = await import('../demo/demo.http.js');
      api = httpBackend(baseUrl, {
        // The service's provider is not visible over the API: the local environment says what `npm start` uses.
        sandboxPayments: ctx.config().paymentProvider === 'sandbox',
        onWait: (ms) => ctx.out(`    (rate limited: waiting ${Math.ceil(ms / 1000)} s, as the service asks)`),
      });
    } else {
      const config = ctx.config();
      let database: DatabaseHandle;
      try {
        database = await ctx.database();
      } catch (error) {
        const held = /in use by process (\d+)/.exec((error as Error).message);
        if (!held) throw error;
        const url = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
        ctx.out(
          `error: the embedded database in ${config.dataDir} is held by a running service (process ${held[1]}).\n` +
            `  Either stop the service (Ctrl-C in its terminal) and run \`npm run cli -- demo\` again,\n` +
            `  or let the running service do it over HTTP: \`npm run cli -- demo --url ${url}\``,
        );
        return 1;
      }
      const where = database.kind === 'pglite' ? `the embedded database in ${config.dataDir}` : 'the PostgreSQL database of DATABASE_URL';
      const { inProcessBackend } = await import('../demo/demo.in-process.js');
      api = await inProcessBackend(config, database, where);
    }
    const { runDemo } = await import('../demo/demo.runner.js');
    try {
      await runDemo(api, { out: ctx.out });
    } finally {
      await api.close();
    }
  },
};
