import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, hasChromium, type Harness, recordConsoleErrors, startHarness } from './harness.js';

/**
 * Contract 19.8 in Chromium: checkout through the console saving the card, the stored cards (default, make default,
 * remove), the sandbox's test clock box, the dunning state after a declined renewal and "Retry now", and the usage
 * against the plan's limits. No page error, console error or CSP violation on the way.
 */
const DECLINES_LATER = '4000000000000341'; // pays and is stored; every later charge: insufficient_funds
const PAYS = '4355084355084358';

describe.skipIf(!hasChromium)('billing collection in Chromium', () => {
  let h: Harness;
  const errors: string[] = [];
  /** Console errors the test causes on purpose (a 404 it answers itself), by URL part. */
  const expected: string[] = [];
  const billingUrl = (rest: string) => `/api/workspaces/${h.slug}/billing/${rest}`;
  const subscription = async () => (await h.ctx.api.get(billingUrl('subscription/'), { token: h.token })).body.subscription as Record<string, any>;

  beforeAll(async () => {
    h = await startHarness('billing-collection');
    await recordConsoleErrors(h, errors, expected);
    h.page.on('dialog', (d) => void d.accept());
  });

  afterAll(async () => {
    await h?.close();
  });

  const card = () => h.page.locator('.card').filter({ has: h.page.getByRole('term').filter({ hasText: 'Members' }) });
  const fact = (term: string) =>
    card()
      .locator('dl.limits > div')
      .filter({ has: h.page.getByRole('term').filter({ hasText: new RegExp(`^${term}$`) }) })
      .locator('dd');
  const factText = async (term: string) => ((await fact(term).textContent()) ?? '').trim();
  /** Billing is in tabs (issue 41): each part of the test opens the tab it needs. */
  const openTab = async (name: 'Plan and usage' | 'Payment methods' | 'Invoices and documents') => {
    await h.page.getByRole('tab', { name }).click();
    await h.page.getByRole('tabpanel', { name }).waitFor();
  };

  it('shows usage against the limits and checks out in the iframe with "save card", the card listed as default', async () => {
    const { page } = h;
    const project = await h.ctx.api.post(`/api/workspaces/${h.slug}/projects/`, { name: 'Apollo', identifier: 'APO' }, { token: h.token });
    expect(project.status, project.text).toBe(201);
    await page.goto(h.app(`/w/${h.slug}/billing`));
    await page.getByRole('heading', { name: 'Subscription and limits' }).waitFor();
    // free plan: 5 members, 3 projects
    await expect.poll(() => factText('Members')).toBe('1 of 5');
    expect(await factText('Projects')).toBe('1 of 3');
    expect(await fact('Members').locator('meter').getAttribute('value')).toBe('1');
    await openTab('Payment methods');
    await page.getByText('No stored card').waitFor();
    await openTab('Plan and usage');
    // the sandbox's test clock box: the billing time (the test app's clock)
    const clockBox = page.getByRole('region', { name: 'Test clock (sandbox)' });
    await clockBox.getByText('Billing time', { exact: true }).waitFor();

    const save = page.getByLabel('Save card for automatic renewal');
    expect(await save.isChecked()).toBe(true);
    await page.getByLabel('Plan', { exact: true }).selectOption('pro');
    const sent = page.waitForRequest((r) => r.url().endsWith('/billing/checkout/') && r.method() === 'POST');
    await page.getByRole('button', { name: 'Go to payment' }).click();
    expect((await sent).postDataJSON()).toMatchObject({ plan_slug: 'pro', billing_interval: 'month', save_card: true });
    const frame = page.frameLocator('iframe[title="Payment page"]');
    await frame.getByLabel('Card number').fill(DECLINES_LATER);
    await h.shot('checkout');
    await frame.getByRole('button', { name: /^Pay / }).click();
    await frame.getByRole('heading', { name: 'Payment received' }).waitFor();
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'refresh the subscription' }).click();
          return card().getByText('Active', { exact: true }).count();
        },
        { timeout: 20_000 },
      )
      .toBe(1);
    // pro: 50 members, unlimited projects
    await expect.poll(() => factText('Members')).toBe('1 of 50');
    expect(await factText('Projects')).toBe('1 used (unlimited)');

    await openTab('Payment methods');
    const row = page.getByRole('row', { name: /visa •••• 0341/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('12/2030');
    expect(await row.getByText('Default', { exact: true }).count()).toBe(1);
    expect(await row.getByRole('button', { name: /Make .* default/ }).count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('advances the test clock past the period end: past_due, one failed attempt and the reason; Retry now fails again', async () => {
    const { page } = h;
    const before = await subscription();
    const periodEnd = before.current_period_end as string;
    await openTab('Plan and usage');
    const clockBox = page.getByRole('region', { name: 'Test clock (sandbox)' });
    // two hours past the period end, as the browser's local time of a datetime-local input
    const to = await page.evaluate((iso) => {
      const d = new Date(new Date(iso).getTime() + 2 * 3_600_000);
      const p = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
    }, periodEnd);
    await clockBox.getByLabel('Advance to').fill(to);
    await clockBox.getByRole('button', { name: 'Advance' }).click();
    await card().getByText('Past due', { exact: true }).waitFor();
    const clock = (await h.ctx.api.get(billingUrl('test-clock/'), { token: h.token })).body;
    expect(new Date(clock.now).getTime()).toBeGreaterThan(new Date(periodEnd).getTime());
    expect(clock.offset_seconds).toBeGreaterThan(0);

    const dunning = page.getByRole('region', { name: 'Dunning' });
    const dd = (term: string) => dunning.locator('dl.limits > div').filter({ hasText: term }).locator('dd');
    await expect.poll(() => dd('Failed attempts').textContent()).toBe('1');
    expect(await dd('Last failure').textContent()).toBe('Insufficient funds');
    const sub = await subscription();
    expect(sub.dunning).toMatchObject({ attempts: 1, last_failure_reason: 'insufficient_funds' });
    expect(sub.dunning.next_retry_at).not.toBeNull();
    expect(await dd('Next retry').textContent()).not.toBe('no retry scheduled');
    await h.shot('past-due');
    await expectAccessible(page, 'the billing page of a past_due subscription');
    // the declined renewal is in the payments, its status and reason by name
    await openTab('Invoices and documents');
    const renewal = page.getByRole('row', { name: /Renewal/ });
    await renewal.waitFor();
    expect(await renewal.textContent()).toContain('Failed');
    expect(await renewal.textContent()).toContain('Insufficient funds');
    expect(await renewal.textContent()).not.toContain('insufficient_funds');
    await page.waitForLoadState('networkidle');
    await expectAccessible(page, 'the payments of a past_due subscription');
    await openTab('Plan and usage');

    await dunning.getByRole('button', { name: 'Retry now' }).click();
    const outcome = dunning.getByRole('status');
    await outcome.waitFor();
    expect(await outcome.textContent()).toMatch(/^Retry of .*: Failed Insufficient funds$/);
    await expect.poll(() => dd('Failed attempts').textContent()).toBe('2');
    await openTab('Invoices and documents');
    await page.getByRole('row', { name: /Retry/ }).first().waitFor();
    const payments = (await h.ctx.api.get(billingUrl('payments/'), { token: h.token })).body.results as { kind: string; status: string }[];
    expect(payments.map((p) => [p.kind, p.status])).toEqual([
      ['retry', 'failed'],
      ['renewal', 'failed'],
      ['checkout', 'success'],
    ]);
    await h.shot('retry-failed');
    expect(errors).toEqual([]);
  });

  it('makes a card the default and removes one (asked first)', async () => {
    const { page } = h;
    // a second card by a checkout paid on the sandbox's page: it becomes the default and ends the dunning
    const session = await h.ctx.api.post(billingUrl('checkout/'), { plan_slug: 'pro', billing_interval: 'month' }, { token: h.token });
    expect(session.status, session.text).toBe(201);
    const paid = await fetch(`${session.body.iframe_url}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ card_number: PAYS }).toString(),
      redirect: 'manual',
    });
    expect(paid.status).toBe(303);
    await expect.poll(async () => (await subscription()).status).toBe('active');

    await page.goto(h.app(`/w/${h.slug}/billing`));
    await card().getByText('Active', { exact: true }).waitFor();
    expect(await page.getByRole('region', { name: 'Dunning' }).count()).toBe(0);
    await openTab('Payment methods');
    expect(new URL(page.url()).search).toBe('?tab=payment-methods');
    const newer = page.getByRole('row', { name: /visa •••• 4358/ });
    const older = page.getByRole('row', { name: /visa •••• 0341/ });
    await newer.getByText('Default', { exact: true }).waitFor();
    expect(await older.getByText('Default', { exact: true }).count()).toBe(0);

    await older.getByRole('button', { name: 'Make visa •••• 0341 default' }).click();
    await older.getByText('Default', { exact: true }).waitFor();
    expect(await newer.getByText('Default', { exact: true }).count()).toBe(0);
    await h.shot('cards');

    await newer.getByRole('button', { name: 'Remove visa •••• 4358' }).click();
    await newer.waitFor({ state: 'detached' });
    const left = (await h.ctx.api.get(billingUrl('payment-methods/'), { token: h.token })).body as { last4: string; is_default: boolean }[];
    expect(left.map((m) => [m.last4, m.is_default])).toEqual([['0341', true]]);
    expect(errors).toEqual([]);
  });

  it('hides the test clock box when the API has none (not the sandbox: 404)', async () => {
    const { page } = h;
    expected.push('/billing/test-clock/');
    await page.route('**/billing/test-clock/', (route) =>
      route.fulfill({
        status: 404,
        contentType: 'application/problem+json',
        body: JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, code: 'not_found', detail: 'Not found' }),
      }),
    );
    await page.goto(h.app(`/w/${h.slug}/billing`));
    await page.getByRole('heading', { name: 'Subscription and limits' }).waitFor();
    await card().getByText('Active', { exact: true }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(await page.getByRole('heading', { name: 'Test clock (sandbox)' }).count()).toBe(0);
    expect(await page.locator('.problem').count()).toBe(0);
    await page.unroute('**/billing/test-clock/');
    expect(errors).toEqual([]);
  });

  it('works on a phone-sized screen', async () => {
    await h.checkPhone('billing', `/w/${h.slug}/billing`, (p) => p.getByRole('heading', { name: 'Plans' }).waitFor());
    await h.checkPhone('billing-cards', `/w/${h.slug}/billing?tab=payment-methods`, (p) => p.getByRole('row', { name: /visa •••• 0341/ }).waitFor());
    await h.checkPhone('billing-payments', `/w/${h.slug}/billing?tab=documents`, (p) => p.getByRole('row', { name: /Retry/ }).first().waitFor());
  });
});
