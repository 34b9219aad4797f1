import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { expectAccessible, hasChromium, type Harness, startHarness } from './harness.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The smallest chart label as rendered, in CSS pixels (its font size times the SVG's scale on screen). */
const smallestLabelPx = (page: Page) =>
  page.evaluate(() => {
    const svg = document.querySelector('figure.sla-report-chart svg') as SVGSVGElement;
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    return Math.min(...[...svg.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale));
  });

/** The SLA report page (contract 20.3): weekly chart of the last 12 weeks, per-priority table, date range, CSV. */
describe.skipIf(!hasChromium)('SLA reports in Chromium', () => {
  let h: Harness;

  beforeAll(async () => {
    // The history is written at the real dates (the browser's today); sessions must outlive the test clock's jump there.
    h = await startHarness('slareports', { sessionTtlDays: 3650 });
    const { api, clock } = h.ctx;
    const token = h.token;
    const base = `/api/workspaces/${h.slug}`;
    const member = await h.signUp('Mia');
    expect((await api.post(`${base}/members/`, { email: member.email, role: 'member' }, { token })).status).toBe(201);
    const policy = await api.post(
      `${base}/sla-policies/`,
      {
        name: 'Standard',
        is_default: true,
        rules: [
          { priority: 'urgent', response_time_h: 1, resolution_time_h: 4 },
          { priority: 'high', response_time_h: 4, resolution_time_h: 24 },
        ],
      },
      { token },
    );
    expect(policy.status, policy.text).toBe(201);
    const project = (await api.post(`${base}/projects/`, { name: 'Support', identifier: 'SUP' }, { token })).body;
    const states = (await api.get(`${base}/projects/${project.id}/states/`, { token })).body as { id: string; group: string }[];
    const done = states.find((s) => s.group === 'completed')!.id;
    const issues = `${base}/projects/${project.id}/issues/`;
    // Six weeks of history before this week (the browser's today is the real one): each week two issues answered in
    // time and resolved, one left to breach. Each week starts on a Tuesday at 10:00 UTC, so its breach (a day at most)
    // falls in the same Monday-based week as its issues on any day the test runs (on a Sunday night it did not).
    const sixWeeksAgo = new Date(Date.now() - 6 * 7 * DAY);
    const monday = Date.UTC(sixWeeksAgo.getUTCFullYear(), sixWeeksAgo.getUTCMonth(), sixWeeksAgo.getUTCDate()) - ((sixWeeksAgo.getUTCDay() + 6) % 7) * DAY;
    const start = monday + DAY + 10 * HOUR;
    for (let week = 0; week < 6; week++) {
      clock.set(new Date(start + week * 7 * DAY));
      const ids: string[] = [];
      for (const priority of ['urgent', 'high', week % 2 ? 'urgent' : 'high']) {
        const res = await api.post(issues, { name: `Week ${week} ${priority}`, priority }, { token });
        expect(res.status, res.text).toBe(201);
        ids.push(res.body.id);
      }
      clock.advance(HOUR / 4);
      for (const id of ids.slice(0, 2)) {
        expect((await api.post(`${issues}${id}/comments/`, { body: 'On it' }, { token: member.token })).status).toBe(201);
        expect((await api.patch(`${issues}${id}/`, { state_id: done }, { token })).status).toBe(200);
      }
      clock.advance(2 * DAY);
      await (h.ctx.app as unknown as { jobs: { name: string; run(): Promise<unknown> }[] }).jobs.find((j) => j.name === 'sla.events')!.run();
    }
    clock.set(new Date(Date.now() - HOUR));
  });

  afterAll(async () => {
    await h?.close();
  });

  it('shows the weekly chart of the last 12 weeks and the per-priority table', async () => {
    const { page } = h;
    await page.goto(h.app(`/w/${h.slug}/sla/reports`));
    await page.getByRole('heading', { name: 'SLA reports' }).waitFor();
    const chart = page.locator('figure.sla-report-chart svg');
    await chart.waitFor();
    expect(await chart.locator('rect.met').count()).toBe(12);
    expect(await chart.locator('rect.breached').count()).toBe(12);
    expect(await chart.locator('polyline.achievement').count()).toBe(1);
    expect(await chart.getAttribute('aria-label')).toMatch(/Weekly resolution achievement\. .* 2 met, 1 breached, achievement 66\.7%/);
    const table = page.getByRole('table', { name: 'SLA achievement per priority' });
    await table.getByRole('rowheader', { name: 'Urgent' }).waitFor();
    expect(await table.getByRole('rowheader', { name: 'High' }).count()).toBe(1);
    // Medians as durations people read (answered and resolved a quarter of an hour in), never "0s" or "15m".
    expect(await table.getByRole('row', { name: /^Urgent/ }).textContent()).toContain('15 min');
    expect(await smallestLabelPx(page)).toBeGreaterThanOrEqual(12);
    await h.shot('page');
    await expectAccessible(page, 'the SLA report page');
    await page.getByLabel('Target').selectOption('response');
    expect(await chart.getAttribute('aria-label')).toMatch(/Weekly response achievement/);
  });

  it('picks a date range, shows the API error of a bad one, and downloads the table as CSV', async () => {
    const { page } = h;
    const day = (offset: number) => new Date(Date.now() + offset * DAY).toISOString().slice(0, 10);
    await page.getByLabel('From').fill(day(-20));
    await page.getByLabel('To').fill(day(0));
    await page.getByRole('button', { name: 'Show' }).click();
    const table = page.getByRole('table', { name: 'SLA achievement per priority' });
    await table.getByRole('rowheader', { name: 'Urgent' }).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toBe(`sla-report-${day(-20)}-${day(0)}-priority.csv`);
    const csv = await readFile((await download.path())!, 'utf8');
    expect(csv.split('\r\n')[0]).toMatch(/^key,label,response_met,response_breached/);
    expect(csv).toContain('urgent,Urgent,');
    await page.getByLabel('From').fill(day(-400));
    await page.getByRole('button', { name: 'Show' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('validation_failed');
    expect(await alert.textContent()).toContain('over 366 days');
    await h.shot('range-error');
  });

  it('fits a phone-sized screen with every control labelled', async () => {
    await h.checkPhone('sla-reports', `/w/${h.slug}/sla/reports`, async (p) => {
      await p.locator('figure.sla-report-chart svg').waitFor();
      await p.getByRole('table', { name: 'SLA achievement per priority' }).waitFor();
      expect(await smallestLabelPx(p)).toBeGreaterThanOrEqual(12);
      await expectAccessible(p, 'the SLA report page at 390 px');
    });
  });
});
