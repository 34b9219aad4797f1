import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, hasChromium, type Harness, recordConsoleErrors, startHarness } from './harness.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const DECLINES_LATER = '4000000000000341'; // pays and is stored; every later charge: insufficient_funds

/** Waits until `done` holds (outside a test, where `expect.poll` is not available), for up to ten seconds. */
async function until(done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await done()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('timed out waiting');
}

/**
 * Issue 41: the workspace home answers "what needs me now" (my open issues, the SLA boards' totals, each project's
 * forecast, the billing state with the past_due warning), and billing in tabs (mouse, keyboard, `?tab=` in the URL)
 * offers only what makes sense for the subscription. Axe at 1280 and 390 px on the home and every billing tab.
 */
describe.skipIf(!hasChromium)('workspace home and billing tabs in Chromium', () => {
  let h: Harness;
  const errors: string[] = [];
  let dunningSlug = '';
  const call = async (method: 'get' | 'post', path: string, body?: object) => {
    const res = method === 'get' ? await h.ctx.api.get(path, { token: h.token }) : await h.ctx.api.post(path, body ?? {}, { token: h.token });
    expect(res.status, res.text).toBeLessThan(300);
    return res.body;
  };

  beforeAll(async () => {
    // The forecast's history is written in past weeks: sessions must outlive the test clock's jumps.
    h = await startHarness('home', { sessionTtlDays: 3650 });
    await recordConsoleErrors(h, errors);
    const { clock } = h.ctx;
    const base = `/api/workspaces/${h.slug}`;
    const me = await call('get', '/api/users/me/');
    await call('post', `${base}/sla-policies/`, {
      name: 'Standard',
      is_default: true,
      rules: [{ priority: 'urgent', response_time_h: 1, resolution_time_h: 4 }],
    });
    const project = await call('post', `${base}/projects/`, { name: 'Support', identifier: 'SUP' });
    await call('post', `${base}/projects/`, { name: 'Quiet', identifier: 'QUI' });
    const states = (await call('get', `${base}/projects/${project.id}/states/`)) as { id: string; group: string }[];
    const done = states.find((s) => s.group === 'completed')!.id;
    const issues = `${base}/projects/${project.id}/issues/`;
    // Three weeks of deliveries: the forecast has a pace.
    const now = Date.now();
    for (let week = 3; week >= 1; week--) {
      clock.set(new Date(now - week * 7 * DAY));
      const made = await call('post', issues, { name: `Delivered ${week}`, priority: 'low' });
      clock.set(new Date(now - week * 7 * DAY + DAY));
      await h.ctx.api.patch(`${issues}${made.id}/`, { state_id: done }, { token: h.token });
    }
    clock.set(new Date(now));
    const yesterday = new Date(now - DAY).toISOString().slice(0, 10);
    await call('post', issues, { name: 'Refund the double charge', priority: 'urgent', assignee_ids: [me.id], target_date: yesterday });
    await call('post', issues, { name: 'Answer the reseller', priority: 'medium', assignee_ids: [me.id] });
    await call('post', issues, { name: 'Nobody owns this', priority: 'high' });
    // Two hours on: the urgent issue's one-hour response target is breached.
    clock.advanceHours(2);

    // A second workspace whose renewal was declined: past due.
    dunningSlug = `${h.slug}-dunning`;
    await call('post', '/api/workspaces/', { name: 'Declined Ltd', slug: dunningSlug });
    const session = await call('post', `/api/workspaces/${dunningSlug}/billing/checkout/`, { plan_slug: 'pro', billing_interval: 'month' });
    const paid = await fetch(`${session.iframe_url}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ card_number: DECLINES_LATER }).toString(),
      redirect: 'manual',
    });
    expect(paid.status).toBe(303);
    const sub = async () => (await call('get', `/api/workspaces/${dunningSlug}/billing/subscription/`)).subscription;
    await until(async () => (await sub())?.status === 'active');
    const end = Date.parse((await sub()).current_period_end);
    await call('post', `/api/workspaces/${dunningSlug}/billing/test-clock/advance/`, { to: new Date(end + HOUR).toISOString() });
    await until(async () => (await sub())?.status === 'past_due');
  }, 120_000);

  afterAll(async () => {
    await h?.close();
  });

  /** The same page at 390 px: axe, and no sideways scrolling of the page itself. */
  const onPhone = async (what: string, path: string, ready: (p: Page) => Promise<unknown>) => {
    await h.checkPhone(what, path, ready);
    const phone = await h.browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true });
    try {
      await phone.addInitScript((t) => localStorage.setItem('wis.console.token', t), h.token);
      const p = await phone.newPage();
      await p.goto(h.app(path));
      await ready(p);
      await p.waitForLoadState('networkidle');
      await expectAccessible(p, `${what} at 390 px`);
    } finally {
      await phone.close();
    }
  };

  it('shows my open issues, the SLA totals, each project with its forecast, and the plan', async () => {
    const { page } = h;
    await page.goto(h.app(`/w/${h.slug}`));
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    const mine = page.getByRole('region', { name: 'My open issues' });
    const rows = mine.locator('.home-issues > li');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(2);
    // Overdue first, by key, title, state by name, priority and due date.
    const first = rows.first();
    expect(await first.getByRole('link').textContent()).toBe('SUP-4 Refund the double charge');
    expect(await first.textContent()).toContain('Backlog');
    expect(await first.textContent()).toMatch(/Overdue, was due/);
    expect(await first.getByText('Priority: Urgent').count()).toBe(1);
    expect(await rows.nth(1).textContent()).toContain('No due date');
    expect(await mine.textContent()).not.toContain('Nobody owns this');
    expect(await mine.getByRole('link', { name: 'All 2 assigned to me' }).getAttribute('href')).toBe(`/app/w/${h.slug}/my-issues`);

    const sla = page.getByRole('region', { name: 'Service levels' });
    const breached = sla.getByRole('link', { name: /targets? breached/ });
    await breached.waitFor();
    expect(await breached.textContent()).toMatch(/^[1-9]\d* targets? breached$/);
    expect(await breached.getAttribute('href')).toBe(`/app/w/${h.slug}/sla/breached`);
    expect(await sla.getByRole('link', { name: /at risk/ }).getAttribute('href')).toBe(`/app/w/${h.slug}/sla/at-risk`);

    const projects = page.getByRole('region', { name: 'Projects', exact: true });
    const support = projects.locator('li').filter({ hasText: 'Support' });
    await support.getByText(/Likely done by/).waitFor();
    expect(await support.textContent()).toContain('3 open');
    await projects.locator('li').filter({ hasText: 'Quiet' }).getByText('No open issues: nothing to forecast.').waitFor();

    const plan = page.getByRole('region', { name: 'Plan', exact: true });
    await plan.getByText('No subscription: the workspace is on the free plan.').waitFor();
    expect(await page.getByRole('heading', { name: 'Payment needed' }).count()).toBe(0);
    await page.waitForLoadState('networkidle');
    await h.shot('home');
    await expectAccessible(page, 'the home');
    await onPhone('home', `/w/${h.slug}`, (p) => p.getByText(/Likely done by/).waitFor());
    expect(errors).toEqual([]);
  });

  it('warns on the home and on billing of a past due workspace, with a link to pay', async () => {
    const { page } = h;
    await page.goto(h.app(`/w/${dunningSlug}`));
    const alert = page.getByRole('region', { name: 'Payment needed' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Past due');
    expect(await alert.textContent()).not.toContain('past_due');
    await alert.getByRole('link', { name: 'Open billing to pay' }).click();
    await page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
    const dunning = page.getByRole('region', { name: 'Dunning' });
    await dunning.getByRole('button', { name: 'Retry now' }).waitFor();
    const lastFailure = dunning.locator('dl.limits > div').filter({ hasText: 'Last failure' }).locator('dd');
    expect(await lastFailure.textContent()).toBe('Insufficient funds');
    // Past due on Pro: no trial, Pro can be paid for again.
    expect(await page.getByRole('button', { name: /trial/ }).count()).toBe(0);
    expect(await page.getByLabel('Plan', { exact: true }).locator('option').allTextContents()).toEqual(['Pro', 'Business']);
    await h.shot('billing-past-due');
    await expectAccessible(page, 'billing of a past due workspace');
    await onPhone('home-past-due', `/w/${dunningSlug}`, (p) => p.getByRole('region', { name: 'Payment needed' }).waitFor());
    expect(errors).toEqual([]);
  });

  it('switches the billing tabs by mouse and by keyboard, the tab in the URL', async () => {
    const { page } = h;
    await page.goto(h.app(`/w/${h.slug}/billing`));
    const tabs = page.getByRole('tablist', { name: 'Billing' });
    const tab = (name: string) => tabs.getByRole('tab', { name });
    await page.getByRole('heading', { name: 'Subscription and limits' }).waitFor();
    expect(await tab('Plan and usage').getAttribute('aria-selected')).toBe('true');

    await tab('Payment methods').click();
    await page.getByText('No stored card').waitFor();
    expect(new URL(page.url()).search).toBe('?tab=payment-methods');
    expect(await page.getByRole('tabpanel', { name: 'Payment methods' }).count()).toBe(1);

    // The keyboard: one tab stop, arrows move and select, Home and End.
    await tab('Payment methods').focus();
    await page.keyboard.press('ArrowRight');
    await page.getByRole('heading', { name: 'Invoices', exact: true }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Invoices and documents');
    expect(new URL(page.url()).search).toBe('?tab=documents');
    await page.keyboard.press('End');
    await page.getByRole('heading', { name: 'Billing profile' }).waitFor();
    expect(await tab('Profile').getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowRight');
    await page.getByRole('heading', { name: 'Subscription and limits' }).waitFor();
    expect(new URL(page.url()).search).toBe('');
    await page.keyboard.press('ArrowLeft');
    await page.getByRole('heading', { name: 'Billing profile' }).waitFor();
    await page.keyboard.press('Home');
    await page.getByRole('heading', { name: 'Subscription and limits' }).waitFor();
    expect(await page.locator('[role="tab"][tabindex="0"]').count()).toBe(1);

    // Opened from its URL.
    await page.goto(h.app(`/w/${h.slug}/billing?tab=profile`));
    await page.getByRole('heading', { name: 'Billing profile' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('offers a trial only to a workspace that never had one, and no checkout of the plan it pays for', async () => {
    const { page } = h;
    await page.goto(h.app(`/w/${h.slug}/billing`));
    // Never subscribed: a trial of each plan that has one, every paid plan to buy.
    await page.getByRole('button', { name: 'Start 14-day Pro trial' }).waitFor();
    expect(await page.getByRole('button', { name: /trial/ }).count()).toBe(2);
    await page.getByRole('heading', { name: 'Buy a plan' }).waitFor();

    await page.getByRole('button', { name: 'Start 14-day Pro trial' }).click();
    await page.locator('.card').getByText('Trial', { exact: true }).waitFor();
    // In a trial: no other trial; Pro can be paid for (keeping it after the trial), and Business.
    expect(await page.getByRole('button', { name: /trial/ }).count()).toBe(0);
    expect(await page.getByLabel('Plan', { exact: true }).locator('option').allTextContents()).toEqual(['Pro', 'Business']);

    // Paid Pro: no trial and no checkout of Pro.
    const session = await call('post', `/api/workspaces/${h.slug}/billing/checkout/`, { plan_slug: 'pro', billing_interval: 'month' });
    const paid = await fetch(`${session.iframe_url}/pay`, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);
    await expect.poll(async () => (await call('get', `/api/workspaces/${h.slug}/billing/subscription/`)).subscription.status).toBe('active');
    await page.reload();
    await page.locator('.card').getByText('Active', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: /trial/ }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Change or pay for a plan' }).count()).toBe(1);
    expect(await page.getByLabel('Plan', { exact: true }).locator('option').allTextContents()).toEqual(['Business']);
    expect(await page.getByRole('button', { name: 'Retry now' }).count()).toBe(0);
    expect(await page.locator('.plans .current h3').textContent()).toMatch(/^Pro/);
    expect(errors).toEqual([]);
  });

  it('has no axe violation on any billing tab at 1280 and 390 px, and no sideways page scroll on a phone', async () => {
    const { page } = h;
    const tabs: [string, string, (p: Page) => Promise<unknown>][] = [
      ['plan', '', (p) => p.getByRole('heading', { name: 'Plans' }).waitFor()],
      ['payment-methods', '?tab=payment-methods', (p) => p.locator('.billing-panel .table-wrap, .billing-panel .empty').first().waitFor()],
      ['documents', '?tab=documents', (p) => p.getByRole('region', { name: 'Payments' }).waitFor()],
      ['profile', '?tab=profile', (p) => p.getByLabel('Legal name').waitFor()],
    ];
    for (const [name, query, ready] of tabs) {
      await page.goto(h.app(`/w/${h.slug}/billing${query}`));
      await ready(page);
      await page.waitForLoadState('networkidle');
      await expectAccessible(page, `billing tab ${name}`);
      // The payments table fits the page at 1280 px: no scrolling inside its region either.
      if (name === 'documents') {
        const region = page.getByRole('region', { name: 'Payments' });
        expect(await region.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
        expect(await region.textContent()).toContain('Pro, monthly');
        const invoices = page.getByRole('region', { name: 'Invoices' });
        expect(await invoices.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
      }
      await h.shot(`billing-${name}`);
      await onPhone(`billing-${name}`, `/w/${h.slug}/billing${query}`, ready);
    }
    expect(errors).toEqual([]);
  }, 120_000);
});
