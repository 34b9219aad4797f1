/**
 * The documents' monthly partitions (migration 1100) and the `search.partitions` duty: a document of a month without a
 * partition waits in the default one and is found; the duty makes the months ahead and moves it; matches spread over
 * the windows of creation time come back newest first, exact to the cap.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { nextWindowStart } from '../../src/modules/search/search.repository.js';

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
  it('finds the newest 1,000 of matches whose months are dense, sparse and dense again (windows sized by density)', async () => {
    const { api, clock, database } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const now = new Date('2026-01-15T09:00:00Z');
    const state = (await sql<{ id: string }>`SELECT id FROM states WHERE project_id = ${project.id}::uuid AND "group" = 'backlog'`.execute(database.db))
      .rows[0]!.id;
    // 300 issues in the last 45 days (the first window), 100 over the next 150 days, 200 over the 450 days after, and
    // 700 more two years back: the windows after the first are sized by the matches found so far, and the last one is
    // every older month. Created (and updated) every `step` days after `from` days before now.
    const groups = [
      { count: 300, from: 0, step: 0.145 },
      { count: 100, from: 46, step: 1.5 },
      { count: 200, from: 205, step: 2.2 },
      { count: 700, from: 700, step: 0.28 },
    ];
    let sequence = 0;
    for (const g of groups) {
      await sql`
        INSERT INTO issues (id, workspace_id, project_id, sequence_id, name, state_id, state_group, priority, created_by, created_at, updated_at)
        SELECT gen_random_uuid(), ${ws.workspaceId}::uuid, ${project.id}::uuid, ${sequence} + n, 'Fatura ' || (${sequence} + n), ${state}::uuid, 'backlog', 'none',
               ${ws.admin.user.id}::uuid, t, t
        FROM generate_series(1, ${g.count}::int) n, LATERAL (SELECT ${now}::timestamptz - make_interval(secs => (${g.from}::float8 + n * ${g.step}::float8) * 86400) AS t) at`.execute(
        database.db,
      );
      sequence += g.count;
    }
    clock.set(now);
    const newest = (
      await sql<{ id: string }>`SELECT id FROM issues WHERE workspace_id = ${ws.workspaceId}::uuid ORDER BY created_at DESC`.execute(database.db)
    ).rows.map((r) => r.id);
    expect(newest).toHaveLength(1300);
    // One score for all: ranked by `updated_at`, here the creation time; the page before the cap ends at the 1,000th newest.
    for (const offset of [0, 380, 590, 980]) {
      const res = await api.get(`/api/workspaces/${ws.slug}/search/?q=fatura&per_page=20&offset=${offset}`, { token: ws.admin.token });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ total: 1000, total_capped: true });
      expect(res.body.results.map((r: { issue: { id: string } }) => r.issue.id)).toEqual(newest.slice(offset, offset + 20));
    }
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

describe('the windows after the first', () => {
  const DAY = 86_400_000;
  const now = Date.UTC(2026, 0, 15);
  it('hold the missing matches at the density found so far, with half again to spare', () => {
    // 300 found in the last 45 days: 701 missing take 105 days at that density, 157.7 with the room.
    expect((now - 45 * DAY - nextWindowStart({ now, upper: now - 45 * DAY, found: 300, missing: 701, statements: 1 })!) / DAY).toBeCloseTo(157.725, 2);
  });
  it('are every older month when nothing was found, after the third statement, or before 1970', () => {
    expect(nextWindowStart({ now, upper: now - 45 * DAY, found: 0, missing: 1001, statements: 1 })).toBeNull();
    expect(nextWindowStart({ now, upper: now - 400 * DAY, found: 600, missing: 401, statements: 3 })).toBeNull();
    expect(nextWindowStart({ now, upper: now - 45 * DAY, found: 1, missing: 1000, statements: 1 })).toBeNull();
  });
});
