import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, hasChromium, type Harness, startHarness } from './harness.js';

/** The simulate panel of the SLA policy editor (contract 20.3): current against draft, per priority, before saving. */
describe.skipIf(!hasChromium)('SLA policy simulation in Chromium', () => {
  let h: Harness;
  let day = '';
  let projectId = '';
  let issueId = '';

  beforeAll(async () => {
    h = await startHarness('slasim');
    const { api, clock } = h.ctx;
    const token = h.token;
    const base = `/api/workspaces/${h.slug}`;
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
    const member = await h.signUp('Mia');
    expect((await api.post(`${base}/members/`, { email: member.email, role: 'member' }, { token })).status).toBe(201);
    const project = await api.post(`${base}/projects/`, { name: 'Support', identifier: 'SUP' }, { token });
    day = clock.now().toISOString().slice(0, 10);
    // urgent, answered after 30 minutes: met under 1 h, breached under 15 minutes
    const issue = await api.post(`${base}/projects/${project.body.id}/issues/`, { name: 'Printer on fire', priority: 'urgent' }, { token });
    projectId = project.body.id;
    issueId = issue.body.id;
    clock.advance(30 * 60_000);
    expect((await api.post(`${base}/projects/${project.body.id}/issues/${issue.body.id}/comments/`, { body: 'On it' }, { token: member.token })).status).toBe(
      201,
    );
  });

  afterAll(async () => {
    await h?.close();
  });

  it('shows current against draft per priority for an edited policy, and saves nothing', async () => {
    const { page } = h;
    await page.goto(h.app(`/w/${h.slug}/sla/policies`));
    await page.getByRole('heading', { name: 'SLA policies' }).waitFor();
    const card = page.locator('.cards > li').filter({ hasText: 'Standard' });
    await card.getByRole('button', { name: 'Edit Standard' }).click();
    await card.getByLabel('urgent response (h)').fill('0.25');
    await card.getByLabel('Issues created from').fill(day);
    await card.getByLabel('to', { exact: true }).fill(day);
    await card.getByRole('button', { name: 'Simulate' }).click();
    const table = card.getByRole('table', { name: 'Current policy against draft' });
    await table.waitFor();
    expect(await card.locator('.simulation > p').textContent()).toContain('1 issue replayed · 1 target would change');
    const urgent = table.getByRole('row', { name: /^Urgent/ });
    const cells = await urgent.getByRole('cell').allTextContents();
    expect(cells[0]).toContain('100%');
    expect(cells[0]).toContain('1 met · 0 breached · 0 open');
    expect(cells[1]).toContain('0%');
    expect(cells[1]).toContain('0 met · 1 breached · 0 open');
    expect((await table.getByRole('row', { name: /^High/ }).getByRole('cell').allTextContents())[0]).toContain('–');
    await card.getByText('Changed targets').click();
    const changed = card.locator('.simulation details li');
    expect(await changed.textContent()).toContain('Response: Met → Breached');
    // The issue by key and name, linking to it (never a raw id).
    const link = changed.getByRole('link', { name: 'SUP-1 Printer on fire' });
    expect(await link.getAttribute('href')).toBe(`/app/w/${h.slug}/p/${projectId}/issues/${issueId}`);
    await expectAccessible(page, 'the simulation, changed targets open');
    await h.shot('simulate-draft');
    // On a phone the comparison scrolls in its own box; the page does not scroll sideways.
    await h.checkPhone('simulate', `/w/${h.slug}/sla/policies`, async (p) => {
      const form = p.locator('form.policy').last();
      await form.getByLabel('urgent response (h)').fill('1');
      await form.getByLabel('urgent resolution (h)').fill('4');
      await form.getByLabel('Issues created from').fill(day);
      await form.getByLabel('to', { exact: true }).fill(day);
      await form.getByRole('button', { name: 'Simulate' }).click();
      await form.getByRole('table', { name: 'Current policy against draft' }).waitFor();
      await expectAccessible(p, 'the simulation at 390 px');
      // The edited policy's simulation too, its changed targets open: issue names wrap, nothing widens the page.
      const card = p.locator('.cards > li').filter({ hasText: 'Standard' });
      await card.getByRole('button', { name: 'Edit Standard' }).click();
      await card.getByLabel('urgent response (h)').fill('0.25');
      await card.getByLabel('Issues created from').fill(day);
      await card.getByLabel('to', { exact: true }).fill(day);
      await card.getByRole('button', { name: 'Simulate' }).click();
      // Opened by keyboard, as a keyboard user would.
      await card.getByText('Changed targets').focus();
      await p.keyboard.press('Enter');
      await card.getByRole('link', { name: 'SUP-1 Printer on fire' }).waitFor();
      await expectAccessible(p, 'the simulation with changed targets at 390 px');
    });
    const saved = await h.ctx.api.get(`/api/workspaces/${h.slug}/sla-policies/`, { token: h.token });
    expect(saved.body[0].rules[0]).toEqual({ priority: 'urgent', response_time_h: 1, resolution_time_h: 4 });
  });

  it('shows the API problem of an invalid draft in the panel', async () => {
    const { page } = h;
    const card = page.locator('.cards > li').filter({ hasText: 'Standard' });
    await card.getByLabel('urgent resolution (h)').fill('0.1');
    await card.getByRole('button', { name: 'Simulate' }).click();
    const alert = card.locator('.simulate').getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('validation_failed');
    expect(await alert.textContent()).toContain('/policy/rules/0/resolution_time_h');
  });

  it('simulates the new-policy form too, with the same draft as the current policy changing nothing', async () => {
    const { page } = h;
    await page.goto(h.app(`/w/${h.slug}/sla/policies`));
    const form = page.locator('form.policy').last();
    await form.getByLabel('urgent response (h)').fill('1');
    await form.getByLabel('urgent resolution (h)').fill('4');
    await form.getByLabel('high response (h)').fill('4');
    await form.getByLabel('high resolution (h)').fill('24');
    await form.getByLabel('Issues created from').fill(day);
    await form.getByLabel('to', { exact: true }).fill(day);
    await form.getByRole('button', { name: 'Simulate' }).click();
    await form.getByRole('table', { name: 'Current policy against draft' }).waitFor();
    expect(await form.locator('.simulation > p').textContent()).toContain('no target would change');
    const all = await form.getByRole('row', { name: /^All/ }).getByRole('cell').allTextContents();
    expect(all[0]).toBe(all[1]);
    expect(all[2]).toBe(all[3]);
  });
});
