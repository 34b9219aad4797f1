import { describe, expect, it } from 'vitest';
import { unwrap } from '../../client/src/index.js';
import { webhooksRepository } from '../../src/modules/webhooks/index.js';
import { clientFor, expectFailure } from '../helpers/client.js';
import { createIssue, createProject, createWorkspace, projectStates } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { createBaseline } from './fixtures.js';

const ctx = useTestApp();

async function project() {
  const { api } = ctx();
  const ws = await createWorkspace(api);
  const p = await createProject(api, ws);
  const { byGroup } = await projectStates(api, ws, p.id);
  const issue = (body: Record<string, unknown>) => createIssue(api, ws, p.id, body);
  const patch = (id: string, body: Record<string, unknown>) =>
    api.patch(`/api/workspaces/${ws.slug}/projects/${p.id}/issues/${id}/`, body, { token: ws.admin.token });
  return { api, ws, p, byGroup, issue, patch, client: clientFor(ctx().url, ws.admin.token) };
}

describe('deviation transitions and comparing two baselines', () => {
  it('counts the moves of issues present on both sides, and compares with another baseline instead of now', async () => {
    const { api, ws, p, byGroup, issue, patch, client } = await project();
    const a = await issue({ state_id: byGroup('backlog'), priority: 'high' });
    const b = await issue({ state_id: byGroup('backlog'), priority: 'low' });
    const c = await issue({ state_id: byGroup('unstarted'), priority: 'low' });
    const first = await createBaseline(api, ws, p.id, 'first');
    await patch(a.id, { state_id: byGroup('started'), priority: 'urgent' });
    await patch(b.id, { state_id: byGroup('started') });
    await patch(c.id, { priority: 'medium' });
    await issue({ name: 'added later' });
    const second = await createBaseline(api, ws, p.id, 'second');
    await patch(a.id, { state_id: byGroup('completed') });

    const now = await unwrap(
      client.GET('/api/workspaces/{slug}/baselines/{baselineId}/deviation/', { params: { path: { slug: ws.slug, baselineId: first.id } } }),
    );
    expect(now.transitions).toEqual({ state: { 'backlog->completed': 1, 'backlog->started': 1 }, priority: { 'high->urgent': 1, 'low->medium': 1 } });
    expect(now.against).toBeNull();
    expect(now.added.count).toBe(1);

    const between = await unwrap(
      client.GET('/api/workspaces/{slug}/baselines/{baselineId}/deviation/', {
        params: { path: { slug: ws.slug, baselineId: first.id }, query: { against: second.id } },
      }),
    );
    expect(between.against).toMatchObject({ id: second.id, name: 'second' });
    expect(between.transitions).toEqual({ state: { 'backlog->started': 2 }, priority: { 'high->urgent': 1, 'low->medium': 1 } });
    expect(between.current_total).toBe(4);
    expect(between.issues_delta).toBe(1);
    expect(between.current_state_breakdown).toEqual(second.state_breakdown);
    expect(between.changed.items.map((i) => i.id).sort()).toEqual([a.id, b.id, c.id].sort());
  });

  it('refuses a baseline of another project with 400 and one of another workspace with 404', async () => {
    const { api, ws, p, client } = await project();
    const mine = await createBaseline(api, ws, p.id);
    const otherProject = await createProject(api, ws);
    const elsewhere = await createBaseline(api, ws, otherProject.id);
    const stranger = await createWorkspace(api);
    const theirs = await createBaseline(api, stranger, (await createProject(api, stranger)).id);
    const ask = (against: string) =>
      client.GET('/api/workspaces/{slug}/baselines/{baselineId}/deviation/', { params: { path: { slug: ws.slug, baselineId: mine.id }, query: { against } } });
    expect(expectFailure(await ask(elsewhere.id), 400).errors?.[0]?.path).toBe('/querystring/against');
    expectFailure(await ask(theirs.id), 404);
    expectFailure(await ask('nope'), 400);
  });
});

describe('GET /api/workspaces/{slug}/baselines/{baselineId}/changes/', () => {
  it('pages through one kind of change at a time, by sequence_id', async () => {
    const { api, ws, p, issue, client } = await project();
    const base = await createBaseline(api, ws, p.id);
    const added = [];
    for (let i = 0; i < 5; i++) added.push(await issue({ name: `new ${i}` }));
    const page = (query: { kind: 'added' | 'removed' | 'changed'; offset?: number; per_page?: number }) =>
      unwrap(client.GET('/api/workspaces/{slug}/baselines/{baselineId}/changes/', { params: { path: { slug: ws.slug, baselineId: base.id }, query } }));
    const one = await page({ kind: 'added', per_page: 2 });
    expect(one).toMatchObject({ total: 5, offset: 0, per_page: 2 });
    expect(one.results.map((r) => r.id)).toEqual([added[0]!.id, added[1]!.id]);
    const last = await page({ kind: 'added', offset: 4, per_page: 2 });
    expect(last.results.map((r) => r.id)).toEqual([added[4]!.id]);
    expect(last.results[0]).toMatchObject({ name: 'new 4', state_group: 'backlog', priority: 'none' });
    expect(await page({ kind: 'removed' })).toMatchObject({ total: 0, results: [] });
    expect(await page({ kind: 'changed', offset: 3 })).toMatchObject({ total: 0, results: [] });
    expectFailure(
      await client.GET('/api/workspaces/{slug}/baselines/{baselineId}/changes/', {
        params: { path: { slug: ws.slug, baselineId: base.id }, query: { kind: 'moved' as 'added' } },
      }),
      400,
    );
  });
});

describe('baseline.created', () => {
  it('is recorded with the baseline as the API shows it', async () => {
    const { api, ws, p } = await project();
    const b = await createBaseline(api, ws, p.id);
    const events = (await webhooksRepository().listEvents(ctx().database.db, ws.workspaceId)).filter((e) => e.type === 'baseline.created');
    expect(events.map((e) => e.data)).toEqual([b]);
  });
});
