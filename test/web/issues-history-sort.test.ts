import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, hasChromium, type Harness, startHarness } from './harness.js';

describe.skipIf(!hasChromium)('issue list sorting and the issue history in Chromium', () => {
  let h: Harness;
  let projectId = '';
  let pointsId = '';
  const issues: Record<string, string> = {};
  const call = async (method: 'post' | 'patch', path: string, body: unknown, token = h.token) => {
    const res = await h.ctx.api[method](`/api/workspaces/${h.slug}${path}`, body, { token });
    expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
    return res.body;
  };

  beforeAll(async () => {
    h = await startHarness('issues');
    await call('post', '/billing/trial/', { plan_slug: 'pro' });
    projectId = (await call('post', '/projects/', { name: 'Web', identifier: 'WEB' })).id;
    pointsId = (await call('post', `/projects/${projectId}/custom-properties/`, { name: 'Points', type: 'number' })).id;
    for (const [name, priority, points] of [
      ['Alpha', 'low', 3],
      ['Bravo', 'urgent', 8],
      ['Charlie', 'medium', null],
    ] as const) {
      issues[name] = (await call('post', `/projects/${projectId}/issues/`, { name, priority })).id;
      if (points !== null) {
        const res = await h.ctx.api.put(`/api/workspaces/${h.slug}/issues/${issues[name]}/custom-values/${pointsId}/`, { value: points }, { token: h.token });
        expect(res.status, res.text).toBe(200);
      }
    }
  });

  afterAll(async () => {
    await h?.close();
  });

  const names = () => h.page.locator('tbody tr td:nth-child(2)').allTextContents();

  it('sorts the issue list by core keys and by a custom property, both ways', async () => {
    const { page } = h;
    await page.goto(h.app(`/w/${h.slug}/p/${projectId}/issues`));
    await page.getByRole('link', { name: 'Alpha' }).waitFor();
    expect(await names()).toEqual(['Charlie', 'Bravo', 'Alpha']); // default: newest first
    // The first column holds the selection checkbox and the key (SD-3): the default sort, newest first.
    expect(await page.locator('thead th').first().getAttribute('aria-sort')).toBe('descending');

    await page.getByLabel('Sort by').selectOption('name');
    await page.waitForURL(/order_by=-name/);
    await page.getByLabel('Order').selectOption('asc');
    await page.waitForURL(/order_by=name/);
    await expect.poll(names).toEqual(['Alpha', 'Bravo', 'Charlie']);
    expect(await page.getByRole('columnheader', { name: 'Title' }).getAttribute('aria-sort')).toBe('ascending');

    await page.getByLabel('Sort by').selectOption('priority');
    await expect.poll(names).toEqual(['Bravo', 'Charlie', 'Alpha']); // urgent first

    await page.getByLabel('Sort by').selectOption({ label: 'Points (custom)' });
    await page.waitForURL(new RegExp(`order_by=custom\\.${pointsId}`));
    await expect.poll(names).toEqual(['Alpha', 'Bravo', 'Charlie']); // no value last
    await page.getByLabel('Order').selectOption('desc');
    await page.waitForURL(new RegExp(`order_by=-custom\\.${pointsId}`));
    await expect.poll(names).toEqual(['Bravo', 'Alpha', 'Charlie']); // no value last either way
    expect(await page.getByRole('columnheader', { name: 'Points' }).getAttribute('aria-sort')).toBe('descending');
    await h.shot('sorted-by-custom');

    // The sort lives in the URL: a reload keeps it.
    await page.reload();
    await page.getByRole('link', { name: 'Alpha' }).waitFor();
    expect(await names()).toEqual(['Bravo', 'Alpha', 'Charlie']);
    expect(await page.getByLabel('Sort by').inputValue()).toBe(`custom.${pointsId}`);
    await h.checkPhone('list', `/w/${h.slug}/p/${projectId}/issues?order_by=name`);
  });

  it('shows the history of an issue in words: states (with SLA pauses), priority, a response, the project policy', async () => {
    const { page } = h;
    const bob = await h.signUp('Bob');
    await call('post', '/members/', { email: bob.email, role: 'member' });
    const states = (await h.ctx.api.get(`/api/workspaces/${h.slug}/projects/${projectId}/states/`, { token: h.token })).body as { id: string; name: string }[];
    const inProgress = states.find((s) => s.name === 'In Progress')!.id;
    const waiting = (await call('post', `/projects/${projectId}/states/`, { name: 'Waiting on customer', group: 'started', pauses_sla: true })).id;
    const alpha = `/projects/${projectId}/issues/${issues.Alpha}/`;
    await call('patch', alpha, { state_id: waiting });
    await call('patch', alpha, { priority: 'high' });
    await call('post', `${alpha}comments/`, { body: 'On it' }, bob.token);
    await call('patch', alpha, { state_id: inProgress });
    const gold = (await call('post', '/sla-policies/', { name: 'Gold', rules: [{ priority: 'high', response_time_h: 2, resolution_time_h: 8 }] })).id;
    await call('patch', `/projects/${projectId}/`, { sla_policy_id: gold });

    await page.goto(h.app(`/w/${h.slug}/p/${projectId}/issues/${issues.Alpha}`));
    await page.getByRole('heading', { name: 'Activity' }).waitFor();
    const items = page.locator('ol.activity > li');
    await items.nth(4).waitFor();
    const texts = (await items.allTextContents()).map((t) => t.replace(/\s+/g, ' '));
    expect(texts[0]).toContain('Ada created the issue in Backlog, priority Low');
    expect(texts[1]).toContain('Ada moved it from Backlog to Waiting on customer SLA paused');
    expect(texts[2]).toContain('Ada changed the priority from Low to High');
    expect(texts[3]).toContain('Bob commented');
    expect(texts[3]).toContain('On it');
    expect(texts[4]).toContain('Ada moved it from Waiting on customer to In Progress SLA resumed');
    expect(texts.some((t) => t.includes("changed the project's SLA policy from the workspace default to Gold"))).toBe(true);
    expect(texts.join(' ')).not.toMatch(/\((backlog|started)\)/); // states by name, never the group
    expect(await page.locator('ol.activity time').first().getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    await h.shot('history');
    // The SLA block (a definition list) and the rest of the issue page: no axe violation.
    await page.locator('dl.sla').waitFor();
    await expectAccessible(page, 'the issue page');
    await h.shot('history');
    await h.checkPhone('issue-history', `/w/${h.slug}/p/${projectId}/issues/${issues.Alpha}`, (p) => p.locator('ol.activity').waitFor());
  });

  it('shows a long history (several pages of the API) with its newest entries first in view, the older ones on demand', async () => {
    const { page } = h;
    const bravo = `/projects/${projectId}/issues/${issues.Bravo}/`;
    for (let i = 0; i < 105; i++) await call('patch', bravo, { priority: i % 2 ? 'urgent' : 'low' });
    const res = await h.ctx.api.get(`/api/workspaces/${h.slug}${bravo}history/?per_page=1`, { token: h.token });
    const total = res.body.total as number;
    expect(total).toBeGreaterThan(105); // more than one page of the API (100)
    await page.goto(h.app(`/w/${h.slug}/p/${projectId}/issues/${issues.Bravo}`));
    const items = page.locator('ol.activity > li');
    const older = page.getByRole('button', { name: `Show ${total - 50} older entries` }); // the newest 50 shown
    await older.waitFor();
    expect(await items.count()).toBe(50);
    expect(await items.first().textContent()).not.toContain('created the issue');
    expect(await items.last().textContent()).toContain('changed the priority from Urgent to Low');
    await older.click();
    await expect.poll(() => items.count()).toBe(total);
    expect(await items.first().textContent()).toContain('created the issue');
    expect(await items.last().textContent()).toContain('changed the priority from Urgent to Low');
    expect(await older.count()).toBe(0);
  });
});
