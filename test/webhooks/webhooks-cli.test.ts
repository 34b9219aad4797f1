import { describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/cli/cli.js';
import { webhookCommands } from '../../src/cli/commands/webhooks.js';
import { createIssue, createProject, createWorkspace } from '../helpers/factories.js';
import { startReceiver } from '../helpers/receiver.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

/** The CLI's commands, run in-process against the test app's services, as the operator. */
function cli() {
  const lines: string[] = [];
  const c: CliContext = {
    config: () => ctx().config,
    out: (line) => lines.push(line),
    operator: { userId: '00000000-0000-7000-8000-000000000000', tokenId: 'cli', isInstanceAdmin: true, isOperator: true },
    services: async () => ctx().app.services,
    database: async () => ctx().database,
  };
  const run = (name: string, values: Record<string, string | boolean>) => webhookCommands.find((x) => x.name === name)!.run(values, c);
  return { run, lines };
}

describe('cli webhooks', () => {
  it("lists an endpoint's deliveries and redelivers one with the same webhook-id", async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const receiver = await startReceiver();
    try {
      const hook = (await api.post(`/api/workspaces/${ws.slug}/webhooks/`, { url: receiver.url, event_types: ['issue.created'] }, { token: ws.admin.token }))
        .body;
      receiver.script({ status: 500 });
      await createIssue(api, ws, (await createProject(api, ws)).id);
      await receiver.waitFor(1);
      await ctx()
        .app.jobs.find((j) => j.name === 'webhooks.deliver')!
        .run();
      const { run, lines } = cli();
      await run('webhooks list', { workspace: ws.slug });
      expect(lines.join('\n')).toContain(hook.id);
      await run('webhooks deliveries', { workspace: ws.slug, webhook: hook.id, status: 'pending', json: true });
      const page = JSON.parse(lines.at(-1)!);
      expect(page).toMatchObject({ total: 1, results: [{ event_type: 'issue.created', status: 'pending', last_status_code: 500 }] });
      expect(await run('webhooks redeliver', { workspace: ws.slug, webhook: hook.id, delivery: page.results[0].id })).toBe(0);
      expect(lines.at(-1)).toMatch(/succeeded after 2 attempt/);
      expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
      await expect(run('webhooks deliveries', { workspace: ws.slug, webhook: hook.id, status: 'lost' })).rejects.toThrow(/--status/);
      await expect(run('webhooks list', { workspace: 'no-such-workspace' })).rejects.toMatchObject({ code: 'not_found' });
    } finally {
      await receiver.close();
    }
  });
});
