import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, hasChromium, type Harness, recordConsoleErrors, startHarness } from './harness.js';

/**
 * Issue 41, the issue page: every field edited in place and saved on change (title, description in Markdown, state by
 * name, priority, assignees, dates, estimate, custom values), checked through the API and after a reload; a refused
 * change shown next to its field with the old value kept; the activity feed; the assignee picker by keyboard; a
 * hostile description neutralised; axe at 1280 and 390 px; the phone's first load of JavaScript within budget.
 */
const BUDGET = 120_000;

describe.skipIf(!hasChromium)('the issue page, everything edited in place, in Chromium', () => {
  let h: Harness;
  let projectId = '';
  let bobId = '';
  let adaId = '';
  const ids: Record<string, string> = {};
  const states: Record<string, string> = {};
  const errors: string[] = [];
  // Console errors the tests cause on purpose: an issue without an SLA rule (404, shown as such), and the refused changes.
  const expected: string[] = ['/sla/'];
  const W = () => `/api/workspaces/${h.slug}`;
  const call = async (method: 'post' | 'patch' | 'get' | 'put', path: string, body?: unknown, token = h.token) => {
    const res = method === 'get' ? await h.ctx.api.get(`${W()}${path}`, { token }) : await h.ctx.api[method](`${W()}${path}`, body, { token });
    expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
    return res.body;
  };
  const issue = (name: string) => call('get', `/projects/${projectId}/issues/${ids[name]}/`);
  const issuePath = (name: string) => `/w/${h.slug}/p/${projectId}/issues/${ids[name]}`;
  const open = async (name: string, p: Page = h.page) => {
    await p.goto(h.app(issuePath(name)));
    await p.locator('.issue-meta .issue-key').waitFor();
    await p.locator('ol.activity').waitFor();
  };
  const patched = (p: Page, name: string) => p.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().includes(`/issues/${ids[name]}/`));
  const put = (p: Page) => p.waitForResponse((r) => r.request().method() === 'PUT' && r.url().includes('/custom-values/'));
  const status = () => h.page.locator('.save-status');

  beforeAll(async () => {
    h = await startHarness('issue-page');
    await recordConsoleErrors(h, errors, expected);
    adaId = (await h.ctx.api.get('/api/users/me/', { token: h.token })).body.id;
    const bob = await h.signUp('Bob');
    bobId = bob.userId;
    await call('post', '/members/', { email: bob.email, role: 'member' });
    await call('post', '/billing/trial/', { plan_slug: 'pro' });
    await call('post', '/sla-policies/', { name: 'Standard', is_default: true, rules: [{ priority: 'urgent', response_time_h: 2, resolution_time_h: 8 }] });
    projectId = (await call('post', '/projects/', { name: 'Service desk', identifier: 'SD' })).id;
    for (const s of (await call('get', `/projects/${projectId}/states/`)) as { id: string; name: string }[]) states[s.name] = s.id;
    await call('post', `/projects/${projectId}/custom-properties/`, { name: 'Points', type: 'number' });
    await call('post', `/projects/${projectId}/custom-properties/`, { name: 'Size', type: 'select', options: ['S', 'M', 'L'] });
    await call('post', `/projects/${projectId}/custom-properties/`, { name: 'Tags', type: 'multi_select', options: ['ui', 'api', 'db'] });
    for (const name of ['Checkout fails', 'Refused dates'])
      ids[name] = (await call('post', `/projects/${projectId}/issues/`, { name, priority: 'urgent', description: 'First seen **yesterday**.' })).id;
    expected.push(`/issues/${ids['Refused dates']}/`);
  });

  afterAll(async () => {
    await h?.close();
  });

  it('shows the key, the state by name and the title; edits the title in place (click, Enter, Escape, the button, leaving it)', async () => {
    const { page } = h;
    await open('Checkout fails');
    await expect.poll(() => page.locator('.issue-meta .issue-key').textContent()).toBe('SD-1');
    expect(await page.locator('.issue-meta .state-badge').textContent()).toBe('Backlog');
    const title = page.locator('main h1');
    expect(await title.textContent()).toBe('Checkout fails');
    expect(await page.title()).toContain('Checkout fails');

    await title.click();
    const input = page.getByLabel('Title', { exact: true });
    await input.fill('Checkout fails on Safari');
    const saved = patched(page, 'Checkout fails');
    await input.press('Enter');
    expect((await saved).status()).toBe(200);
    await status().getByText('Title saved').waitFor();
    expect(await title.textContent()).toBe('Checkout fails on Safari');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Edit title');

    // Escape cancels; the keyboard reaches the editor through "Edit title".
    await page.keyboard.press('Enter');
    await input.fill('Something else');
    await input.press('Escape');
    expect(await title.textContent()).toBe('Checkout fails on Safari');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Edit title');
    await page.keyboard.press('Enter');
    await input.fill('Checkout fails on Safari 17');
    const blurred = patched(page, 'Checkout fails');
    await page.keyboard.press('Tab'); // leaving the field saves
    expect((await blurred).status()).toBe(200);
    expect((await issue('Checkout fails')).name).toBe('Checkout fails on Safari 17');
    await page.reload();
    await title.getByText('Checkout fails on Safari 17').waitFor();
  });

  it('edits the description as Markdown, rendered sanitized, and saves it', async () => {
    const { page } = h;
    await open('Checkout fails');
    const md = page.locator('.description .markdown:not(.plain)');
    await md.locator('strong', { hasText: 'yesterday' }).waitFor();
    await page.getByRole('button', { name: 'Edit description' }).click();
    const text = 'Steps:\n\n1. Open **checkout**\n2. Press `Pay`\n\nSee [the log](https://example.com/log).\n\n### Expected\n\nA receipt.';
    await page.getByLabel('Description', { exact: true }).fill(text);
    const saved = patched(page, 'Checkout fails');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    expect((await saved).status()).toBe(200);
    await md.locator('strong', { hasText: 'checkout' }).waitFor();
    expect(await md.locator('ol > li').count()).toBe(2);
    expect(await md.locator('code').textContent()).toBe('Pay');
    const link = md.getByRole('link', { name: 'the log' });
    expect(await link.getAttribute('href')).toBe('https://example.com/log');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer nofollow');
    expect(await md.locator('h1, h2, h3, h4, h5, h6').count()).toBe(0); // a "###" does not break the page's outline
    expect(await md.locator('.md-heading').textContent()).toBe('Expected');
    expect((await issue('Checkout fails')).description).toBe(text);
    await page.reload();
    await md.locator('strong', { hasText: 'checkout' }).waitFor();

    // Cancel leaves it as it was.
    await page.getByRole('button', { name: 'Edit description' }).click();
    await page.getByLabel('Description', { exact: true }).fill('Not this');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await md.locator('strong', { hasText: 'checkout' }).waitFor();
    expect((await issue('Checkout fails')).description).toBe(text);
  });

  it('neutralises a hostile description: no script, no javascript: link, no event handler, raw HTML shown as text', async () => {
    const { page } = h;
    await open('Refused dates');
    const hostile = [
      '<script>window.__pwned = 1</script>',
      '<img src="x" onerror="window.__pwned = 2">',
      '[click me](javascript:window.__pwned=3)',
      '<a href="javascript:window.__pwned=4" onclick="window.__pwned=5">raw link</a> and <b onmouseover="window.__pwned=6">bold?</b>',
      '<iframe src="https://example.com"></iframe><style>body{display:none}</style>',
      '**still Markdown**',
    ].join('\n\n');
    await page.getByRole('button', { name: 'Edit description' }).click();
    await page.getByLabel('Description', { exact: true }).fill(hostile);
    const saved = patched(page, 'Refused dates');
    await page.getByLabel('Description', { exact: true }).press('Control+Enter');
    expect((await saved).status()).toBe(200);
    const md = page.locator('.description .markdown:not(.plain)');
    await md.locator('strong', { hasText: 'still Markdown' }).waitFor();
    expect(await md.locator('script, img, iframe, style, b').count()).toBe(0);
    expect(await page.locator('[onerror], [onclick], [onmouseover]').count()).toBe(0);
    const hrefs = await md.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(hrefs.filter((href) => href && /^\s*javascript:/i.test(href))).toEqual([]);
    const shown = (await md.textContent()) ?? '';
    expect(shown).toContain('<script>window.__pwned = 1</script>'); // raw HTML reads as the text it is
    expect(shown).toContain('<b onmouseover=');
    await md.getByText('click me').click();
    await md.getByText('bold?').hover();
    await page.reload();
    await md.locator('strong', { hasText: 'still Markdown' }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.evaluate(() => document.body.style.display)).toBe('');
  });

  it('changes state by name, priority, both dates and the estimate on change; the API and a reload agree', async () => {
    const { page } = h;
    await open('Checkout fails');
    const state = page.getByLabel('State', { exact: true });
    expect(await state.locator('option').allTextContents()).toEqual(Object.keys(states)); // the project's order
    let saved = patched(page, 'Checkout fails');
    await state.selectOption({ label: 'In Progress' });
    expect((await saved).status()).toBe(200);
    await page.locator('.issue-meta .state-badge', { hasText: 'In Progress' }).waitFor();
    await status().getByText('State saved').waitFor();

    saved = patched(page, 'Checkout fails');
    await page.getByLabel('Priority', { exact: true }).selectOption({ label: 'High' });
    expect((await saved).status()).toBe(200);
    await page.locator('.prop .priority.p-high').waitFor();

    saved = patched(page, 'Checkout fails');
    await page.getByLabel('Start date').fill('2026-03-02'); // saved a moment after typing stops
    expect((await saved).status()).toBe(200);
    saved = patched(page, 'Checkout fails');
    await page.getByLabel('Target date').fill('2026-03-20');
    await page.getByLabel('Target date').press('Tab'); // leaving the field saves at once
    expect((await saved).status()).toBe(200);
    saved = patched(page, 'Checkout fails');
    await page.getByLabel('Estimate (minutes)').fill('150');
    await page.getByLabel('Estimate (minutes)').press('Enter');
    expect((await saved).status()).toBe(200);
    await page
      .locator('#issue-estimate-minutes-hint')
      .getByText(/^2 hr 30 min/)
      .waitFor();

    expect(await issue('Checkout fails')).toMatchObject({
      state_id: states['In Progress'],
      priority: 'high',
      start_date: '2026-03-02',
      target_date: '2026-03-20',
      estimate_minutes: 150,
      remaining_minutes: 150,
    });
    await page.reload();
    await page.locator('.issue-meta .state-badge', { hasText: 'In Progress' }).waitFor();
    expect(await page.getByLabel('State', { exact: true }).inputValue()).toBe(states['In Progress']);
    expect(await page.getByLabel('Priority', { exact: true }).inputValue()).toBe('high');
    expect(await page.getByLabel('Start date').inputValue()).toBe('2026-03-02');
    expect(await page.getByLabel('Target date').inputValue()).toBe('2026-03-20');
    expect(await page.getByLabel('Estimate (minutes)').inputValue()).toBe('150');
    expect(await page.getByLabel('Remaining (minutes)').inputValue()).toBe('150');
    await page.locator('ol.activity li', { hasText: 'moved it from Backlog to In Progress' }).waitFor();
    await page.locator('ol.activity li', { hasText: 'changed the priority from Urgent to High' }).waitFor();
  });

  it('shows a refused change next to its field and keeps the old value', async () => {
    const { page } = h;
    await call('patch', `/projects/${projectId}/issues/${ids['Refused dates']}/`, { start_date: '2026-05-01', target_date: '2026-05-10' });
    await open('Refused dates');
    const refused = patched(page, 'Refused dates');
    await page.getByLabel('Start date').fill('2026-06-01');
    await page.getByLabel('Start date').press('Enter');
    expect((await refused).status()).toBe(400);
    const problem = page.locator('#issue-start-date-error');
    await problem.waitFor();
    expect(await problem.textContent()).toContain('target_date');
    expect(await page.getByLabel('Start date').getAttribute('aria-describedby')).toContain('issue-start-date-error');
    await expect.poll(() => page.getByLabel('Start date').inputValue()).toBe('2026-05-01');
    await status().getByText('Start date not saved').waitFor();
    expect((await issue('Refused dates')).start_date).toBe('2026-05-01');
    await expectAccessible(page, 'the issue page with a refused change');
  });

  it('picks assignees with the keyboard only: open, filter, check, Escape', async () => {
    const { page } = h;
    await open('Checkout fails');
    const button = page.getByRole('button', { name: /^Assignees/ });
    expect(await button.textContent()).toContain('Unassigned');
    await button.focus();
    await page.keyboard.press('Enter');
    expect(await button.getAttribute('aria-expanded')).toBe('true');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('assignee-filter');
    await page.keyboard.type('bo');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).closest('label')?.textContent)).toContain('Bob');
    let saved = patched(page, 'Checkout fails');
    await page.keyboard.press('Space');
    expect((await saved).status()).toBe(200);
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Tab'); // Ada, first by name
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).closest('label')?.textContent)).toContain('Ada');
    saved = patched(page, 'Checkout fails');
    await page.keyboard.press('Space');
    expect((await saved).status()).toBe(200);
    await expectAccessible(page, 'the issue page with the assignee picker open');
    await page.keyboard.press('Escape');
    await page.locator('#assignees-popover').waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('assignees-button');
    expect(await button.getAttribute('aria-expanded')).toBe('false');
    await status().getByText('Assignees saved').waitFor();
    expect(((await issue('Checkout fails')).assignee_ids as string[]).sort()).toEqual([adaId, bobId].sort());
    await page.reload();
    await expect.poll(async () => (await button.textContent()) ?? '').toMatch(/Ada.*Bob|Bob.*Ada/);
  });

  it('saves custom values of three types on change, without Save buttons', async () => {
    const { page } = h;
    await open('Checkout fails');
    const side = page.getByRole('region', { name: 'Custom values' });
    await side.getByLabel('Points').waitFor();
    expect(await side.getByRole('button').count()).toBe(0);
    let saved = put(page);
    await side.getByLabel('Points').fill('8');
    await side.getByLabel('Points').press('Enter');
    expect((await saved).status()).toBe(200);
    saved = put(page);
    await side.getByLabel('Size').selectOption('M');
    expect((await saved).status()).toBe(200);
    saved = put(page);
    await side.getByRole('group', { name: 'Tags' }).getByLabel('api').check();
    expect((await saved).status()).toBe(200);
    await status().getByText('Tags saved').waitFor();
    const values = (await call('get', `/projects/${projectId}/issues/${ids['Checkout fails']}/custom-values/`)) as { name: string; value: unknown }[];
    expect(Object.fromEntries(values.map((v) => [v.name, v.value]))).toEqual({ Points: 8, Size: 'M', Tags: ['api'] });
    await page.reload();
    await expect.poll(() => side.getByLabel('Points').inputValue()).toBe('8');
    expect(await side.getByLabel('Size').inputValue()).toBe('M');
    expect(await side.getByRole('group', { name: 'Tags' }).getByLabel('api').isChecked()).toBe(true);
  });

  it('interleaves comments and history in the activity feed, newest last, the comment box at the end', async () => {
    const { page } = h;
    await open('Checkout fails');
    const box = page.getByLabel('Comment', { exact: true });
    await box.fill('I can reproduce it with `Pay`.');
    await page.getByRole('button', { name: 'Add comment' }).click();
    const mine = page.locator('ol.activity > li.is-comment', { hasText: 'I can reproduce it' });
    await mine.locator('code', { hasText: 'Pay' }).waitFor();
    const saved = patched(page, 'Checkout fails');
    await page.getByLabel('Priority', { exact: true }).selectOption({ label: 'Urgent' });
    expect((await saved).status()).toBe(200);
    const items = page.locator('ol.activity > li');
    await items.last().getByText('changed the priority from High to Urgent').waitFor();
    const texts = (await items.allTextContents()).map((t) => t.replace(/\s+/g, ' '));
    expect(texts[0]).toContain('Ada created the issue in Backlog, priority Urgent');
    const comment = texts.findIndex((t) => t.includes('Ada commented') && t.includes('I can reproduce it with Pay'));
    const moved = texts.findIndex((t) => t.includes('moved it from Backlog to In Progress'));
    expect(moved).toBeGreaterThan(0);
    expect(comment).toBeGreaterThan(moved);
    expect(comment).toBe(texts.length - 2); // the comment, then the priority change after it
    // The comment box comes after the feed.
    const after = await page.evaluate(() => {
      const list = document.querySelector('ol.activity')!;
      const area = document.querySelector('.comment-box textarea')!;
      return Boolean(list.compareDocumentPosition(area) & Node.DOCUMENT_POSITION_FOLLOWING);
    });
    expect(after).toBe(true);
    expect(await page.locator('ol.activity time').first().getAttribute('title')).toMatch(/\d{4}/);
  });

  it('passes axe at 1280 px and on a 390 px phone, with no sideways scrolling', async () => {
    const { page } = h;
    await open('Checkout fails');
    await page.locator('dl.sla').waitFor();
    await page.getByText('No files yet.').waitFor();
    await expectAccessible(page, 'the issue page at 1280 px');
    const box = await page.locator('.issue-side').boundingBox();
    const main = await page.locator('.issue-main').boundingBox();
    expect(box!.x).toBeGreaterThan(main!.x + main!.width - 1); // two columns
    await h.shot('issue-desktop');
    await page.locator('main h1').click();
    await expectAccessible(page, 'the issue page editing the title');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Edit description' }).click();
    await expectAccessible(page, 'the issue page editing the description');

    await h.checkPhone('issue', issuePath('Checkout fails'), async (p) => {
      await p.locator('ol.activity').waitFor();
      await p.locator('dl.sla').waitFor();
      await p.getByText('No files yet.').waitFor();
      const side = await p.locator('.issue-side').boundingBox();
      const feed = await p.locator('.issue-feed').boundingBox();
      const title = await p.locator('main h1').boundingBox();
      expect(side!.y).toBeGreaterThan(title!.y); // properties under the title, before the feed
      expect(feed!.y).toBeGreaterThan(side!.y);
      await expectAccessible(p, 'the issue page at 390 px');
      await p.getByRole('button', { name: /^Assignees/ }).click();
      await expectAccessible(p, 'the assignee picker at 390 px');
      const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await p.keyboard.press('Escape');
    });
  });

  it(`loads at most ${BUDGET.toLocaleString('en')} bytes of JavaScript (gzip) on a phone's first load`, async () => {
    const phone = await h.browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true });
    try {
      await phone.addInitScript((t) => localStorage.setItem('wis.console.token', t), h.token);
      const p = await phone.newPage();
      const scripts = new Set<string>();
      p.on('response', (r) => {
        if (new URL(r.url()).pathname.endsWith('.js')) scripts.add(r.url());
      });
      await p.goto(h.app(issuePath('Checkout fails')));
      await p.locator('.description .markdown:not(.plain)').waitFor();
      await p.locator('ol.activity').waitFor();
      await p.waitForLoadState('networkidle');
      let total = 0;
      const sizes: string[] = [];
      for (const url of scripts) {
        const body = Buffer.from(await (await fetch(url)).arrayBuffer());
        const gz = gzipSync(body).length;
        total += gz;
        sizes.push(`${new URL(url).pathname.split('/').pop()}: ${gz}`);
      }
      console.log(`issue page, phone first load: ${scripts.size} scripts, ${total} bytes gzip (${sizes.join(', ')})`);
      expect(scripts.size).toBeGreaterThan(0);
      expect(total).toBeLessThanOrEqual(BUDGET);
    } finally {
      await phone.close();
    }
  });

  it('says in words, in working time, how long is left and how long ago a target was breached; the due time on hover', async () => {
    const { page } = h;
    const name = 'SLA words';
    ids[name] = (await call('post', `/projects/${projectId}/issues/`, { name, priority: 'urgent' })).id;
    await open(name);
    const sla = page.locator('dl.sla');
    await sla.getByText('2 hr left').waitFor(); // response: 2 hours, around the clock
    await sla.getByText('8 hr left').waitFor();
    const due = sla.locator('dd time').first();
    expect(await due.getAttribute('title')).toMatch(/2026/);
    expect(await due.getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    h.ctx.clock.advance(5 * 3_600_000 + 10 * 60_000); // 5 hr 10 min on
    await page.reload();
    await sla.getByText('breached 3 hr 10 min ago').waitFor();
    await sla.getByText('2 hr 50 min left').waitFor();
    expect(await sla.locator('.badge').allTextContents()).toEqual(['Breached', 'Open']);
    await expectAccessible(page, 'the issue page with a breached SLA');
  });

  it('logged no page error, console error or CSP violation', () => {
    expect(errors).toEqual([]);
  });
});
