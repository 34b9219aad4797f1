import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, hasChromium, type Harness, startHarness } from './harness.js';

// The server's clock starts at 2026-01-15T09:00Z (a Thursday); the week shown is named in the URL, so the browser's
// own date never matters. The workspace's time zone is Europe/Istanbul (UTC+3 all year).
const WEEK = '2026-01-12';

describe.skipIf(!hasChromium)('planning and time tracking in Chromium', () => {
  let h: Harness;
  let projectId = '';
  let otherProjectId = '';
  let issueId = '';
  const W = () => `/api/workspaces/${h.slug}`;
  const call = async (method: 'post' | 'patch' | 'get', path: string, body?: unknown, token = h.token) => {
    const res = method === 'get' ? await h.ctx.api.get(`${W()}${path}`, { token }) : await h.ctx.api[method](`${W()}${path}`, body, { token });
    expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
    return res.body;
  };
  const issuePage = () => h.app(`/w/${h.slug}/p/${projectId}/issues/${issueId}`);
  const fact = (term: string) => h.page.locator('.time-facts dl.limits div', { has: h.page.locator('dt', { hasText: new RegExp(`^${term}$`) }) }).locator('dd');
  /** What the estimate reads beside its field ("2 hr · The original estimate..."). */
  const estimate = () => h.page.locator('#issue-estimate-minutes-hint');
  /** Types into a field of the issue's properties and saves it with Enter (each field saves on its own). */
  const setField = async (label: string, value: string) => {
    // The page's reloads after the last change first: one landing after the fill would put the saved value back.
    await h.page.waitForLoadState('networkidle');
    await h.page.getByLabel(label).fill(value);
    const saved = h.page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().includes(`/issues/${issueId}/`));
    await h.page.getByLabel(label).press('Enter');
    return (await saved).status();
  };

  beforeAll(async () => {
    h = await startHarness('time');
    projectId = (await call('post', '/projects/', { name: 'Web', identifier: 'WEB' })).id;
    otherProjectId = (await call('post', '/projects/', { name: 'Mobile', identifier: 'MOB' })).id;
    issueId = (await call('post', `/projects/${projectId}/issues/`, { name: 'Checkout flow' })).id;
    await call('patch', '/', { time_zone: 'Europe/Istanbul' });
    h.page.on('dialog', (d) => void d.accept());
  });

  afterAll(async () => {
    await h?.close();
  });

  it('says plainly that logging time needs the plan (402 feature_not_in_plan), and still reads', async () => {
    const { page } = h;
    await page.goto(issuePage());
    await page.getByText('No time logged yet.').waitFor();
    await page.getByLabel('Duration (minutes)').fill('30');
    await page.getByRole('button', { name: 'Log time' }).click();
    const notice = page.locator('.plan-notice');
    await notice.getByText("Time tracking is not in this workspace's plan.").waitFor();
    expect(await notice.getByRole('link', { name: 'Billing' }).getAttribute('href')).toBe(`/app/w/${h.slug}/billing`);
    expect(await page.getByRole('alert').textContent()).toContain('402 feature_not_in_plan');
    await page.getByRole('button', { name: 'Start timer' }).click();
    await page.locator('.timer .plan-notice').waitFor();
    await h.shot('not-in-plan');
    // Dates and estimates are free on every plan.
    expect(await setField('Estimate (minutes)', '120')).toBe(200);
    await expect.poll(async () => (await estimate().textContent()) ?? '').toMatch(/^2 hr ·/);
    await call('post', '/billing/trial/', { plan_slug: 'pro' });
  });

  it('edits dates and estimate, and shows the API error of inverted dates under its field', async () => {
    const { page } = h;
    await page.goto(issuePage());
    await estimate()
      .getByText(/^2 hr ·/)
      .waitFor();
    expect(await fact('Remaining').textContent()).toBe('2 hr'); // reads the estimate minus nothing spent
    expect(await page.getByLabel('Remaining (minutes)').inputValue()).toBe('120');
    expect(await setField('Start date', '2026-01-20')).toBe(200);
    expect(await setField('Target date', '2026-01-10')).toBe(400);
    await page.locator('.prop.invalid .field-error').first().waitFor();
    expect(await page.locator('.prop.invalid .field-error').first().textContent()).toContain('is after target_date');
    await expect.poll(() => page.getByLabel('Target date').inputValue()).toBe(''); // the stored value stays
    expect(await setField('Target date', '2026-02-27')).toBe(200);
    expect(await page.locator('.prop.invalid').count()).toBe(0);
    await page.reload();
    await expect.poll(() => page.getByLabel('Target date').inputValue()).toBe('2026-02-27');
    expect(await page.getByLabel('Start date').inputValue()).toBe('2026-01-20');
    const issue = await call('get', `/projects/${projectId}/issues/${issueId}/`);
    expect(issue).toMatchObject({ start_date: '2026-01-20', target_date: '2026-02-27', estimate_minutes: 120, remaining_minutes: 120 });
    // The history says what changed.
    await page
      .locator('ol.activity')
      .getByText(/changed the dates/)
      .first()
      .waitFor();
  });

  it('logs time, edits and deletes a worklog; time spent and remaining follow', async () => {
    const { page } = h;
    await page.goto(issuePage());
    await page.getByText('No time logged yet.').waitFor();
    await page.getByLabel('Duration (minutes)').fill('30');
    await page.getByLabel('Note').fill('Wired the form');
    await page.getByRole('button', { name: 'Log time' }).click();
    await page.locator('ul.worklogs > li').getByText('Wired the form').waitFor();
    await expect.poll(() => fact('Time spent').textContent()).toBe('30 min');
    expect(await fact('Remaining').textContent()).toBe('1 hr 30 min');
    expect(await page.locator('ul.worklogs > li').first().textContent()).toContain('Ada');

    // An earlier worklog (its own start) lists after the newer one.
    await page.getByLabel('Duration (minutes)').fill('15');
    await page.getByLabel('Started at (your time)').fill('2026-01-14T10:00');
    await page.getByRole('button', { name: 'Log time' }).click();
    await expect.poll(() => page.locator('ul.worklogs > li').count()).toBe(2);
    expect(await page.locator('ul.worklogs > li').last().textContent()).toContain('15 min');
    await expect.poll(() => fact('Time spent').textContent()).toBe('45 min');

    const first = page.locator('ul.worklogs > li').first();
    await first.getByRole('button', { name: /^Edit worklog/ }).click();
    await first.getByLabel('Duration (minutes)').fill('60');
    await first.getByRole('button', { name: 'Save worklog' }).click();
    await page.locator('ul.worklogs > li').first().getByText('1 hr', { exact: true }).waitFor();
    await expect.poll(() => fact('Time spent').textContent()).toBe('1 hr 15 min');
    expect(await fact('Remaining').textContent()).toBe('45 min');
    await h.shot('worklogs');

    await page
      .locator('ul.worklogs > li')
      .last()
      .getByRole('button', { name: /^Delete worklog/ })
      .click();
    await expect.poll(() => page.locator('ul.worklogs > li').count()).toBe(1);
    await expect.poll(() => fact('Time spent').textContent()).toBe('1 hr');
    // A remaining estimate set by hand stays the user's.
    expect(await setField('Remaining (minutes)', '90')).toBe(200);
    await expect.poll(() => fact('Remaining').textContent()).toBe('1 hr 30 min');
  });

  it('starts and stops the timer, which logs its run', async () => {
    const { page } = h;
    await page.goto(issuePage());
    await page.getByText('No timer running.').waitFor();
    await page.getByRole('button', { name: 'Start timer' }).click();
    await page.locator('.timer').getByText('Timer running', { exact: true }).waitFor(); // exact: "No timer running." holds the words too
    expect(await page.getByRole('button', { name: 'Start timer' }).count()).toBe(0);
    expect((await call('get', '/timer/')).issue_id).toBe(issueId);
    h.ctx.clock.advance(25 * 60_000);
    await page.reload();
    await page.locator('.timer').getByText('Timer running', { exact: true }).waitFor(); // the running timer shows after a reload
    await page.getByRole('button', { name: 'Stop timer' }).click();
    await page.getByText('No timer running.').waitFor();
    await page.locator('ul.worklogs > li').first().getByText('25 min').waitFor();
    await expect.poll(() => fact('Time spent').textContent()).toBe('1 hr 25 min');
  });

  it('pages the worklogs, newest first', async () => {
    const { page } = h;
    const other = (await call('post', `/projects/${projectId}/issues/`, { name: 'Many logs' })).id;
    for (let i = 0; i < 12; i++) {
      await call('post', `/projects/${projectId}/issues/${other}/worklogs/`, {
        duration_minutes: i + 1,
        started_at: `2026-01-${String(i + 1).padStart(2, '0')}T08:00:00Z`,
      });
    }
    await page.goto(h.app(`/w/${h.slug}/p/${projectId}/issues/${other}`));
    const pager = page.getByRole('navigation', { name: 'Worklog pages' });
    await pager.getByText('1–10 of 12').waitFor();
    expect(await page.locator('ul.worklogs > li').first().textContent()).toContain('12 min');
    await pager.getByRole('button', { name: 'Next' }).click();
    await pager.getByText('11–12 of 12').waitFor();
    expect(await page.locator('ul.worklogs > li').last().textContent()).toContain('1 min');
  });

  it('shows the week grid by user and by project in the workspace time zone, moves by week, and downloads CSV', async () => {
    const { page } = h;
    h.ctx.clock.set('2026-01-19T12:00:00Z'); // a Monday: the last week is complete, the next-week worklog is not ahead
    const bob = await h.signUp('Bob');
    await call('post', '/members/', { email: bob.email, role: 'member' });
    const mobile = (await call('post', `/projects/${otherProjectId}/issues/`, { name: 'Push' })).id;
    // Sunday 22:30 UTC is Monday 01:30 in Istanbul: it counts on Monday the 12th.
    await call('post', `/projects/${otherProjectId}/issues/${mobile}/worklogs/`, { duration_minutes: 50, started_at: '2026-01-11T22:30:00Z' }, bob.token);
    await call('post', `/projects/${otherProjectId}/issues/${mobile}/worklogs/`, { duration_minutes: 40, started_at: '2026-01-13T09:00:00Z' }, bob.token);
    // The next week (Monday 19th 00:30 local): not in this one.
    await call('post', `/projects/${otherProjectId}/issues/${mobile}/worklogs/`, { duration_minutes: 20, started_at: '2026-01-18T21:30:00Z' }, bob.token);

    await page.goto(h.app(`/w/${h.slug}`));
    await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Timesheet' }).click();
    await page.getByRole('heading', { name: 'Timesheet' }).waitFor();
    await page.goto(h.app(`/w/${h.slug}/timesheet?week=${WEEK}&group_by=user`));
    await page.getByText('Week of Jan 12, 2026 to Jan 18, 2026').waitFor();
    await page.locator('table.timesheet tbody tr').first().waitFor();
    const rows = async () =>
      (await page.locator('table.timesheet tbody tr').all()).map(async (r) => (await r.locator('th, td').allTextContents()).map((t) => t.trim()));
    const grid = async () => Promise.all(await rows());
    const byUser = await grid();
    expect(byUser).toHaveLength(2);
    const bobRow = byUser.find((r) => r[0] === 'Bob')!;
    expect(bobRow).toEqual(['Bob', '50 min', '40 min', '', '', '', '', '', '1 hr 30 min']);
    const adaRow = byUser.find((r) => r[0] === 'Ada')!;
    expect(adaRow[8]).not.toBe('');
    const footer = (await page.locator('table.timesheet tfoot tr th, table.timesheet tfoot tr td').allTextContents()).map((t) => t.trim());
    expect(footer[0]).toBe('Total');
    expect(footer[1]).toBe('1 hr 2 min'); // Bob's 50 and the 12 of the paged issue, both on Monday the 12th
    expect(footer[2]).toBe('40 min');
    await expectAccessible(page, 'the timesheet by member');
    await h.shot('timesheet-user');

    await page.getByLabel('Group by').selectOption('project');
    await page.waitForURL(/group_by=project/);
    await expect.poll(async () => (await grid()).map((r) => r[0]).sort()).toEqual(['Mobile', 'Web']);
    expect((await grid()).find((r) => r[0] === 'Mobile')).toEqual(['Mobile', '50 min', '40 min', '', '', '', '', '', '1 hr 30 min']);
    await expectAccessible(page, 'the timesheet by project');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toBe(`timesheet-${WEEK}-2026-01-18.csv`);
    const csv = await readFile((await download.path())!, 'utf8');
    const lines = csv.trim().split(/\r\n/);
    expect(lines[0]).toBe(`key,label,${['12', '13', '14', '15', '16', '17', '18'].map((d) => `2026-01-${d}`).join(',')},total`);
    expect(lines.find((l) => l.includes(',Mobile,'))).toBe(`${otherProjectId},Mobile,50,40,0,0,0,0,0,90`);

    await page.getByRole('button', { name: 'Next week' }).click();
    await page.getByText('Week of Jan 19, 2026 to Jan 25, 2026').waitFor();
    await expect.poll(async () => (await grid()).find((r) => r[0] === 'Mobile')?.[1]).toBe('20 min');
    await page.getByRole('button', { name: 'Previous week' }).click();
    await page.getByRole('button', { name: 'Previous week' }).click();
    await page.getByText('Week of Jan 5, 2026 to Jan 11, 2026').waitFor();
    await expect.poll(async () => (await grid()).map((r) => r[0])).toEqual(['Web']); // the paged issue's early worklogs
    await h.checkPhone('timesheet', `/w/${h.slug}/timesheet?week=${WEEK}`, async (p) => {
      await p.locator('table.timesheet tbody tr').first().waitFor();
      await expectAccessible(p, 'the timesheet on a phone');
    });
    await h.checkPhone('issue', `/w/${h.slug}/p/${projectId}/issues/${issueId}`, (p) => p.locator('ul.worklogs > li').first().waitFor());
  });
});
