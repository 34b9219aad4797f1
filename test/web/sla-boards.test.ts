import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { expectAccessible, hasChromium, type Harness, startHarness } from './harness.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

/**
 * The SLA boards (issue 41): counts, paging, the project filter in the URL, open breaches first, times relative to now
 * in words with the absolute time on hover, a live refresh that announces politely and keeps the focus, and axe and
 * the phone on the boards and the policies. The history is written at the real time (the browser's now).
 */
describe.skipIf(!hasChromium)('SLA boards in Chromium', () => {
  let h: Harness;
  let base = '';
  const ids = { sup: '', bil: '', ops: '', supDone: '' };
  let supIssues: { id: string; sequence_id: number }[] = [];

  beforeAll(async () => {
    h = await startHarness('slaboards', { sessionTtlDays: 3650 });
    const { api, clock } = h.ctx;
    const token = h.token;
    base = `/api/workspaces/${h.slug}`;
    const now = Date.now();
    clock.set(new Date(now - 30 * HOUR));
    const post = async (path: string, body: object) => {
      const res = await api.post(`${base}${path}`, body, { token });
      expect(res.status, res.text).toBe(201);
      return res.body;
    };
    await post('/sla-policies/', {
      name: 'Standard',
      is_default: true,
      rules: [
        { priority: 'urgent', response_time_h: 0.25, resolution_time_h: 4 },
        { priority: 'high', response_time_h: 4, resolution_time_h: 24 },
      ],
    });
    // A calendar that is always open (UTC): working time is wall time, so the numbers are exact; it says "working time".
    const always = await post('/sla-calendars/', {
      name: 'Always on',
      time_zone: 'UTC',
      working_hours: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((day) => ({ day, start: '00:00', end: '24:00' })),
    });
    const office = await post('/sla-policies/', {
      name: 'Office',
      calendar_id: always.id,
      rules: [{ priority: 'high', response_time_h: 4, resolution_time_h: 24 }],
    });
    ids.sup = (await post('/projects/', { name: 'Support', identifier: 'SUP' })).id;
    ids.bil = (await post('/projects/', { name: 'Billing', identifier: 'BIL' })).id;
    ids.ops = (await post('/projects/', { name: 'Operations', identifier: 'OPS', sla_policy_id: office.id })).id;
    const states = (await api.get(`${base}/projects/${ids.sup}/states/`, { token })).body as { id: string; group: string }[];
    ids.supDone = states.find((s) => s.group === 'completed')!.id;
    // 23 urgent Support issues a minute apart (15-minute response), 3 high Billing ones (4-hour response).
    supIssues = [];
    for (let i = 1; i <= 23; i++) {
      supIssues.push(await post(`/projects/${ids.sup}/issues/`, { name: `Printer ${i} on fire`, priority: 'urgent' }));
      clock.advance(MIN);
    }
    for (let i = 1; i <= 3; i++) await post(`/projects/${ids.bil}/issues/`, { name: `Invoice ${i} is wrong`, priority: 'high' });
    // SUP-1..5 are resolved two hours in: responded late (breached), resolved in time.
    clock.advance(2 * HOUR);
    for (const issue of supIssues.slice(0, 5)) {
      const res = await api.patch(`${base}/projects/${ids.sup}/issues/${issue.id}/`, { state_id: ids.supDone }, { token });
      expect(res.status, res.text).toBe(200);
    }
    // At risk: OPS-1 (3.5 of 4 working hours gone) and BIL-4 (12 of 15 minutes gone).
    clock.set(new Date(now - 3.5 * HOUR));
    await post(`/projects/${ids.ops}/issues/`, { name: 'Disk almost full', priority: 'high' });
    clock.set(new Date(now - 12 * MIN));
    await post(`/projects/${ids.bil}/issues/`, { name: 'Card declined twice', priority: 'urgent' });
    clock.set(new Date(now));
  });

  afterAll(async () => {
    await h?.close();
  });

  const countText = (page: Page) => page.locator('.board-count').textContent();

  it('shows the breached count, open breaches first, each section paged, with relative times and the instant on hover', async () => {
    const { page } = h;
    await page.goto(h.app(`/w/${h.slug}/sla/breached`));
    await page.getByRole('heading', { name: 'SLA breached' }).waitFor();
    await page.getByText('26 breached: 21 open, 5 resolved').waitFor();
    const headings = await page.locator('main h2').allTextContents();
    expect(headings).toEqual(['Open breaches 21', 'Resolved breaches 5']);
    const open = page.getByRole('region', { name: 'Open breaches', exact: true });
    const rows = open.getByRole('row');
    expect(await rows.count()).toBe(21); // header + a page of 20
    // Most overdue first: SUP-6 (the oldest unresolved), named by key and name, linking to the issue.
    const first = rows.nth(1);
    const link = first.getByRole('link', { name: 'SUP-6 Printer 6 on fire' });
    expect(await link.getAttribute('href')).toBe(`/app/w/${h.slug}/p/${ids.sup}/issues/${supIssues[5]!.id}`);
    expect(await first.textContent()).toContain('Support');
    expect(await first.textContent()).toContain('Urgent');
    expect(await first.textContent()).toMatch(/Response breached 1 day 5 hr ago/);
    expect(await first.textContent()).toMatch(/Resolution breached 1 day 1 hr ago/);
    const due = first.locator('time').first();
    const tracker = (await h.ctx.api.get(`${base}/issues/${supIssues[5]!.id}/sla/`, { token: h.token })).body;
    expect(await due.getAttribute('datetime')).toBe(tracker.response_due_at);
    // The full date and time on hover: "Thursday, November 26, 2026 at 5:40:00 PM UTC" in en-US.
    expect(await due.getAttribute('title')).toMatch(/^\w+day, \w+ \d+, 20\d\d.*\d:\d\d/);
    // No stray bullets, no raw codes.
    expect(await page.locator('main ul:not(.targets) li').count()).toBe(0);
    expect(await page.locator('main').textContent()).not.toMatch(/\burgent\b|started|backlog/);
    // The resolved breaches come after, with their outcome.
    const resolved = page.getByRole('region', { name: 'Resolved breaches', exact: true });
    expect(await resolved.getByRole('row').count()).toBe(6);
    expect(await resolved.getByRole('row').nth(1).textContent()).toMatch(
      /SUP-1 Printer 1 on fire.*Response breached 1 day 5 hr ago.*Resolution met 1 day 3 hr ago/,
    );
    await h.shot('breached');
    await expectAccessible(page, 'the breached board');

    // Paging: the second page of open breaches, in the URL.
    await page.getByRole('navigation', { name: 'Open breaches: pages' }).getByRole('button', { name: 'Next' }).click();
    await open.getByRole('link', { name: 'BIL-3 Invoice 3 is wrong' }).waitFor();
    expect(await open.getByRole('row').count()).toBe(2);
    expect(await page.getByRole('navigation', { name: 'Open breaches: pages' }).textContent()).toContain('21–21 of 21');
    expect(page.url()).toContain('open_offset=20');
    await page.reload();
    await open.getByRole('link', { name: 'BIL-3 Invoice 3 is wrong' }).waitFor();
  });

  it('filters by project through the URL, with exact counts', async () => {
    const { page } = h;
    await page.getByLabel('Project').selectOption({ label: 'Billing (BIL)' });
    await page.getByText('3 breached: 3 open, 0 resolved').waitFor();
    expect(page.url()).toContain(`project_id=${ids.bil}`);
    expect(page.url()).not.toContain('open_offset');
    const open = page.getByRole('region', { name: 'Open breaches', exact: true });
    expect(await open.getByRole('link').allTextContents()).toEqual(['BIL-1 Invoice 1 is wrong', 'BIL-2 Invoice 2 is wrong', 'BIL-3 Invoice 3 is wrong']);
    expect(await page.getByText('No resolved breaches.').count()).toBe(1);
    await expectAccessible(page, 'the breached board, filtered');
    await page.goto(h.app(`/w/${h.slug}/sla/breached?project_id=${ids.sup}`));
    await page.getByText('23 breached: 18 open, 5 resolved').waitFor();
    expect(await page.getByLabel('Project').inputValue()).toBe(ids.sup);
    await page.getByLabel('Project').selectOption('');
    await page.getByText('26 breached: 21 open, 5 resolved').waitFor();
    expect(page.url()).not.toContain('project_id');
  });

  it('refreshes live: announces the new counts politely and leaves the focus where it was', async () => {
    const { page } = h;
    await page.clock.install();
    await page.goto(h.app(`/w/${h.slug}/sla/breached`));
    await page.getByText('26 breached: 21 open, 5 resolved').waitFor();
    expect(await page.locator('.board-count').getAttribute('role')).toBe('status');
    // One status line speaks; the "checked at" time, which changes every 10 s, does not.
    expect(await page.locator('.sla-board [role=status]').count()).toBe(1);
    expect(await page.locator('.live-note').evaluate((el) => el.closest('[aria-live]') === null && !el.querySelector('[aria-live]'))).toBe(true);
    const link = page.getByRole('link', { name: 'SUP-7 Printer 7 on fire' });
    await link.focus();
    const res = await h.ctx.api.patch(`${base}/projects/${ids.sup}/issues/${supIssues[5]!.id}/`, { state_id: ids.supDone }, { token: h.token });
    expect(res.status, res.text).toBe(200);
    await page.clock.runFor(11_000);
    await page.getByText('26 breached: 20 open, 6 resolved').waitFor();
    expect(await countText(page)).toBe('26 breached: 20 open, 6 resolved');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('SUP-7 Printer 7 on fire');
  });

  it('shows the at-risk board with the time left, working time where a calendar counts, filtered by project', async () => {
    const { page } = h;
    await page.goto(h.app(`/w/${h.slug}/sla/at-risk`));
    await page.getByRole('heading', { name: 'SLA at risk' }).waitFor();
    await page.getByText('2 at risk').waitFor();
    const rows = page.getByRole('region', { name: 'At risk, soonest due first', exact: true }).getByRole('row');
    expect(await rows.count()).toBe(3);
    // Soonest due first: BIL-4 (3 minutes left), then OPS-1 (30 minutes of working time left).
    expect(await rows.nth(1).textContent()).toMatch(/BIL-4 Card declined twice.*Response: 3 min left.*Urgent.*Billing/);
    expect(await rows.nth(2).textContent()).toMatch(/OPS-1 Disk almost full.*Response: 30 min left of working time.*High.*Operations/);
    const left = rows.nth(2).locator('time').first();
    expect(await left.getAttribute('title')).toMatch(/^Due \w+day, /);
    await h.shot('at-risk');
    await expectAccessible(page, 'the at-risk board');
    await page.getByLabel('Project').selectOption({ label: 'Operations (OPS)' });
    await page.getByText('1 at risk').waitFor();
    expect(page.url()).toContain(`project_id=${ids.ops}`);
    expect(await page.getByRole('link', { name: /^(BIL|SUP|OPS)-/ }).allTextContents()).toEqual(['OPS-1 Disk almost full']);
    await page.getByLabel('Project').selectOption({ label: 'Support (SUP)' });
    await page.getByText('Nothing is at risk right now.').waitFor();
    await expectAccessible(page, 'the at-risk board, empty');
  });

  it('shows policies with readable targets and the calendar by name', async () => {
    const { page } = h;
    await page.goto(h.app(`/w/${h.slug}/sla/policies`));
    const standard = page.locator('.cards > li').filter({ hasText: 'Standard' });
    await standard.waitFor();
    expect(await standard.textContent()).toContain('Urgent: respond in 15 min, resolve in 4 hr');
    expect(await standard.textContent()).toContain('High: respond in 4 hr, resolve in 1 day');
    expect(await standard.textContent()).toContain('Calendar: none (24/7)');
    const office = page.locator('.cards > li').filter({ hasText: 'Office' });
    expect(await office.textContent()).toContain('Calendar: Always on (working time, UTC) · at risk at 75%');
    expect(await page.locator('.cards').textContent()).not.toMatch(/\d h\b|0\.25/);
    await expectAccessible(page, 'the policies');
  });

  it('fits a phone on every board and the policies, with 0 axe violations', async () => {
    const axe = (what: string) => (p: Page) => expectAccessible(p, `${what} at 390 px`);
    await h.checkPhone('breached', `/w/${h.slug}/sla/breached`, async (p) => {
      await p.getByText(/26 breached/).waitFor();
      await axe('the breached board')(p);
    });
    await h.checkPhone('at-risk', `/w/${h.slug}/sla/at-risk`, async (p) => {
      await p.getByText('2 at risk').waitFor();
      await axe('the at-risk board')(p);
    });
    await h.checkPhone('policies', `/w/${h.slug}/sla/policies`, async (p) => {
      await p.locator('.cards > li').first().waitFor();
      await axe('the policies')(p);
    });
  });
});
