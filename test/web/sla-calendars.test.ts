import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { expectAccessible, hasChromium, type Harness, startHarness } from './harness.js';

/** The text of the messages a control points at with aria-describedby (its hint and the API's field errors). */
async function describedText(page: Page, label: string): Promise<string> {
  const ids = (await page.getByLabel(label, { exact: true }).getAttribute('aria-describedby')) ?? '';
  const texts = await Promise.all(
    ids
      .split(' ')
      .filter(Boolean)
      .map((id) => page.locator(`[id="${id}"]`).textContent()),
  );
  return texts.join(' | ');
}

describe.skipIf(!hasChromium)('SLA calendars, policies and states in Chromium', () => {
  let h: Harness;
  let projectId = '';
  let calendarId = '';

  beforeAll(async () => {
    h = await startHarness('sla');
    h.page.on('dialog', (d) => void d.accept());
    const p = await h.ctx.api.post(`/api/workspaces/${h.slug}/projects/`, { name: 'Support', identifier: 'SUP' }, { token: h.token });
    projectId = p.body.id;
  });

  afterAll(async () => {
    await h?.close();
  });

  it('shows the API field errors of a calendar next to the fields they name', async () => {
    const { page } = h;
    await page.goto(h.app(`/w/${h.slug}/sla/calendars`));
    await page.getByRole('heading', { name: 'SLA calendars' }).waitFor();
    await page.getByText('No calendars yet').waitFor();
    await h.shot('calendars-empty');
    await expectAccessible(page, 'the calendars page, empty');
    await page.getByLabel('Calendar name').fill('Istanbul office');
    await page.getByLabel('Time zone').fill('Mars/Olympus_Mons');
    // The new form starts with Mon-Fri 09:00-17:00; make Tuesday end before it starts.
    await page.getByLabel('End (2)').fill('08:00');
    await page.getByRole('button', { name: 'Create calendar' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('validation_failed');
    expect(await describedText(page, 'Time zone')).toContain('is not a known IANA time zone');
    expect(await describedText(page, 'End (2)')).toContain('must be after start');
    expect(await describedText(page, 'End (1)')).not.toContain('must be');
    expect(await page.locator('.field.invalid').count()).toBe(2);
    await h.shot('calendars-field-errors');
  });

  it('creates a calendar with working hours and a recurring holiday', async () => {
    const { page } = h;
    await page.getByLabel('Time zone').fill('Europe/Istanbul');
    await page.getByLabel('End (2)').fill('17:00');
    await page.getByRole('button', { name: 'Add holiday' }).click();
    await page.getByLabel('Date (1)').fill('2026-10-29');
    await page.getByLabel('Holiday name (1)').fill('Republic Day');
    await page.getByLabel('Every year (1)').check();
    await page.getByRole('button', { name: 'Create calendar' }).click();
    const card = page.locator('.cards > li').filter({ hasText: 'Istanbul office' });
    await card.waitFor();
    expect(await card.textContent()).toContain('Europe/Istanbul · Mon, Tue, Wed, Thu, Fri 9:00 AM–5:00 PM');
    expect(await card.textContent()).toContain('1 holiday: Republic Day (Oct 29, 2026, every year)');
    expect(await page.getByRole('alert').count()).toBe(0);
    const list = await h.ctx.api.get(`/api/workspaces/${h.slug}/sla-calendars/`, { token: h.token });
    expect(list.body).toHaveLength(1);
    calendarId = list.body[0].id;
    expect(list.body[0].holidays).toEqual([{ date: '2026-10-29', name: 'Republic Day', recurring: true }]);
    expect(list.body[0].working_hours).toHaveLength(5);
  });

  it('edits a calendar: an overlapping interval is refused on its row, then saved without it', async () => {
    const { page } = h;
    const card = page.locator('.cards > li').filter({ hasText: 'Istanbul office' });
    await card.getByRole('button', { name: 'Edit Istanbul office' }).click();
    await card.getByLabel('Calendar name').fill('Istanbul support');
    await card.getByRole('button', { name: 'Add hours' }).click();
    await card.getByLabel('Day (6)').selectOption('mon');
    await card.getByLabel('Start (6)').fill('12:00');
    await card.getByLabel('End (6)').fill('18:00');
    await card.getByRole('button', { name: 'Save calendar' }).click();
    const rowError = card.locator('.rows > li').nth(5).locator('.field-error');
    await rowError.waitFor();
    expect(await rowError.textContent()).toContain('overlaps');
    await h.shot('calendars-overlap');
    await card.getByRole('button', { name: 'Remove working hours 6' }).click();
    await card.getByLabel('Day (5)').selectOption('sat');
    await card.getByRole('button', { name: 'Save calendar' }).click();
    await page
      .locator('.cards > li')
      .filter({ hasText: 'Istanbul support' })
      .getByText(/Mon, Tue, Wed, Thu, Sat 9:00 AM–5:00 PM/)
      .waitFor();
    const saved = await h.ctx.api.get(`/api/workspaces/${h.slug}/sla-calendars/${calendarId}/`, { token: h.token });
    expect(saved.body.name).toBe('Istanbul support');
    expect(saved.body.working_hours.map((w: { day: string }) => w.day)).toEqual(['mon', 'tue', 'wed', 'thu', 'sat']);
    await expectAccessible(page, 'the calendars page');
    await h.checkPhone('calendars', `/w/${h.slug}/sla/calendars`, async (p) => {
      await p.locator('.cards > li').first().waitFor();
      await expectAccessible(p, 'the calendars page at 390 px');
    });
  });

  it('creates a policy on the calendar with an at-risk percent, and shows its field errors', async () => {
    const { page } = h;
    await page.goto(h.app(`/w/${h.slug}/sla/policies`));
    await page.getByRole('heading', { name: 'SLA policies' }).waitFor();
    await page.getByText('No SLA policies yet').waitFor();
    expect(await page.getByLabel('At risk at (%)').inputValue()).toBe('75');
    await page.evaluate(() => document.querySelectorAll('form').forEach((f) => f.setAttribute('novalidate', '')));
    await page.getByLabel('Policy name').fill('Support hours');
    await page.getByLabel('Calendar').selectOption({ label: 'Istanbul support (Europe/Istanbul)' });
    await page.getByLabel('At risk at (%)').fill('150');
    await page.getByLabel('urgent response (h)').fill('1');
    await page.getByLabel('urgent resolution (h)').fill('8');
    await page.getByRole('button', { name: 'Create policy' }).click();
    await page.getByRole('alert').waitFor();
    expect(await describedText(page, 'At risk at (%)')).toMatch(/1–99.*\|.+/);
    // What was typed is still there after the error.
    expect(await page.getByLabel('Policy name').inputValue()).toBe('Support hours');
    expect(await page.getByLabel('urgent response (h)').inputValue()).toBe('1');
    await page.getByLabel('At risk at (%)').fill('80');
    await page.getByRole('button', { name: 'Create policy' }).click();
    const card = page.locator('.cards > li').filter({ hasText: 'Support hours' });
    await card.waitFor();
    expect(await card.textContent()).toContain('Urgent: respond in 1 hr, resolve in 8 hr');
    expect(await card.textContent()).toContain('Calendar: Istanbul support (working time, Europe/Istanbul) · at risk at 80%');
    const policies = await h.ctx.api.get(`/api/workspaces/${h.slug}/sla-policies/`, { token: h.token });
    expect(policies.body[0]).toMatchObject({ name: 'Support hours', calendar_id: calendarId, at_risk_percent: 80 });
    // Edit: no calendar, no at-risk warning.
    await card.getByRole('button', { name: 'Edit' }).click();
    await card.getByLabel('Calendar').selectOption('');
    await card.getByLabel('At risk at (%)').fill('');
    await card.getByRole('button', { name: 'Save policy' }).click();
    await card.getByText('Calendar: none (24/7) · at risk at no warning').waitFor();
    const edited = await h.ctx.api.get(`/api/workspaces/${h.slug}/sla-policies/`, { token: h.token });
    expect(edited.body[0]).toMatchObject({ calendar_id: null, at_risk_percent: null });
    await h.shot('policies');
    await h.checkPhone('policies', `/w/${h.slug}/sla/policies`);
  });

  it('refuses to delete a calendar a policy uses, as the API states it', async () => {
    const { page } = h;
    const policies = await h.ctx.api.get(`/api/workspaces/${h.slug}/sla-policies/`, { token: h.token });
    await h.ctx.api.patch(`/api/workspaces/${h.slug}/sla-policies/${policies.body[0].id}/`, { calendar_id: calendarId }, { token: h.token });
    await page.goto(h.app(`/w/${h.slug}/sla/calendars`));
    await page.getByRole('button', { name: 'Delete Istanbul support' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('409');
    await h.ctx.api.patch(`/api/workspaces/${h.slug}/sla-policies/${policies.body[0].id}/`, { calendar_id: null }, { token: h.token });
    await page.getByRole('button', { name: 'Delete Istanbul support' }).click();
    await page.getByText('No calendars yet').waitFor();
  });

  it('edits the states of a project with pauses_sla', async () => {
    const { page } = h;
    await page.goto(h.app(`/w/${h.slug}/p/${projectId}/issues`));
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'States' }).click();
    await page.getByRole('heading', { name: 'States' }).waitFor();
    await page.locator('.cards > li').nth(4).waitFor();
    expect(await page.locator('.cards > li').count()).toBe(5);
    expect(await page.getByText('pauses SLA', { exact: true }).count()).toBe(0);
    await page.getByLabel('State name').fill('Waiting on customer');
    await page.getByLabel('Group').selectOption('started');
    await page.getByLabel('Pauses SLA').check();
    await page.getByRole('button', { name: 'Add state' }).click();
    const card = page.locator('.cards > li').filter({ hasText: 'Waiting on customer' });
    await card.getByText('pauses SLA', { exact: true }).waitFor();
    expect(await page.getByLabel('State name').inputValue()).toBe('');
    const states = await h.ctx.api.get(`/api/workspaces/${h.slug}/projects/${projectId}/states/`, { token: h.token });
    const waiting = states.body.find((s: { name: string }) => s.name === 'Waiting on customer');
    expect(waiting).toMatchObject({ group: 'started', pauses_sla: true });
    await h.shot('states');
    // Editing Todo: it pauses too, and is renamed.
    const todo = page.locator('.cards > li').filter({ hasText: 'Todo' });
    await todo.getByRole('button', { name: 'Edit Todo' }).click();
    await todo.getByLabel('State name').fill('To do');
    await todo.getByLabel('Pauses SLA').check();
    await todo.getByRole('button', { name: 'Save state' }).click();
    await page.locator('.cards > li').filter({ hasText: 'To do' }).getByText('pauses SLA', { exact: true }).waitFor();
    // The new-issue form says which states pause the SLA.
    await page.goto(h.app(`/w/${h.slug}/p/${projectId}/issues/new`));
    await page.getByRole('option', { name: 'Waiting on customer (pauses SLA)' }).waitFor({ state: 'attached' });
    await h.checkPhone('states', `/w/${h.slug}/p/${projectId}/states`);
  });
});
