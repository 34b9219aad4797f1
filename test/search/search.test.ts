/** Workspace search (contract 23.1), `q` on the lists (23.2) and similar issues (23.4), through HTTP. */
import { describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace, expectProblem, projectStates, startProTrial } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

async function setup() {
  const { api } = ctx();
  const ws = await createWorkspace(api);
  const project = await createProject(api, ws);
  const search = (q: string, params: Record<string, string | string[]> = {}, token = ws.admin.token) => {
    const qs = new URLSearchParams({ q });
    for (const [k, v] of Object.entries(params)) for (const value of [v].flat()) qs.append(k, value);
    return api.get(`/api/workspaces/${ws.slug}/search/?${qs}`, { token });
  };
  const names = (res: { body: { results: { issue: { name: string } }[] } }) => res.body.results.map((r) => r.issue.name);
  return { api, ws, project, search, names };
}

describe('search', () => {
  it('finds issues by name, description and comment, ranks the name first, and answers key, state, snippet and highlights', async () => {
    const { api, ws, project, search } = await setup();
    const inComment = await createIssue(api, ws, project.id, { name: 'Checkout page is slow' });
    const comment = await api.post(
      `/api/workspaces/${ws.slug}/projects/${project.id}/issues/${inComment.id}/comments/`,
      { body: 'The deployment of Friday made it worse.' },
      { token: ws.admin.token },
    );
    expect(comment.status, comment.text).toBe(201);
    const inDescription = await createIssue(api, ws, project.id, { name: 'Release notes', description: 'Write them after the deployment.' });
    const inName = await createIssue(api, ws, project.id, { name: 'Deployment pipeline fails' });
    await createIssue(api, ws, project.id, { name: 'Unrelated' });

    const res = await search('deployment');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ total: 3, total_capped: false, offset: 0, per_page: 20, fuzzy: false });
    expect(res.body.results.map((r: { issue: { id: string } }) => r.issue.id)).toEqual([inName.id, inDescription.id, inComment.id]);
    const [first, second, third] = res.body.results;
    expect(first.issue).toMatchObject({ key: `${project.identifier}-${inName.sequence_id}`, state: { name: expect.any(String), group: 'backlog' } });
    expect(first.matched_in).toEqual(['name']);
    expect(first.snippet).toEqual({ field: 'name', text: 'Deployment pipeline fails', highlights: [[0, 10]] });
    expect(second.matched_in).toEqual(['description']);
    expect(second.snippet.field).toBe('description');
    expect(third.matched_in).toEqual(['comment']);
    expect(third.snippet).toMatchObject({ field: 'comment', comment_id: comment.body.id });
    const { text, highlights } = third.snippet;
    expect(highlights.map(([a, b]: [number, number]) => text.slice(a, b))).toEqual(['deployment']);
    expect(first.score).toBeGreaterThan(second.score);
  });

  it('folds case, accents and Turkish letters, stems English, prefixes the last word and keeps exact words that stemming drops', async () => {
    const { api, ws, project, search, names } = await setup();
    await createIssue(api, ws, project.id, { name: 'Ödeme sayfası açılmıyor' });
    await createIssue(api, ws, project.id, { name: 'İSTANBUL ofisi' });
    await createIssue(api, ws, project.id, { name: 'IŞIK sensörü' });
    await createIssue(api, ws, project.id, { name: 'Running the deployments' });
    await createIssue(api, ws, project.id, { name: 'The Who concert' });

    expect(names(await search('odeme'))).toEqual(['Ödeme sayfası açılmıyor']);
    expect(names(await search('ÖDEME'))).toEqual(['Ödeme sayfası açılmıyor']);
    expect(names(await search('istanbul'))).toEqual(['İSTANBUL ofisi']);
    expect(names(await search('ışık'))).toEqual(['IŞIK sensörü']);
    expect(names(await search('isik'))).toEqual(['IŞIK sensörü']);
    expect(names(await search('run deployment'))).toEqual(['Running the deployments']);
    expect(names(await search('depl'))).toEqual(['Running the deployments']);
    // Stop words of English are kept as written: "the who" finds the band, and "the" alone finds both.
    expect(names(await search('"the who"'))).toEqual(['The Who concert']);
    expect((await search('the')).body.total).toBe(2);
    const odeme = (await search('odeme')).body.results[0].snippet;
    expect(odeme.highlights.map(([a, b]: [number, number]) => odeme.text.slice(a, b))).toEqual(['Ödeme']);
  });

  it('ranks by the field that holds the query, then the most recently updated; completes the last word from names and descriptions', async () => {
    const { api, ws, project, search, names } = await setup();
    const older = await createIssue(api, ws, project.id, { name: 'Invoice export broken' });
    ctx().clock.advance(1000);
    await createIssue(api, ws, project.id, { name: 'Totals', description: 'The invoice totals are off.' });
    ctx().clock.advance(1000);
    const newer = await createIssue(api, ws, project.id, { name: 'Invoice reminder' });
    // Both names hold the word: the one updated last comes first; a PATCH of the older one turns the order round.
    expect(names(await search('invoice'))).toEqual(['Invoice reminder', 'Invoice export broken', 'Totals']);
    ctx().clock.advance(60_000);
    const patch = await api.patch(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/${older.id}/`, { priority: 'high' }, { token: ws.admin.token });
    expect(patch.status, patch.text).toBe(200);
    const res = await search('invoice');
    expect(names(res)).toEqual(['Invoice export broken', 'Invoice reminder', 'Totals']);
    expect(res.body.results.map((r: { score: number }) => r.score)).toEqual([1, 1, 0.4]);

    // Type-ahead: "remin" is completed to the names' and descriptions' words ("reminder", "remind..."), "tot" too.
    expect(names(await search('remin'))).toEqual(['Invoice reminder']);
    expect(names(await search('invoice tot'))).toEqual(['Totals']);
    // A word only a comment holds is found when typed whole, and its stem finds its other forms.
    await api.post(
      `/api/workspaces/${ws.slug}/projects/${project.id}/issues/${newer.id}/comments/`,
      { body: 'Escalated by the customer' },
      { token: ws.admin.token },
    );
    expect(names(await search('escalated'))).toEqual(['Invoice reminder']);
    expect(names(await search('escalating'))).toEqual(['Invoice reminder']);
  });

  it('takes websearch syntax: phrases, or, exclusions', async () => {
    const { api, ws, project, search, names } = await setup();
    await createIssue(api, ws, project.id, { name: 'login page broken' });
    await createIssue(api, ws, project.id, { name: 'broken login on mobile' });
    await createIssue(api, ws, project.id, { name: 'signup page' });
    expect(names(await search('"login page"'))).toEqual(['login page broken']);
    expect(names(await search('login -mobile'))).toEqual(['login page broken']);
    expect(new Set(names(await search('signup or mobile')))).toEqual(new Set(['signup page', 'broken login on mobile']));
    expect((await search('page broken')).body.total).toBe(1);
  });

  it('puts the issue named by key first (any case), and #n with project_id', async () => {
    const { api, ws, project, search } = await setup();
    const a = await createIssue(api, ws, project.id, { name: 'First' });
    await createIssue(api, ws, project.id, { name: 'Second' });
    const res = await search(`${project.identifier.toLowerCase()}-${a.sequence_id}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.results[0].issue.id).toBe(a.id);
    expect(res.body.results[0].matched_in).toEqual(['key']);
    expect(res.body.results[0].snippet.field).toBe('key');
    const byNumber = await search(`#${a.sequence_id}`, { project_id: project.id });
    expect(byNumber.body.results.map((r: { issue: { id: string } }) => r.issue.id)).toEqual([a.id]);
  });

  it('falls back to similar names for a typo (fuzzy)', async () => {
    const { api, ws, project, search, names } = await setup();
    await createIssue(api, ws, project.id, { name: 'Fix the deployment pipeline' });
    await createIssue(api, ws, project.id, { name: 'Another thing' });
    const res = await search('deplyoment');
    expect(res.status, res.text).toBe(200);
    expect(res.body.fuzzy).toBe(true);
    expect(names(res)).toEqual(['Fix the deployment pipeline']);
    const { text, highlights } = res.body.results[0].snippet;
    expect(highlights.map(([a, b]: [number, number]) => text.slice(a, b))).toEqual(['deployment']);
  });

  it('sees a write in the next search: a new, renamed or deleted issue, a new comment, a text custom value', async () => {
    const { api, ws, project, search, names } = await setup();
    const issue = await createIssue(api, ws, project.id, { name: 'Alpha' });
    const base = `/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/`;
    expect(names(await search('alpha'))).toEqual(['Alpha']);
    expect((await api.patch(base, { name: 'Beta' }, { token: ws.admin.token })).status).toBe(200);
    expect((await search('alpha')).body.total).toBe(0);
    expect(names(await search('beta'))).toEqual(['Beta']);
    expect((await api.post(`${base}comments/`, { body: 'gamma ray' }, { token: ws.admin.token })).status).toBe(201);
    expect((await search('gamma')).body.results[0].matched_in).toEqual(['comment']);

    await startProTrial(api, ws);
    const prop = await api.post(
      `/api/workspaces/${ws.slug}/projects/${project.id}/custom-properties/`,
      { name: 'Customer', type: 'text' },
      { token: ws.admin.token },
    );
    expect(prop.status, prop.text).toBe(201);
    const set = await api.put(
      `/api/workspaces/${ws.slug}/issues/${issue.id}/custom-values/${prop.body.id}/`,
      { value: 'Zeppelin Logistics' },
      { token: ws.admin.token },
    );
    expect(set.status, set.text).toBe(200);
    const hit = await search('zeppelin');
    expect(hit.body.results[0]).toMatchObject({ matched_in: ['custom_value'], snippet: { field: 'custom_value' } });

    expect((await api.delete(base, { token: ws.admin.token })).status).toBe(204);
    expect((await search('beta')).body.total).toBe(0);
  });

  it('filters by project, state group, priority, assignee and label; pages with exact totals', async () => {
    const { api, ws, project, search } = await setup();
    const other = await createProject(api, ws);
    const { byGroup } = await projectStates(api, ws, project.id);
    const member = await ws.addUser('member', 'Member');
    await createIssue(api, ws, project.id, { name: 'widget one', priority: 'urgent', assignee_ids: [member.user.id], state_id: byGroup('started') });
    await createIssue(api, ws, project.id, { name: 'widget two', priority: 'low' });
    await createIssue(api, ws, other.id, { name: 'widget three' });
    expect((await search('widget')).body.total).toBe(3);
    expect((await search('widget', { project_id: project.id })).body.total).toBe(2);
    expect((await search('widget', { priority: 'urgent' })).body.total).toBe(1);
    expect((await search('widget', { state_group: ['started', 'completed'] })).body.total).toBe(1);
    expect((await search('widget', { assignee_id: 'me' }, member.token)).body.total).toBe(1);
    expect((await search('widget', { assignee_id: 'none' })).body.total).toBe(2);
    const page = await search('widget', { per_page: '2', offset: '2' });
    expect(page.body).toMatchObject({ total: 3, offset: 2, per_page: 2 });
    expect(page.body.results).toHaveLength(1);
    expectProblem(await search('widget', { priority: 'nope' }), 400, 'validation_failed');
    expectProblem(await search('widget', { assignee_id: 'x' }), 400, 'validation_failed');
  });

  it('answers bad queries with a clear 400, never a 500', async () => {
    const { search } = await setup();
    for (const q of ['', '   ', 'x'.repeat(201), 'or or', '-only', '!!! ???', 'a\u0000b', '\\', '(((', Array(60).fill('w').join(' ')]) {
      const res = await search(q);
      expectProblem(res, 400, 'validation_failed');
    }
    for (const q of ['"unbalanced', 'a or', 'or a', "it's", 'a & b | c', "'quote'", 'x:*', 'C++ (beta)']) {
      const res = await search(q);
      expect(res.status, `${q}: ${res.text}`).toBe(200);
    }
  });

  it('is for members only, and never shows another workspace', async () => {
    const { api, ws, project, search } = await setup();
    await createIssue(api, ws, project.id, { name: 'secret plan' });
    const guest = await ws.addUser('guest', 'Guest');
    expect((await search('secret', {}, guest.token)).body.total).toBe(1);
    const stranger = await createWorkspace(api);
    expectProblem(await search('secret', {}, stranger.admin.token), 404);
    const theirs = await api.get(`/api/workspaces/${stranger.slug}/search/?q=secret`, { token: stranger.admin.token });
    expect(theirs.body.total).toBe(0);
    expectProblem(await search('secret', { project_id: (await createProject(api, stranger)).id }), 404);
  });

  it('changes the search language: a background duty rebuilds the documents, search works throughout', async () => {
    const { api, ws, project, search, names } = await setup();
    await createIssue(api, ws, project.id, { name: 'Ödemeler yapıldı' });
    const patch = await api.patch(`/api/workspaces/${ws.slug}/`, { search_language: 'turkish' }, { token: ws.admin.token });
    expect(patch.status, patch.text).toBe(200);
    expect(patch.body.search_language).toBe('turkish');
    // Before the duty ran: the words as written still match.
    expect(names(await search('ödemeler'))).toEqual(['Ödemeler yapıldı']);
    await ctx()
      .app.jobs.find((j) => j.name === 'search.reindex')!
      .run();
    const stemmed = await search('ödeme');
    expect(names(stemmed)).toEqual(['Ödemeler yapıldı']);
    // The snippet highlights the whole inflected word (found by its stem, and by the typed word as its prefix).
    expect(stemmed.body.results[0].snippet).toMatchObject({ field: 'name', text: 'Ödemeler yapıldı', highlights: [[0, 8]] });
    expectProblem(await api.patch(`/api/workspaces/${ws.slug}/`, { search_language: 'klingon' }, { token: ws.admin.token }), 400, 'validation_failed');
  });
});

