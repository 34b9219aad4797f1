import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { expectAccessible, hasChromium, type Harness, startHarness, tabTo } from './harness.js';

describe.skipIf(!hasChromium)('the filter bar, saved views and "My issues" in Chromium', () => {
  let h: Harness;
  let sd = '';
  let ops = '';
  let bob: { token: string; userId: string; email: string };
  let guest: { token: string; userId: string; email: string };
  const call = async (method: 'post' | 'get', path: string, body?: unknown, token = h.token) => {
    const url = `/api/workspaces/${h.slug}${path}`;
    const res = method === 'get' ? await h.ctx.api.get(url, { token }) : await h.ctx.api.post(url, body, { token });
    expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
    return res.body;
  };
  const listPath = () => `/w/${h.slug}/p/${sd}/issues`;
  const names = (p: Page = h.page) => p.locator('main tbody tr td:nth-child(2)').allTextContents();
  const picked = (p: Page, label: string) =>
    p.getByLabel(label, { exact: true }).evaluate((el) => [...(el as HTMLSelectElement).selectedOptions].map((o) => o.textContent));
  const asUser = async (token: string) => {
    const context = await h.browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript((t) => localStorage.setItem('wis.console.token', t), token);
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    return { context, page };
  };

  beforeAll(async () => {
    h = await startHarness('views');
    await h.page.setViewportSize({ width: 1280, height: 800 });
    const me = (await h.ctx.api.get('/api/users/me/', { token: h.token })).body as { id: string };
    bob = await h.signUp('Bob');
    guest = await h.signUp('Gus');
    await call('post', '/members/', { email: bob.email, role: 'member' });
    await call('post', '/members/', { email: guest.email, role: 'guest' });
    sd = (await call('post', '/projects/', { name: 'Service desk', identifier: 'SD' })).id;
    ops = (await call('post', '/projects/', { name: 'Operations', identifier: 'OPS' })).id;
    const stateIds = async (project: string) =>
      Object.fromEntries(((await call('get', `/projects/${project}/states/`)) as { id: string; name: string }[]).map((s) => [s.name, s.id]));
    const st = await stateIds(sd);
    const bug = (await call('post', `/projects/${sd}/labels/`, { name: 'Bug', color: '#d73a4a' })).id;
    const seed: [string, string[], string, string[]][] = [
      ['Printer jam', [me.id], 'Todo', [bug]], // SD-1
      ['VPN drops', [me.id], 'In Progress', []], // SD-2
      ['Email bounces', [bob.userId], 'Todo', [bug]], // SD-3
      ['Old ticket', [me.id], 'Done', []], // SD-4
      ['Nobody owns this', [], 'Todo', []], // SD-5
      ['Backlog idea', [me.id], 'Backlog', []], // SD-6
    ];
    for (const [name, assignee_ids, state, label_ids] of seed)
      await call('post', `/projects/${sd}/issues/`, { name, assignee_ids, state_id: st[state], label_ids });
    const opsStates = await stateIds(ops);
    await call('post', `/projects/${ops}/issues/`, { name: 'Disk full', assignee_ids: [me.id], state_id: opsStates['In Progress'] }); // OPS-1
    await call('post', '/views/', { name: 'Ada private', project_id: sd, filters: { priority: ['urgent'] } });
  });

  afterAll(async () => {
    await h?.close();
  });

  it('filters the project list by assignee Me and two states, keeps them in the URL and across a reload, and clears them', async () => {
    const { page } = h;
    await page.goto(h.app(listPath()));
    await page.getByRole('link', { name: 'Printer jam' }).waitFor();
    expect(await names()).toHaveLength(6);

    await page.getByLabel('Assignee', { exact: true }).selectOption({ label: 'Me' });
    await page.waitForURL(/assignee_id=me/);
    await expect.poll(() => names()).toEqual(['Backlog idea', 'Old ticket', 'VPN drops', 'Printer jam']);
    await page.getByLabel('State', { exact: true }).selectOption([{ label: 'Todo' }, { label: 'In Progress' }]);
    await expect.poll(() => names()).toEqual(['VPN drops', 'Printer jam']);
    const url = new URL(page.url());
    expect(url.searchParams.getAll('assignee_id')).toEqual(['me']);
    expect(url.searchParams.getAll('state_id')).toHaveLength(2);
    await h.shot('list-filtered');
    await expectAccessible(page, 'filtered list');

    // A shareable link: a reload (or opening the same URL) restores the filters and the list.
    await page.reload();
    await page.getByRole('link', { name: 'Printer jam' }).waitFor();
    expect(await names()).toEqual(['VPN drops', 'Printer jam']);
    expect(await picked(page, 'Assignee')).toEqual(['Me']);
    expect((await picked(page, 'State')).sort()).toEqual(['In Progress', 'Todo']);

    // Another filter narrows further; "All" takes one filter off; "Clear filters" every one.
    await page.getByLabel('Label', { exact: true }).selectOption({ label: 'Bug' });
    await expect.poll(() => names()).toEqual(['Printer jam']);
    await page.getByLabel('Label', { exact: true }).selectOption({ label: 'All' });
    await expect.poll(() => names()).toEqual(['VPN drops', 'Printer jam']);
    expect(page.url()).not.toContain('label_id');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(async () => (await names()).length).toBe(6);
    expect(new URL(page.url()).search).toBe('');
    expect(await page.getByRole('button', { name: 'Clear filters' }).isDisabled()).toBe(true);

    // "No assignee" is a value like any other.
    await page.getByLabel('Assignee', { exact: true }).selectOption({ label: 'No assignee' });
    await page.waitForURL(/assignee_id=none/);
    await expect.poll(() => names()).toEqual(['Nobody owns this']);
  });

  it('saves the filters as a shared view from the keyboard and opens it from the sidebar', async () => {
    const { page } = h;
    await page.goto(h.app(`${listPath()}?assignee_id=me`));
    await page.getByRole('link', { name: 'Printer jam' }).waitFor();
    await page.getByLabel('State', { exact: true }).selectOption([{ label: 'Todo' }, { label: 'In Progress' }]);
    await expect.poll(() => names()).toEqual(['VPN drops', 'Printer jam']);

    await tabTo(page, 'Save as view');
    await page.keyboard.press('Enter');
    await page.getByLabel('View name').waitFor();
    // The form moves the focus to its name field once it has rendered (an effect): wait for it, as a person would.
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('name');
    await page.keyboard.type('SD: mine, open');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space'); // the "Shared with the workspace" checkbox
    expect(await page.getByLabel('Shared with the workspace').isChecked()).toBe(true);
    await h.shot('save-view');
    const created = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/views/'));
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Save view');
    await page.keyboard.press('Enter');
    const res = await created;
    expect(res.status()).toBe(201);
    const view = (await res.json()) as { id: string; filters: Record<string, string[]>; shared: boolean; project_id: string };
    expect(view.shared).toBe(true);
    expect(view.project_id).toBe(sd);
    expect(view.filters.assignee_id).toEqual(['me']);
    expect(view.filters.state_id).toHaveLength(2);
    await page.getByRole('status').getByText('View saved').waitFor();

    const nav = page.getByRole('navigation', { name: 'Views' });
    await nav.getByRole('link', { name: 'SD: mine, open' }).click();
    await page.getByRole('heading', { name: 'SD: mine, open', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Printer jam' }).waitFor();
    expect(await names()).toEqual(['VPN drops', 'Printer jam']);
    const facts = (await page.locator('dl').textContent())!;
    expect(facts).toContain('Project: Service desk');
    expect(facts).toContain('Assignee: me');
    expect(facts).toMatch(/State: (Todo or In Progress|In Progress or Todo)/);
    expect(facts).toContain('everyone in the workspace');
    expect(await page.getByRole('link', { name: 'SD-2' }).getAttribute('href')).toContain(`/p/${sd}/issues/`);
    await h.shot('view-page');
    await expectAccessible(page, 'view page');

    // The owner renames it; the sidebar follows.
    await page.getByLabel('View name').fill('SD: my open issues');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('heading', { name: 'SD: my open issues', level: 1 }).waitFor();
    await nav.getByRole('link', { name: 'SD: my open issues' }).waitFor();
    await h.checkPhone('view-page', new URL(page.url()).pathname.replace(/^\/app/, ''), (p) => p.getByRole('link', { name: 'Printer jam' }).waitFor());
  });

  it('shows "My issues" across projects: only my open issues, each with its key', async () => {
    const { page } = h;
    await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'My issues' }).click();
    await page.getByRole('heading', { name: 'My issues' }).waitFor();
    await page.getByRole('link', { name: 'Disk full' }).waitFor();
    expect(await names()).toEqual(['Disk full', 'VPN drops', 'Printer jam']);
    expect(await page.locator('main tbody tr td:nth-child(1)').allTextContents()).toEqual(['OPS-1', 'SD-2', 'SD-1']);
    // Each row names its project and shows the state by name, the assignee's initials.
    expect(await page.locator('main tbody tr td:nth-child(3)').allTextContents()).toEqual(['Operations', 'Service desk', 'Service desk']);
    expect(await page.locator('main tbody tr td:nth-child(4)').allTextContents()).toEqual(['In Progress', 'In Progress', 'Todo']);
    expect(await page.locator('main tbody tr .avatar').allTextContents()).toEqual(['A', 'A', 'A']);
    await h.shot('my-issues');
    await expectAccessible(page, 'my issues');
    await page.getByRole('link', { name: 'OPS-1' }).click();
    await page.getByRole('heading', { name: /Disk full/ }).waitFor();
    expect(page.url()).toContain(`/p/${ops}/issues/`);
    await h.checkPhone('my-issues', `/w/${h.slug}/my-issues`, async (p) => {
      await p.getByRole('link', { name: 'OPS-1' }).waitFor();
      await expectAccessible(p, 'my issues on a phone');
    });
    await h.checkPhone('list-filters', `${listPath()}?assignee_id=me&priority=none`, (p) => p.getByRole('link', { name: 'Printer jam' }).waitFor());
  });

  it('a member sees the shared view (run as them) without edit controls, and not the private one; a guest cannot save one', async () => {
    const { context, page } = await asUser(bob.token);
    try {
      await page.goto(h.app(`/w/${h.slug}/my-issues`));
      await page.getByRole('link', { name: 'SD-3' }).waitFor();
      const nav = page.getByRole('navigation', { name: 'Views' });
      expect(await nav.getByRole('link').allTextContents()).toEqual(['SD: my open issues']);
      await nav.getByRole('link', { name: 'SD: my open issues' }).click();
      await page.getByRole('heading', { name: 'SD: my open issues', level: 1 }).waitFor();
      await page.getByRole('link', { name: 'Email bounces' }).waitFor(); // `me` is whoever runs the view
      expect(await names(page)).toEqual(['Email bounces']);
      expect(await page.locator('dl div', { hasText: 'Owner' }).locator('dd').textContent()).toBe('Ada');
      for (const name of ['Rename', 'Make private', 'Delete view']) expect(await page.getByRole('button', { name }).count(), name).toBe(0);
      expect(await page.getByLabel('View name').count()).toBe(0);
      await h.shot('view-member', page);
    } finally {
      await context.close();
    }

    const g = await asUser(guest.token);
    try {
      await g.page.goto(h.app(`${listPath()}?priority=none`));
      await g.page.getByRole('link', { name: 'Printer jam' }).waitFor();
      await g.page.getByRole('button', { name: 'Save as view' }).click();
      await g.page.getByLabel('View name').fill('Guest view');
      await g.page.getByRole('button', { name: 'Save view' }).click();
      expect(await g.page.getByRole('alert').textContent()).toContain('403');
    } finally {
      await g.context.close();
    }
  });

  it('the owner makes the view private, then deletes it after a confirm', async () => {
    const { page } = h;
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'SD: my open issues' }).click();
    await page.getByRole('button', { name: 'Make private' }).click();
    await page.getByRole('button', { name: 'Share with the workspace' }).waitFor();
    expect(await page.locator('dl').textContent()).toContain('only you');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete view' }).click();
    await page.getByRole('heading', { name: 'My issues' }).waitFor();
    await expect.poll(() => page.getByRole('navigation', { name: 'Views' }).getByRole('link').allTextContents()).toEqual(['Ada private']);
  });
});
