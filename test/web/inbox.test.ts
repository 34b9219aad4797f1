import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, hasChromium, type Harness, recordConsoleErrors, startHarness } from './harness.js';

/**
 * Contract 26.6 in Chromium, the reader's side: the bell's unread count (on focus, at once after the inbox changes it,
 * and every 30 s), the inbox (sentences per kind linking to the issue, tabs and filters in the URL, read one and all,
 * archive and unarchive, snooze until the service's clock passes), the watch button on the issue page, and the
 * settings (name, time zone, e-mail mode, digest hour, kinds). axe finds nothing serious on each page, no console
 * error, and no page scrolls sideways at 390 px.
 */
describe.skipIf(!hasChromium)('notifications in the console (bell, inbox, watch, settings) in Chromium', () => {
  let h: Harness;
  let bob: { token: string; userId: string; email: string };
  let adaId = '';
  let projectId = '';
  let otherSlug = '';
  const issues: { id: string; name: string }[] = [];
  const errors: string[] = [];
  // The issue page asks for an SLA tracker the issue does not have (no policy: a 404 it shows as such).
  const expected = ['/sla/'];
  const HOUR = 3_600_000;

  const bell = (p: Page = h.page) => p.getByRole('link', { name: /^Notifications, \d+ unread$/ });
  // The bell's name is its content ("Notifications, 3 unread"): the visible count is part of it.
  const bellCount = async (p: Page = h.page) => Number(/(\d+) unread/.exec(((await bell(p).textContent()) ?? '').replace(/\s+/g, ' '))?.[1] ?? NaN);
  const items = () => h.page.getByRole('list', { name: 'Notifications' }).getByRole('listitem');
  const item = (text: string | RegExp) => items().filter({ hasText: text });
  const unread = async () => (await h.ctx.api.get('/api/users/me/notifications/unread-count/', { token: h.token })).body.unread as number;
  const base = () => `/api/workspaces/${h.slug}/projects/${projectId}/issues/`;
  const newIssue = async (name: string, body: Record<string, unknown> = {}, token = bob.token) => {
    const res = await h.ctx.api.post(base(), { name, ...body }, { token });
    expect(res.status, res.text).toBe(201);
    issues.push({ id: res.body.id, name });
    return res.body as { id: string; sequence_id: number };
  };

  beforeAll(async () => {
    h = await startHarness('inbox');
    // The browser's clock and the service's agree (snoozing "1 hour" means the same hour to both); time flows.
    await h.page.clock.install({ time: h.ctx.clock.now() });
    await recordConsoleErrors(h, errors, expected);
    adaId = (await h.ctx.api.get('/api/users/me/', { token: h.token })).body.id;
    bob = await h.signUp('Bob');
    const added = await h.ctx.api.post(`/api/workspaces/${h.slug}/members/`, { email: bob.email, role: 'member' }, { token: h.token });
    expect(added.status, added.text).toBe(201);
    const project = await h.ctx.api.post(`/api/workspaces/${h.slug}/projects/`, { name: 'Service desk', identifier: 'SD' }, { token: h.token });
    expect(project.status, project.text).toBe(201);
    projectId = project.body.id;
    // A second workspace of Ada's, where Bob tells her something too (the workspace filter).
    otherSlug = `${h.slug}-ops`;
    expect((await h.ctx.api.post('/api/workspaces/', { name: 'Ops', slug: otherSlug }, { token: h.token })).status).toBe(201);
    expect((await h.ctx.api.post(`/api/workspaces/${otherSlug}/members/`, { email: bob.email, role: 'member' }, { token: h.token })).status).toBe(201);
    const opsProject = await h.ctx.api.post(`/api/workspaces/${otherSlug}/projects/`, { name: 'Ops', identifier: 'OPS' }, { token: h.token });
    const ops = await h.ctx.api.post(
      `/api/workspaces/${otherSlug}/projects/${opsProject.body.id}/issues/`,
      { name: 'Rotate the certificates', assignee_ids: [adaId] },
      { token: bob.token },
    );
    expect(ops.status, ops.text).toBe(201);

    await newIssue('Fix login', { assignee_ids: [adaId] });
    await newIssue('Printer on fire', { assignee_ids: [adaId] });
    const third = await newIssue('Slow search', {}, h.token); // Ada's own: she watches it as its creator
    const comment = await h.ctx.api.post(
      `${base()}${third.id}/comments/`,
      { body: 'Seen on staging too, the query plan scans everything.' },
      { token: bob.token },
    );
    expect(comment.status, comment.text).toBe(201);
    const states = (await h.ctx.api.get(`/api/workspaces/${h.slug}/projects/${projectId}/states/`, { token: h.token })).body as {
      id: string;
      group: string;
      name: string;
    }[];
    const started = states.find((s) => s.group === 'started')!;
    const moved = await h.ctx.api.patch(`${base()}${issues[0]!.id}/`, { state_id: started.id }, { token: bob.token });
    expect(moved.status, moved.text).toBe(200);
    expect(await unread()).toBe(5); // OPS-1, SD-1 and SD-2 assigned, SD-3 commented, SD-1's state
  });

  afterAll(async () => {
    await h?.close();
  });

  it('shows the unread count on the bell and counts again on focus', async () => {
    const { page } = h;
    await page.goto(h.app('/'));
    await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
    await expect.poll(() => bellCount()).toBe(5);
    await newIssue('Broken export', { assignee_ids: [adaId] });
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await expect.poll(() => bellCount()).toBe(6);
    await h.shot('bell');
  });

  it('counts again every 30 seconds without a reload', async () => {
    const p = await h.context.newPage();
    try {
      await p.clock.install({ time: h.ctx.clock.now() });
      await p.goto(h.app('/'));
      await p.getByRole('heading', { name: 'Workspaces' }).waitFor();
      await expect.poll(() => bellCount(p)).toBe(6);
      await newIssue('Flaky deploy', { assignee_ids: [adaId] });
      await p.clock.runFor(31_000);
      await expect.poll(() => bellCount(p)).toBe(7);
    } finally {
      await p.close();
    }
  });

  it('lists the notifications as sentences linking to their issues, filtered by workspace and kind in the URL', async () => {
    const { page } = h;
    await bell().click();
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();
    await item('Bob assigned you SD-2 Printer on fire').waitFor();
    expect(await items().count()).toBe(7);
    const state = item('changed the state of SD-1');
    expect(await state.textContent()).toContain('Bob changed the state of SD-1 Fix login');
    expect(await state.textContent()).toMatch(/State \S.* → \S/);
    expect(await item('Bob commented on SD-3 Slow search').textContent()).toContain('Seen on staging too');
    await item('Bob assigned you OPS-1 Rotate the certificates').waitFor();
    expect(await item('SD-2').locator('time').getAttribute('datetime')).toMatch(/Z$/);
    const link = page.getByRole('link', { name: 'Bob assigned you SD-2 Printer on fire' });
    expect(await link.getAttribute('href')).toBe(`/app/w/${h.slug}/p/${projectId}/issues/${issues[1]!.id}`);
    await expectAccessible(page, 'the inbox');
    await h.shot('inbox');

    await page.getByLabel('Workspace').selectOption(otherSlug);
    await item('OPS-1').waitFor();
    await expect.poll(() => items().count()).toBe(1);
    expect(new URL(page.url()).searchParams.get('workspace')).toBe(otherSlug);
    await expectAccessible(page, 'the inbox filtered by workspace');
    await page.getByLabel('Workspace').selectOption('');
    await page.getByLabel('Kind').selectOption('commented');
    await expect.poll(() => items().count()).toBe(1);
    await item('Bob commented on SD-3').waitFor();
    expect(new URL(page.url()).searchParams.get('kind')).toBe('commented');
    await page.reload(); // the filters live in the URL
    await item('Bob commented on SD-3').waitFor();
    expect(await page.getByLabel('Kind').inputValue()).toBe('commented');
    await page.getByLabel('Kind').selectOption('');
    await expect.poll(() => items().count()).toBe(7);
  });

  it('marks one read by following its link, and the bell counts one less at once', async () => {
    const { page } = h;
    await page.getByRole('link', { name: 'Bob assigned you SD-2 Printer on fire' }).click();
    await page.getByRole('heading', { name: /Printer on fire/ }).waitFor();
    await expect.poll(() => bellCount()).toBe(6);
    await page.goBack();
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();
    await expect.poll(() => items().count()).toBe(6); // the Unread tab
    await item('Bob changed the state of SD-1 Fix login').getByRole('button', { name: 'Mark read' }).click();
    await expect.poll(() => items().count()).toBe(5);
    await expect.poll(() => bellCount()).toBe(5);
    await page.getByRole('link', { name: 'All' }).click();
    await expect.poll(() => items().count()).toBe(7);
    expect(new URL(page.url()).searchParams.get('tab')).toBe('all');
    expect(await page.locator('.notice-item.unread').count()).toBe(5);
    await page.getByRole('link', { name: /^Unread/ }).click();
    await expect.poll(() => items().count()).toBe(5);
  });

  it('archives and unarchives', async () => {
    const { page } = h;
    await item('Broken export').getByRole('button', { name: 'Archive' }).click();
    await item('Broken export').waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'Archived' }).click();
    await item('Broken export').waitFor();
    expect(await items().count()).toBe(1);
    await expectAccessible(page, 'the archive');
    await item('Broken export').getByRole('button', { name: 'Unarchive' }).click();
    await page.getByText('Nothing archived.').waitFor();
    await page.getByRole('link', { name: /^Unread/ }).click();
    await item('Broken export').waitFor();
  });

  it('snoozes one for an hour: hidden and not counted until the hour has passed', async () => {
    const { page } = h;
    const before = await unread();
    const row = item('Flaky deploy');
    await row.locator('summary').click();
    await row.getByRole('button', { name: '1 hour' }).click();
    await row.waitFor({ state: 'detached' });
    await expect.poll(() => bellCount()).toBe(before - 1);
    const all = (await h.ctx.api.get('/api/users/me/notifications/', { token: h.token })).body.results as { snoozed_until: string | null }[];
    expect(all.some((n) => n.snoozed_until)).toBe(false); // hidden from the list too

    // Until a chosen time: tomorrow 9:00 is offered, and any date-time.
    const other = item('Broken export');
    await other.locator('summary').click();
    const until = new Date(h.ctx.clock.now().getTime() + 2 * HOUR);
    const local = new Date(until.getTime() - until.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await other.getByLabel('Until').fill(local);
    await expectAccessible(page, 'the snooze menu');
    await other.getByRole('button', { name: 'Snooze until then' }).click();
    await other.waitFor({ state: 'detached' });
    await expect.poll(() => bellCount()).toBe(before - 2);

    h.ctx.clock.advance(HOUR + 60_000);
    await page.reload();
    await item('Flaky deploy').waitFor();
    expect(await item('Broken export').count()).toBe(0);
    await expect.poll(() => bellCount()).toBe(before - 1);
    h.ctx.clock.advance(HOUR);
    await page.reload();
    await item('Broken export').waitFor();
    await expect.poll(() => bellCount()).toBe(before);
  });

  it('marks all read', async () => {
    const { page } = h;
    await page.getByRole('button', { name: 'Mark all read' }).click();
    await page.getByText('You are all caught up: nothing unread.').waitFor();
    await expect.poll(() => bellCount()).toBe(0);
    expect(await unread()).toBe(0);
    await expectAccessible(page, 'the empty inbox');
    await h.shot('inbox-empty');
  });

  it('watches and stops watching an issue from its page, with the watchers listed', async () => {
    const { page } = h;
    const issue = await newIssue('Nobody looks at this', {}, bob.token);
    const url = `${base()}${issue.id}/`;
    await page.goto(h.app(`/w/${h.slug}/p/${projectId}/issues/${issue.id}`));
    await page.getByRole('heading', { name: /Nobody looks at this/ }).waitFor();
    const watch = page.getByRole('button', { name: 'Watch', exact: true });
    await watch.waitFor();
    await page.getByText('1 watcher', { exact: true }).waitFor(); // Bob, who created it
    await watch.click();
    await page.getByRole('button', { name: 'Stop watching' }).waitFor();
    await page.getByText('2 watchers').click();
    const names = page.locator('.watchers li');
    await expect.poll(async () => (await names.allTextContents()).sort()).toEqual(['Ada', 'Bob']);
    expect((await h.ctx.api.get(url, { token: h.token })).body.watching).toBe(true);
    await expectAccessible(page, 'the issue page with the watch button');
    await h.shot('watch');
    await page.getByRole('button', { name: 'Stop watching' }).click();
    await page.getByRole('button', { name: 'Watch', exact: true }).waitFor();
    await page.getByText('1 watcher', { exact: true }).waitFor();
    expect((await h.ctx.api.get(url, { token: h.token })).body.watching).toBe(false);
    await page.reload();
    await page.getByRole('button', { name: 'Watch', exact: true }).waitFor();
  });

  it('saves the name, the time zone and the e-mail settings', async () => {
    const { page } = h;
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    await page.getByLabel('Display name').fill('Ada Lovelace');
    const zones = await page.getByLabel('Time zone').locator('option').allTextContents();
    expect(zones.length).toBeGreaterThan(300);
    await page.getByLabel('Time zone').selectOption('Europe/Istanbul');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Profile saved.').waitFor();
    const me = (await h.ctx.api.get('/api/users/me/', { token: h.token })).body;
    expect(me).toMatchObject({ display_name: 'Ada Lovelace', time_zone: 'Europe/Istanbul' });

    await page.getByLabel('Daily digest only').check();
    await page.getByLabel('Digest hour').selectOption('7');
    await page.getByLabel('Comments').uncheck();
    await page.getByLabel('Priority changes').uncheck();
    await expectAccessible(page, 'the settings');
    await page.getByRole('button', { name: 'Save notification settings' }).click();
    await page.getByText('Notification settings saved.').waitFor();
    const saved = (await h.ctx.api.get('/api/users/me/notification-settings/', { token: h.token })).body;
    expect(saved).toMatchObject({ email: 'digest', digest_hour: 7, kinds: { commented: false, priority_changed: false, assigned: true, mentioned: true } });
    await page.reload();
    await page.getByLabel('Display name').waitFor();
    expect(await page.getByLabel('Time zone').inputValue()).toBe('Europe/Istanbul');
    expect(await page.getByLabel('Digest hour').inputValue()).toBe('7');
    expect(await page.getByLabel('Comments').isChecked()).toBe(false);
    expect(await page.getByLabel('Daily digest only').isChecked()).toBe(true);
    await h.shot('settings');
  });

  it('shows an unknown time zone as the API states it', async () => {
    const { page } = h;
    expected.push('/api/users/me/'); // the 400 this test asks for
    await page.getByLabel('Time zone').evaluate((el: HTMLSelectElement) => {
      el.add(new Option('Mars/Olympus', 'Mars/Olympus'));
      el.value = 'Mars/Olympus';
    });
    await page.getByRole('button', { name: 'Save profile' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('validation_failed');
    await expectAccessible(page, 'the settings with a refused time zone');
    expected.pop();
  });

  it('fits a phone (390 px) on each new page', async () => {
    await h.checkPhone('inbox', '/inbox?tab=all', async (p) => {
      await p.getByRole('list', { name: 'Notifications' }).waitFor();
      await p.locator('.notice-item summary').first().click(); // the snooze menu open
      await expectAccessible(p, 'the inbox on a phone');
    });
    await h.checkPhone('settings', '/settings', async (p) => {
      await p.getByLabel('Digest hour').waitFor();
      await expectAccessible(p, 'the settings on a phone');
    });
    await h.checkPhone('issue-watch', `/w/${h.slug}/p/${projectId}/issues/${issues[0]!.id}`, (p) => p.locator('.watchers').waitFor());
  });

  it('had no console errors', () => {
    expect(errors).toEqual([]);
  });
});