describe('q on the issue lists', () => {
  it('filters a project list by words and orders by relevance unless order_by is given', async () => {
    const { api, ws, project } = await setup();
    await createIssue(api, ws, project.id, { name: 'Other', description: 'about the invoice' });
    const named = await createIssue(api, ws, project.id, { name: 'Invoice totals wrong' });
    await createIssue(api, ws, project.id, { name: 'Nothing here' });
    const list = await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/?q=invoice`, { token: ws.admin.token });
    expect(list.status, list.text).toBe(200);
    expect(list.body.total).toBe(2);
    expect(list.body.results[0].id).toBe(named.id);
    const bySequence = await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/?q=invoice&order_by=sequence_id`, { token: ws.admin.token });
    expect(bySequence.body.results.map((i: { name: string }) => i.name)).toEqual(['Other', 'Invoice totals wrong']);
    const workspace = await api.get(`/api/workspaces/${ws.slug}/issues/?q=invoice`, { token: ws.admin.token });
    expect(workspace.body.total).toBe(2);
    expectProblem(await api.get(`/api/workspaces/${ws.slug}/issues/?q=${'x'.repeat(201)}`, { token: ws.admin.token }), 400, 'validation_failed');
  });
});

describe('similar issues', () => {
  it('answers up to 5 open or recently completed issues with a similar name, most similar first, similarity ≥ 0.3', async () => {
    const { api, ws, project } = await setup();
    await createIssue(api, ws, project.id, { name: 'Login button does not work on Safari' });
    await createIssue(api, ws, project.id, { name: 'Login page slow' });
    await createIssue(api, ws, project.id, { name: 'Completely different topic' });
    const url = (name: string) => `/api/workspaces/${ws.slug}/projects/${project.id}/issues/similar/?name=${encodeURIComponent(name)}`;
    const res = await api.get(url('login button broken on safari'), { token: ws.admin.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body.length).toBeGreaterThanOrEqual(1);
    expect(res.body[0].issue.name).toBe('Login button does not work on Safari');
    for (const r of res.body) {
      expect(r.similarity).toBeGreaterThanOrEqual(0.3);
      expect(r.similarity).toBeLessThanOrEqual(1);
      expect(Math.round(r.similarity * 100) / 100).toBe(r.similarity);
    }
    expect(res.body.map((r: { issue: { name: string } }) => r.issue.name)).not.toContain('Completely different topic');
    expectProblem(await api.get(url('ab'), { token: ws.admin.token }), 400, 'validation_failed');
    const stranger = await createWorkspace(api);
    expectProblem(await api.get(url('login'), { token: stranger.admin.token }), 404);
  });

  it('ranks names alike by the latest update, and finds an issue by its description when one is typed', async () => {
    const { api, ws, project } = await setup();
    const older = await createIssue(api, ws, project.id, { name: 'Export to CSV fails' });
    await createIssue(api, ws, project.id, { name: 'Export to CSV fails' });
    ctx().clock.advance(60_000);
    const patched = await api.patch(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/${older.id}/`, { priority: 'high' }, { token: ws.admin.token });
    expect(patched.status, patched.text).toBe(200);
    const base = `/api/workspaces/${ws.slug}/projects/${project.id}/issues/similar/`;
    const alike = await api.get(`${base}?name=${encodeURIComponent('export to csv fails')}`, { token: ws.admin.token });
    expect(alike.body.map((r: { issue: { id: string }; similarity: number }) => [r.issue.id, r.similarity])[0]).toEqual([older.id, 1]);
    expect(alike.body).toHaveLength(2);

    const described = await createIssue(api, ws, project.id, {
      name: 'Totals are off',
      description: 'The invoice total ignores the discount code when the cart holds gift cards',
    });
    const typed = 'gift card discount ignored';
    const byName = await api.get(`${base}?name=${encodeURIComponent(typed)}`, { token: ws.admin.token });
    const byBoth = await api.get(
      `${base}?name=${encodeURIComponent(typed)}&description=${encodeURIComponent('the invoice total ignores the discount code when the cart holds gift cards')}`,
      { token: ws.admin.token },
    );
    expect(byBoth.status, byBoth.text).toBe(200);
    const found = byBoth.body.find((r: { issue: { id: string } }) => r.issue.id === described.id);
    expect(found?.similarity).toBe(0.8);
    expect(byName.body.map((r: { issue: { id: string } }) => r.issue.id)).not.toContain(described.id);
  });

  it('scores names in other scripts alike on both databases (letters of any script make words)', async () => {
    const { api, ws, project } = await setup();
    const issue = await createIssue(api, ws, project.id, { name: 'Ошибка оплаты картой' });
    const res = await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/similar/?name=${encodeURIComponent('ошибка оплаты')}`, {
      token: ws.admin.token,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.map((r: { issue: { id: string } }) => r.issue.id)).toEqual([issue.id]);
    expect(res.body[0].similarity).toBeGreaterThanOrEqual(0.6);
  });
});
