/**
 * The documents' monthly partitions (migration 1100) and the `search.partitions` duty: a document of a month without a
 * partition waits in the default one and is found; the duty makes the months ahead and moves it; matches spread over
 * the windows of creation time come back newest first, exact to the cap.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

const partitionOf = async (issueId: string) =>
  (await sql<{ part: string }>`SELECT tableoid::regclass::text AS part FROM issue_search WHERE issue_id = ${issueId}::uuid`.execute(ctx().database.db)).rows[0]
    ?.part;

describe('the documents by month', () => {
  it('keeps a month without a partition in the default one until the duty makes it, searchable throughout', async () => {
    const { api, clock, app } = ctx();
    clock.set('2031-05-10T12:00:00Z');
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const issue = await createIssue(api, ws, project.id, { name: 'Kargo etiketi basılmıyor' });
    expect(await partitionOf(issue.id)).toBe('issue_search_default');
    const search = () => api.get(`/api/workspaces/${ws.slug}/search/?q=etiket`, { token: ws.admin.token });
    expect((await search()).body.results.map((r: { issue: { id: string } }) => r.issue.id)).toEqual([issue.id]);

    const duty = app.jobs.find((j) => j.name === 'search.partitions')!;
    expect(await duty.run()).toBe(4); // May to August 2031
    expect(await partitionOf(issue.id)).toBe('issue_search_203105');
    expect((await search()).body.results.map((r: { issue: { id: string } }) => r.issue.id)).toEqual([issue.id]);
    expect(await duty.run()).toBe(0);

    // The moved document is still the issue's: a rename and a comment reach it.
    const patch = await api.patch(
      `/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/`,
      { name: 'Kargo barkodu basılmıyor' },
      { token: ws.admin.token },
    );
    expect(patch.status, patch.text).toBe(200);
    const comment = await api.post(
      `/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/comments/`,
      { body: 'Yazıcı sürücüsü eski' },
      { token: ws.admin.token },
    );
    expect(comment.status, comment.text).toBe(201);
    for (const q of ['barkod', 'sürücüsü']) {
      const res = await api.get(`/api/workspaces/${ws.slug}/search/?q=${encodeURIComponent(q)}`, { token: ws.admin.token });
      expect(res.body.results.map((r: { issue: { id: string } }) => r.issue.id)).toEqual([issue.id]);
    }
  });

  it('finds matches across the windows of creation time newest first, counting them exactly', async () => {
    const { api, clock } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    // Issues two years, a year, four months, two months and a day before "now": every window holds one.
    const now = new Date('2026-01-15T09:00:00Z');
    const ids: string[] = [];
    for (const days of [730, 365, 120, 60, 1]) {
      clock.set(new Date(now.getTime() - days * 86_400_000));
      ids.push((await createIssue(api, ws, project.id, { name: `Fatura kesilemiyor ${days}` })).id);
    }
    clock.set(now);
    const res = await api.get(`/api/workspaces/${ws.slug}/search/?q=fatura`, { token: ws.admin.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.total).toBe(5);
    // One score for all: the most recently updated first, which is here the newest.
    expect(res.body.results.map((r: { issue: { id: string } }) => r.issue.id)).toEqual([...ids].reverse());
  });
  it('takes similar issues from every window of creation time', async () => {
    const { api, clock } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const now = new Date('2026-01-15T09:00:00Z');
    const names = new Map<string, number>();
    for (const days of [730, 365, 120, 60, 1]) {
      clock.set(new Date(now.getTime() - days * 86_400_000));
      const issue = await createIssue(api, ws, project.id, { name: `Yazıcı kağıt sıkıştırıyor ${days}` });
      names.set(issue.id, days);
    }
    clock.set(now);
    const res = await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/similar/?name=${encodeURIComponent('yazıcı kağıt sıkıştırıyor')}`, {
      token: ws.admin.token,
    });
    expect(res.status, res.text).toBe(200);
    // one of every window: the closest name first (the shortest number), then the most recently updated
    expect(res.body.map((r: { issue: { id: string } }) => names.get(r.issue.id))).toEqual([1, 60, 120, 365, 730]);
  });
});
