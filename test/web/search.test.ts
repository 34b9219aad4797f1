import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, hasChromium, type Harness, startHarness } from './harness.js';

describe.skipIf(!hasChromium)('search in the console (header search, the list text filter, similar issues) in Chromium', () => {
  let h: Harness;
  let web = '';
  const ids: Record<string, string> = {};
  const call = async (method: 'post' | 'get', path: string, body?: unknown) => {
    const url = `/api/workspaces/${h.slug}${path}`;
    const res = method === 'get' ? await h.ctx.api.get(url, { token: h.token }) : await h.ctx.api.post(url, body, { token: h.token });
    expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
    return res.body;
  };
  /** The machine is shared: a list or a search may take more than the default second to answer. */
  const poll = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: 10_000 });
  const listPath = () => `/w/${h.slug}/p/${web}/issues`;
  const names = () => h.page.locator('main tbody tr td:nth-child(2)').allTextContents();
  const box = () => h.page.getByRole('combobox', { name: 'Search issues' });
  const options = () => h.page.getByRole('listbox', { name: 'Issues found' }).getByRole('option');
  const focusedLabel = () => h.page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.labels?.[0]?.textContent ?? '');

  beforeAll(async () => {
    h = await startHarness('search');
    web = (await call('post', '/projects/', { name: 'Web shop', identifier: 'WEB' })).id;
    const seed: [string, string, string][] = [
      ['pay', 'Ödeme sayfası İSTANBUL şubesinde açılmıyor', 'Kart ile ödeme adımında hata veriyor.'], // WEB-1
      ['deploy', 'Deployment pipeline fails on main', 'The deploy step times out after ten minutes.'], // WEB-2
      ['printer', 'Printer jam on the third floor', 'Paper stuck again.'], // WEB-3
      ['login', 'Login page shows a blank screen', 'Only on Safari.'], // WEB-4
      ['deploy-docs', 'Document the deployment checklist', ''], // WEB-5
    ];
    for (const [key, name, description] of seed) ids[key] = (await call('post', `/projects/${web}/issues/`, { name, description })).id;
    // A comment hit finds its issue, with the Turkish capitals matched from lower case.
    await call('post', `/projects/${web}/issues/${ids.login}/comments/`, { body: 'Koridordaki IŞIK sensörü de bozuk, ekran kararıyor.' });
  });

  afterAll(async () => {
    await h?.close();
  });

  it('focuses the header search with / and Ctrl+K, but not while typing in another field', async () => {
    const { page } = h;
    await page.goto(h.app(listPath()));
    await page.getByRole('link', { name: 'Printer jam on the third floor' }).waitFor();
    await page.locator('main h1').focus();
    await page.keyboard.press('/');
    expect(await focusedLabel()).toBe('Search issues');
    expect(await box().inputValue()).toBe(''); // the slash only moved the focus
    await page.locator('main h1').focus();
    await page.keyboard.press('Control+k');
    expect(await focusedLabel()).toBe('Search issues');

    // In the list's text filter a slash is just a character.
    const text = page.getByLabel('Text', { exact: true });
    await text.focus();
    await page.keyboard.type('a/b');
    expect(await text.inputValue()).toBe('a/b');
    expect(await focusedLabel()).toBe('Text');
    await text.fill('');
  });

  it('shows results as one types with the matched words marked, Turkish letters and comments included', async () => {
    const { page } = h;
    await page.locator('main h1').focus();
    await page.keyboard.press('/');
    await page.keyboard.type('odeme istanbul');
    await poll(() => options().count()).toBe(1);
    const first = options().first();
    expect(await first.textContent()).toContain('WEB-1');
    expect(await first.textContent()).toContain('Backlog'); // the state's name
    expect(await first.locator('mark').allTextContents()).toEqual(['Ödeme', 'İSTANBUL']);
    expect(await box().getAttribute('aria-expanded')).toBe('true');

    await box().fill('ışık');
    await poll(async () => (await options().allTextContents()).join('|')).toContain('WEB-4');
    const hit = options().filter({ hasText: 'WEB-4' });
    expect(await hit.locator('.search-snippet').textContent()).toMatch(/^Comment:/);
    expect(await hit.locator('mark').allTextContents()).toEqual(['IŞIK']);
    await h.shot('header-comment-hit');
  });

  it('moves over the results with the arrow keys, passes axe with the list open, and opens one with Enter', async () => {
    const { page } = h;
    await box().fill('deploy');
    await poll(() => options().count()).toBe(2);
    expect(await box().getAttribute('aria-activedescendant')).toBeNull();
    await page.keyboard.press('ArrowDown');
    const firstId = await options().nth(0).getAttribute('id');
    expect(await box().getAttribute('aria-activedescendant')).toBe(firstId);
    expect(await options().nth(0).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown'); // wraps to the first
    expect(await box().getAttribute('aria-activedescendant')).toBe(firstId);
    await page.keyboard.press('ArrowUp'); // and back round to the last
    const last = options().nth(1);
    expect(await box().getAttribute('aria-activedescendant')).toBe(await last.getAttribute('id'));
    expect(await last.getAttribute('aria-selected')).toBe('true');
    expect(await options().nth(0).getAttribute('aria-selected')).toBe('false');
    const lastText = (await last.textContent())!;
    expect(await options().first().locator('mark').count()).toBeGreaterThan(0);
    await h.shot('header-results');
    await expectAccessible(page, 'header search open');

    await h.checkPhone('header-results', listPath(), async (p) => {
      await p.getByRole('link', { name: 'Printer jam on the third floor' }).waitFor();
      await p.getByRole('combobox', { name: 'Search issues' }).fill('deploy');
      await p.getByRole('listbox', { name: 'Issues found' }).getByRole('option').nth(1).waitFor();
    });

    const lastName = lastText.includes('WEB-2') ? 'Deployment pipeline fails on main' : 'Document the deployment checklist';
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: new RegExp(`^${lastName}$`), level: 1 }).waitFor();
    await expect.poll(() => page.locator('.issue-meta .issue-key').textContent()).toMatch(/^WEB-\d+$/);
    expect(page.url()).toContain(`/p/${web}/issues/${lastName.startsWith('Deployment') ? ids.deploy : ids['deploy-docs']}`);
    expect(await box().inputValue()).toBe('');
  });

  it('closes with Escape, opens a result on a click, labels similar names, and says when nothing or a bad query is found', async () => {
    const { page } = h;
    await page.keyboard.press('/');
    await page.keyboard.type('printer');
    await poll(() => options().count()).toBe(1);
    await page.keyboard.press('Escape');
    expect(await box().getAttribute('aria-expanded')).toBe('false');
    expect(await options().first().isVisible()).toBe(false);
    await page.keyboard.press('ArrowDown'); // opens it again
    expect(await box().getAttribute('aria-expanded')).toBe('true');
    await options().first().click();
    await page.getByRole('heading', { name: 'Printer jam on the third floor', level: 1 }).waitFor();
    // The key reads '#3' until the page has the project (its identifier): polled, as in the attachments test.
    await expect.poll(() => page.locator('.issue-meta .issue-key').textContent()).toBe('WEB-3');

    await page.keyboard.press('/');
    await page.keyboard.type('deplyoment');
    await poll(() => options().count()).toBeGreaterThan(0);
    expect(await options().first().textContent()).toContain('similar name');
    expect(await page.locator('.search-status').textContent()).toContain('Similar names');

    await box().fill('qqxqzv');
    await poll(() => page.locator('.search-status').textContent()).toBe('No issues match “qqxqzv”.');
    expect(await box().getAttribute('aria-expanded')).toBe('false');

    await box().fill('-only');
    const alert = page.getByRole('search').getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Cannot search for that');
    expect(await alert.textContent()).toContain('400');
    await h.shot('header-bad-query');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    expect(await box().inputValue()).toBe('');
  });

  it('filters the list by words in the URL, ordered by relevance, and saves them in a view', async () => {
    const { page } = h;
    await page.goto(h.app(listPath()));
    await page.getByRole('link', { name: 'Printer jam on the third floor' }).waitFor();
    expect(await names()).toHaveLength(5);
    await page.getByLabel('Text', { exact: true }).fill('deployment');
    await page.waitForURL(/q=deployment/);
    // Both names hold the word: the same score, then the newer first (WEB-5).
    await poll(() => names()).toEqual(['Document the deployment checklist', 'Deployment pipeline fails on main']);
    expect(await page.getByLabel('Sort by').inputValue()).toBe('relevance');
    expect(new URL(page.url()).searchParams.get('order_by')).toBeNull();

    // Enter applies at once; a reload keeps the words and the list.
    await page.getByLabel('Text', { exact: true }).fill('ödeme');
    await page.keyboard.press('Enter');
    await page.waitForURL(/q=%C3%B6deme/);
    await poll(() => names()).toEqual(['Ödeme sayfası İSTANBUL şubesinde açılmıyor']);
    await page.reload();
    await page.getByRole('link', { name: 'Ödeme sayfası İSTANBUL şubesinde açılmıyor' }).waitFor();
    expect(await page.getByLabel('Text', { exact: true }).inputValue()).toBe('ödeme');
    expect(await names()).toHaveLength(1);
    await expectAccessible(page, 'list filtered by words');

    const created = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/views/'));
    await page.getByRole('button', { name: 'Save as view' }).click();
    await page.getByLabel('View name').fill('Payments');
    await page.getByRole('button', { name: 'Save view' }).click();
    const view = (await (await created).json()) as { id: string; filters: Record<string, string[]>; order_by: string | null };
    expect(view.filters).toEqual({ q: ['ödeme'] });
    expect(view.order_by).toBeNull();
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Payments' }).click();
    await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Ödeme sayfası İSTANBUL şubesinde açılmıyor' }).waitFor();
    expect(await page.locator('dl').textContent()).toContain('Text: “ödeme”');

    // Clearing the filters empties the field too.
    await page.goto(h.app(`${listPath()}?q=printer`));
    await page.getByRole('link', { name: 'Printer jam on the third floor' }).waitFor();
    expect(await names()).toHaveLength(1);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await poll(() => names().then((n) => n.length)).toBe(5);
    expect(await page.getByLabel('Text', { exact: true }).inputValue()).toBe('');
    expect(new URL(page.url()).search).toBe('');
  });

  it('shows similar issues while the new issue is named, without stopping its creation', async () => {
    const { page } = h;
    await page.goto(h.app(`${listPath()}/new`));
    const title = page.getByLabel('Title');
    await title.waitFor();
    await title.pressSequentially('Deployment pipeline fail', { delay: 20 });
    const similar = page.getByRole('region', { name: 'Similar issues' });
    await similar.waitFor();
    const link = similar.getByRole('link', { name: /WEB-2 Deployment pipeline fails on main/ });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe(`/app/w/${h.slug}/p/${web}/issues/${ids.deploy}`);
    expect(await similar.textContent()).toContain('Backlog');
    await h.shot('new-issue-similar');
    await expectAccessible(page, 'new issue with similar issues');

    await title.fill('ab'); // under three characters: nothing asked, nothing shown
    await poll(() => similar.count()).toBe(0);
    await title.fill('Deployment pipeline fails on staging too');
    await similar.waitFor();
    await page.getByRole('button', { name: 'Create issue' }).click();
    await page.getByRole('heading', { name: 'Deployment pipeline fails on staging too', level: 1 }).waitFor();
    await expect.poll(() => page.locator('.issue-meta .issue-key').textContent()).toBe('WEB-6');
  });
});
