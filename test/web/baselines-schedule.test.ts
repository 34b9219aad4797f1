import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, hasChromium, type Harness, startHarness } from './harness.js';

/** The baseline page shows the schedule variance (contract 18.4 and 18.6). */
describe.skipIf(!hasChromium)('baseline schedule variance in Chromium', () => {
  let h: Harness;
  let projectId = '';
  const issues = () => `/api/workspaces/${h.slug}/projects/${projectId}/issues/`;
  const create = async (body: Record<string, unknown>) => {
    const res = await h.ctx.api.post(issues(), body, { token: h.token });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string };
  };
  const patch = async (id: string, body: Record<string, unknown>) => {
    const res = await h.ctx.api.patch(`${issues()}${id}/`, body, { token: h.token });
    expect(res.status, res.text).toBe(200);
  };

  beforeAll(async () => {
    h = await startHarness('baselines-schedule');
    const project = await h.ctx.api.post(`/api/workspaces/${h.slug}/projects/`, { name: 'Launch', identifier: 'LCH' }, { token: h.token });
    expect(project.status, project.text).toBe(201);
    projectId = project.body.id;
  });

  afterAll(async () => {
    await h?.close();
  });

  it('shows the planned finish then and now, slips, pull-ins and effort deltas, and the moved dates of changed issues', async () => {
    const { page } = h;
    await page.goto(h.app(`/w/${h.slug}/p/${projectId}/baselines`));
    await page.getByText('No baselines yet').waitFor();
    await expectAccessible(page, 'the baselines list, empty');
    const late = await create({ name: 'Payment page', target_date: '2026-03-10', estimate_minutes: 120 });
    const early = await create({ name: 'Onboarding mail', target_date: '2026-03-20', estimate_minutes: 60 });
    await create({ name: 'Release notes', target_date: '2026-03-15', estimate_minutes: 30 });
    const baseline = await h.ctx.api.post(`/api/workspaces/${h.slug}/projects/${projectId}/baselines/`, { name: 'Launch plan' }, { token: h.token });
    expect(baseline.status, baseline.text).toBe(201);
    await patch(late.id, { target_date: '2026-03-24', estimate_minutes: 180 });
    await patch(early.id, { target_date: '2026-03-17' });
    await create({ name: 'Press kit', estimate_minutes: 45 });

    await page.goto(h.app(`/w/${h.slug}/p/${projectId}/baselines/${baseline.body.id}`));
    await page.getByRole('heading', { name: 'Schedule and effort' }).waitFor();
    const facts = page.locator('section[aria-labelledby="schedule-variance"] dl');
    const fact = async (term: string) =>
      (
        await facts
          .locator('div')
          .filter({ has: page.getByText(term, { exact: true }) })
          .locator('dd')
          .textContent()
      )?.trim();
    expect(await fact('Planned finish')).toBe('Mar 20, 2026 → Mar 24, 2026');
    expect(await fact('Finish variance')).toBe('4 days later');
    expect(await fact('Slipped issues')).toBe('1 (14 days of slip)');
    expect(await fact('Pulled-in issues')).toBe('1');
    // +60 on the payment page, +45 added
    expect(await fact('Estimate change')).toBe('1 hr 45 min more');
    expect(await fact('Estimate of added / removed issues')).toBe('45 min / 0 min');
    expect(await fact('Time spent since')).toBe('no change');
    const changed = page.locator('li').filter({ hasText: 'Payment page' });
    expect(await changed.textContent()).toContain('target Mar 10, 2026 → Mar 24, 2026 · estimate 2 hr → 3 hr');
    await expectAccessible(page, 'the baseline deviation');
    await h.shot('baseline-schedule');
    await h.checkPhone('baseline-schedule', `/w/${h.slug}/p/${projectId}/baselines/${baseline.body.id}`, async (p) => {
      await p.getByRole('heading', { name: 'Schedule and effort' }).waitFor();
      await expectAccessible(p, 'the baseline deviation on a phone');
    });
    await page.goto(h.app(`/w/${h.slug}/p/${projectId}/baselines`));
    await page.getByRole('link', { name: 'Launch plan' }).waitFor();
    await expectAccessible(page, 'the baselines list');
    await h.checkPhone('baselines', `/w/${h.slug}/p/${projectId}/baselines`, async (p) => {
      await p.getByRole('link', { name: 'Launch plan' }).waitFor();
      await expectAccessible(p, 'the baselines list on a phone');
    });
  });
});
