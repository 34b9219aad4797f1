import { describe, expect, it } from 'vitest';
import { demoCommand } from '../../src/cli/commands/demo.js';
import type { CliContext } from '../../src/cli/cli.js';
import { clientFor } from '../helpers/client.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

function cliContext(): { ctx: CliContext; lines: string[] } {
  const lines: string[] = [];
  const c: CliContext = {
    config: () => ctx().config,
    out: (line) => lines.push(line),
    operator: { userId: 'cli', tokenId: 'cli', isInstanceAdmin: true },
    services: () => Promise.reject(new Error('the demo must only use the HTTP API')),
    database: () => Promise.reject(new Error('the demo must only use the HTTP API')),
  };
  return { ctx: c, lines };
}

describe('cli demo', () => {
  it('fills a running service through its API, and a second run changes nothing', async () => {
    const first = cliContext();
    expect(await demoCommand.run({ url: ctx().url }, first.ctx)).toBeUndefined();
    expect(first.lines.join('\n')).toMatch(/subscription active/);
    expect(first.lines.join('\n')).toMatch(/\d+ breached and \d+ at-risk SLA trackers/);

    const signIn = await clientFor(ctx().url).POST('/api/auth/sign-in/', { body: { email: 'demo@example.com', password: 'demo-password' } });
    const api = clientFor(ctx().url, signIn.data!.token);
    const slug = 'demo';
    const projects = (await api.GET('/api/workspaces/{slug}/projects/', { params: { path: { slug } } })).data!;
    expect(projects.map((p) => p.identifier).sort()).toEqual(['SD', 'WEB']);
    const desk = projects.find((p) => p.identifier === 'SD')!;
    const issues = await api.GET('/api/workspaces/{slug}/projects/{projectId}/issues/', {
      params: { path: { slug, projectId: desk.id }, query: { offset: 0, per_page: 1 } },
    });
    expect(issues.data!.total).toBeGreaterThan(100);
    const baselines = (await api.GET('/api/workspaces/{slug}/projects/{projectId}/baselines/', { params: { path: { slug, projectId: desk.id } } })).data!;
    expect(baselines).toHaveLength(2);
    expect((await api.GET('/api/workspaces/{slug}/billing/invoices/', { params: { path: { slug }, query: { offset: 0, per_page: 20 } } })).data!.total).toBe(1);

    const second = cliContext();
    expect(await demoCommand.run({ url: ctx().url }, second.ctx)).toBe(0);
    expect(second.lines.join('\n')).toMatch(/already exists.*Nothing changed/);
    const after = await api.GET('/api/workspaces/{slug}/projects/{projectId}/issues/', {
      params: { path: { slug, projectId: desk.id }, query: { offset: 0, per_page: 1 } },
    });
    expect(after.data!.total).toBe(issues.data!.total);
  }, 120_000);

  it('says so in one line when the service does not answer', async () => {
    const c = cliContext();
    expect(await demoCommand.run({ url: 'http://127.0.0.1:9' }, c.ctx)).toBe(1);
    expect(c.lines).toEqual([expect.stringMatching(/^error: the service does not answer at http:\/\/127\.0\.0\.1:9/)]);
  });
});
