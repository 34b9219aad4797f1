import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, hasChromium, type Harness, startHarness } from './harness.js';

describe.skipIf(!hasChromium)('project forecast in Chromium', () => {
  let h: Harness;
  let projectId = '';
  const call = async (method: 'post' | 'patch', path: string, body: unknown) => {
    const res = await h.ctx.api[method](`/api/workspaces/${h.slug}${path}`, body, { token: h.token });
    expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
    return res.body;
  };

  beforeAll(async () => {
    // The browser's clock is real; the service's is the test's: history is written in past weeks of the real now.
    h = await startHarness('forecast', { sessionTtlDays: 3650 });
    const now = Date.now();
    h.ctx.clock.set(new Date(now - 10 * 7 * 86_400_000));
    projectId = (await call('post', '/projects/', { name: 'Forecast', identifier: 'FCS' })).id;
    const states = (await h.ctx.api.get(`/api/workspaces/${h.slug}/projects/${projectId}/states/`, { token: h.token })).body as { id: string; group: string }[];
    const done = states.find((s) => s.group === 'completed')!.id;
    const target = new Date(now + 60 * 86_400_000).toISOString().slice(0, 10);
    const ids: string[] = [];
    for (let i = 0; i < 14; i++) ids.push((await call('post', `/projects/${projectId}/issues/`, { name: `Task ${i}`, target_date: target })).id);
    // two completions a week for the next four weeks
    for (let week = 0; week < 4; week++) {
      h.ctx.clock.set(new Date(now - (8 - week) * 7 * 86_400_000));
      for (const id of ids.splice(0, 2)) await call('patch', `/projects/${projectId}/issues/${id}/`, { state_id: done });
    }
    h.ctx.clock.set(new Date(now));
    await call('post', `/projects/${projectId}/baselines/`, { name: 'Kick-off' });
  });

  afterAll(async () => {
    await h?.close();
  });

  it('shows the throughput bars, the finish dates against the planned finish, and follows the weeks chosen', async () => {
    const { page } = h;
    await page.goto(h.app(`/w/${h.slug}/p/${projectId}/issues`));
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Forecast' }).click();
    await page.waitForURL(/\/forecast$/);
    await page.getByRole('heading', { name: 'Forecast' }).waitFor();
    const facts = page.locator('dl.limits');
    await facts.getByText('Open issues').waitFor();
    expect(await facts.locator('div', { hasText: 'Open issues' }).locator('dd').textContent()).toBe('6');
    for (const label of ['Finish, 50% likely', 'Finish, 85% likely', 'Finish, 95% likely', 'Planned finish']) {
      expect(await facts.locator('div', { hasText: label }).locator('dd time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\d$/);
    }
    expect(await facts.locator('div', { hasText: 'Chance to finish by the planned date' }).locator('dd').textContent()).toMatch(/^\d{1,3}(\.\d)?%$/);

    const bars = page.getByRole('img', { name: /Issues completed per week over the last 12 full weeks, 8 in all/ });
    await bars.waitFor();
    expect(await bars.locator('.bar').count()).toBe(12);
    expect(await page.getByRole('img', { name: /50% of the runs finish by .*planned finish/ }).count()).toBe(1);
    await page.getByText('Throughput by week').click();
    expect(await page.locator('details tbody tr').count()).toBe(12);
    await expectAccessible(page, 'the forecast');
    await h.shot('forecast');

    await page.getByLabel('Weeks of history').selectOption('4');
    await page.waitForURL(/weeks=4/);
    await page.getByRole('img', { name: /over the last 4 full weeks/ }).waitFor();

    await page.getByLabel('Compare with baseline').selectOption({ label: 'Kick-off' });
    await page.waitForURL(/baseline_id=/);
    await page.locator('dl.limits').getByText('Baseline planned finish').waitFor();
    await expectAccessible(page, 'the forecast against a baseline');
    // the choice lives in the URL: a reload keeps it
    await page.reload();
    await page.getByRole('img', { name: /over the last 4 full weeks/ }).waitFor();
    expect(await page.getByLabel('Weeks of history').inputValue()).toBe('4');
    await h.checkPhone('forecast', `/w/${h.slug}/p/${projectId}/forecast`, async (p) => {
      await p.locator('dl.limits').getByText('Open issues').waitFor();
      await expectAccessible(p, 'the forecast on a phone');
    });
  });

  it('says why there is no finish date when nothing was completed', async () => {
    const { page } = h;
    const empty = (await call('post', '/projects/', { name: 'Quiet', identifier: 'QUIET' })).id;
    await call('post', `/projects/${empty}/issues/`, { name: 'Waiting' });
    await page.goto(h.app(`/w/${h.slug}/p/${empty}/forecast`));
    await page
      .getByRole('status')
      .getByText(/No issue was completed in the last 12 full weeks/)
      .waitFor();
    expect(await page.locator('dl.limits div', { hasText: 'Finish, 50% likely' }).locator('dd').textContent()).toBe('—');
    await expectAccessible(page, 'the forecast without a finish date');
  });
});
