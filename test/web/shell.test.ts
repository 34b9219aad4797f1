/**
 * The console's shell (issue 41): the header bar and the workspace's sidebar. At 1280 px the sidebar's groups sit beside
 * the page and mark the current page; on a 390 px phone the header is one short bar plus the search, and the sidebar
 * folds behind "Menu" (aria-expanded), opens, leads to a page and closes again. axe finds nothing in either state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, hasChromium, type Harness, startHarness } from './harness.js';

describe.skipIf(!hasChromium)('console shell', () => {
  let h: Harness;
  let projectId: string;

  beforeAll(async () => {
    h = await startHarness('shell');
    const res = await h.ctx.api.post(`/api/workspaces/${h.slug}/projects/`, { name: 'Service Desk', identifier: 'SD' }, { token: h.token });
    expect(res.status, res.text).toBe(201);
    projectId = res.body.id as string;
  });
  afterAll(() => h?.close());

  it('shows the sidebar beside the page at 1280 px, marking the current page and the list above an issue page', async () => {
    const { page } = h;
    await page.goto(h.app(`/w/${h.slug}/sla/breached`));
    await page.getByRole('heading', { name: 'SLA breached', level: 1 }).waitFor();
    const workspace = page.getByRole('navigation', { name: 'Workspace' });
    expect(await workspace.getByRole('link', { name: 'SLA breached' }).getAttribute('aria-current')).toBe('page');
    expect(await workspace.getByRole('link', { name: 'Home' }).getAttribute('aria-current')).toBeNull();
    expect(await page.getByRole('button', { name: 'Menu' }).isVisible()).toBe(false);
    await expectAccessible(page, 'shell at 1280 px');

    await page.goto(h.app(`/w/${h.slug}/p/${projectId}/issues/new`));
    await page.locator('main h1').waitFor();
    const project = page.getByRole('navigation', { name: 'Project' });
    expect(await project.getByRole('link', { name: 'Issues' }).getAttribute('aria-current')).toBe('page');
    await project.getByRole('link', { name: 'Board' }).click();
    await page.waitForURL(/\/board$/);
    expect(await project.getByRole('link', { name: 'Board' }).getAttribute('aria-current')).toBe('page');
  });

  it('folds the sidebar behind Menu on a phone: a short header, the menu opens, leads to a page and closes', async () => {
    const phone = await h.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, deviceScaleFactor: 2 });
    await phone.addInitScript((t) => localStorage.setItem('wis.console.token', t), h.token);
    try {
      const page = await phone.newPage();
      await page.goto(h.app(`/w/${h.slug}/projects`));
      await page.locator('main h1').waitFor();
      const header = await page.locator('header.shell').boundingBox();
      expect(header!.height, 'header height on a phone').toBeLessThanOrEqual(110);
      const menu = page.getByRole('button', { name: 'Menu' });
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(await page.getByRole('navigation', { name: 'Workspace' }).isVisible()).toBe(false);
      expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(false);
      await expectAccessible(page, 'shell on a phone, menu closed');

      await menu.click();
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      await page.getByRole('navigation', { name: 'Workspace' }).waitFor();
      expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
      await expectAccessible(page, 'shell on a phone, menu open');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);

      await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Members' }).click();
      await page.waitForURL(/\/members$/);
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(await page.getByRole('navigation', { name: 'Workspace' }).isVisible()).toBe(false);
    } finally {
      await phone.close();
    }
  });

  it("shows times in the user's profile time zone once known", async () => {
    const me = await h.ctx.api.patch('/api/users/me/', { time_zone: 'Asia/Tokyo' }, { token: h.token });
    expect(me.status, me.text).toBe(200);
    const { page } = h;
    await page.goto(h.app(`/w/${h.slug}/projects`));
    await page.locator('main h1').waitFor();
    await page.waitForFunction(() => localStorage.getItem('wis.console.tz') === 'Asia/Tokyo');
  });
});
