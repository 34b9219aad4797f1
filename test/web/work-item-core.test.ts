import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { expectAccessible, hasChromium, type Harness, startHarness } from './harness.js';

describe.skipIf(!hasChromium)('labels, sub-issues, relations and bulk edits in Chromium', () => {
  let h: Harness;
  let projectId = '';
  const issues: Record<string, string> = {};
  const labels: Record<string, string> = {};
  const W = () => `/api/workspaces/${h.slug}`;
  const call = async (method: 'post' | 'patch' | 'get', path: string, body?: unknown) => {
    const res =
      method === 'get' ? await h.ctx.api.get(`${W()}${path}`, { token: h.token }) : await h.ctx.api[method](`${W()}${path}`, body, { token: h.token });
    expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
    return res.body;
  };
  const issue = (name: string) => call('get', `/projects/${projectId}/issues/${issues[name]}/`);
  const listPath = () => `/w/${h.slug}/p/${projectId}/issues`;
  const issuePath = (name: string) => `${listPath()}/${issues[name]}`;
  const names = (p: Page = h.page) => p.locator('tbody tr td:nth-child(2)').allTextContents();
  const saved = (p: Page, method: string, part: string) => p.waitForResponse((r) => r.request().method() === method && r.url().includes(part));

  beforeAll(async () => {
    h = await startHarness('core');
    projectId = (await call('post', '/projects/', { name: 'Web', identifier: 'WEB' })).id;
    // WEB-1 .. WEB-5
    for (const name of ['Login page', 'Signup form', 'Reset password', 'Profile page', 'Settings page'])
      issues[name] = (await call('post', `/projects/${projectId}/issues/`, { name })).id;
  });

  afterAll(async () => {
    await h?.close();
  });

  it('creates labels in the label manager, renames and recolours one, deletes one after a confirm', async () => {
    const { page } = h;
    await page.goto(h.app(listPath()));
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Labels' }).click();
    await page.getByRole('heading', { name: 'Labels' }).waitFor();
    await page.getByText('No labels yet').waitFor();
    for (const [name, color, description] of [
      ['Bug', '#d73a4a', 'Something is broken'],
      ['Feature', '#0e8a16', ''],
      ['Docs', '#1d76db', ''],
      ['Temporary', '#fbca04', ''],
    ]) {
      await page.getByLabel('Label name').fill(name!);
      await page.getByLabel('Colour').fill(color!);
      await page.getByLabel('Description').fill(description!);
      const created = saved(page, 'POST', '/labels/');
      await page.getByRole('button', { name: 'Add label' }).click();
      expect((await created).status()).toBe(201);
      await page.locator('.cards .chip', { hasText: name! }).waitFor();
    }
    expect(await page.getByLabel('Label name').inputValue()).toBe(''); // the form is ready for the next one
    expect(await page.locator('.cards li', { hasText: 'Bug' }).textContent()).toContain('Something is broken');

    // The name is unique in the project, ignoring case: the API's 409 shows as it states it.
    await page.getByLabel('Label name').fill('bug');
    await page.getByRole('button', { name: 'Add label' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('409 conflict');

    await page.getByRole('button', { name: 'Edit Docs' }).click();
    const form = page.locator('.cards li', { hasText: 'Docs' }).locator('form');
    await form.getByLabel('Label name').fill('Documentation');
    await form.getByLabel('Colour').fill('#5319e7');
    await form.getByRole('button', { name: 'Save label' }).click();
    const chip = page.locator('.cards .chip', { hasText: 'Documentation' });
    await chip.waitFor();
    expect(await chip.locator('.dot').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(83, 25, 231)');

    await page.getByRole('button', { name: 'Delete Temporary' }).click(); // dismissed: nothing happens
    await page.waitForTimeout(200);
    expect(await page.locator('.cards .chip', { hasText: 'Temporary' }).count()).toBe(1);
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete Temporary' }).click();
    await page.locator('.cards .chip', { hasText: 'Temporary' }).waitFor({ state: 'detached' });
    await h.shot('labels');

    for (const l of (await call('get', `/projects/${projectId}/labels/`)) as { id: string; name: string; color: string }[]) labels[l.name] = l.id;
    expect(Object.keys(labels).sort()).toEqual(['Bug', 'Documentation', 'Feature']);
    await h.checkPhone('labels', `/w/${h.slug}/p/${projectId}/labels`, (p) => p.locator('.cards .chip').first().waitFor());
  });

  it('puts labels on an issue from its page and shows the chips there and on the list', async () => {
    const { page } = h;
    await page.goto(h.app(issuePath('Login page')));
    const picker = page.getByRole('group', { name: 'Labels of this issue' });
    for (const name of ['Bug', 'Feature']) {
      const patched = saved(page, 'PATCH', `/issues/${issues['Login page']}/`);
      await picker.getByLabel(name, { exact: true }).check();
      expect((await patched).status()).toBe(200);
    }
    await picker.getByText('Labels saved.').waitFor();
    const chips = page.locator('.issue-main .chips');
    await expect.poll(() => chips.locator('li').allTextContents()).toEqual(['Bug', 'Feature']);
    expect((await issue('Login page')).label_ids).toEqual([labels.Bug, labels.Feature].sort());

    // Taking one off saves the whole set again.
    await picker.getByLabel('Feature', { exact: true }).uncheck();
    await expect.poll(() => chips.locator('li').allTextContents()).toEqual(['Bug']);
    expect((await issue('Login page')).label_ids).toEqual([labels.Bug]);
    await picker.getByLabel('Feature', { exact: true }).check();
    await expect.poll(async () => (await issue('Login page')).label_ids.length).toBe(2);
    // The history says it in words, with the chips.
    await page.reload();
    await page.locator('ol.activity li', { hasText: 'removed the label Feature' }).waitFor();
    expect((await page.locator('ol.activity li').nth(1).textContent())!.replace(/\s+/g, ' ')).toContain('Ada added the label Bug');
    await call('patch', `/projects/${projectId}/issues/${issues['Profile page']}/`, { label_ids: [labels.Documentation] });

    await page.goto(h.app(listPath()));
    const row = page.getByRole('row', { name: /Login page/ });
    await row.locator('.chip').first().waitFor();
    expect(await row.locator('.chip').allTextContents()).toEqual(['Bug', 'Feature']);
    expect(
      await row
        .locator('.chip .dot')
        .first()
        .evaluate((el) => getComputedStyle(el).backgroundColor),
    ).toBe('rgb(215, 58, 74)');
    expect(
      await page
        .getByRole('row', { name: /Profile page/ })
        .locator('.chip')
        .allTextContents(),
    ).toEqual(['Documentation']);
  });

  it('filters the list by a label, with the filter in the URL', async () => {
    const { page } = h;
    await page.goto(h.app(listPath()));
    await page.getByRole('link', { name: 'Settings page' }).waitFor();
    await page.getByLabel('Label', { exact: true }).selectOption({ label: 'Bug' });
    await page.waitForURL(new RegExp(`label_id=${labels.Bug}`));
    await expect.poll(() => names()).toEqual(['Login page']);
    await page.reload();
    await page.getByRole('link', { name: 'Login page' }).waitFor();
    expect(await names()).toEqual(['Login page']);
    expect(await page.getByLabel('Label', { exact: true }).inputValue()).toBe(labels.Bug);
    await page.getByLabel('Label', { exact: true }).selectOption({ label: 'Documentation' });
    await expect.poll(() => names()).toEqual(['Profile page']);
    await page.getByLabel('Label', { exact: true }).selectOption({ label: 'All' });
    await expect.poll(async () => (await names()).length).toBe(5);
    expect(page.url()).not.toContain('label_id');
  });

  it('adds sub-issues, shows their progress, and changes a parent', async () => {
    const { page } = h;
    await page.goto(h.app(issuePath('Login page')));
    const panel = page.getByRole('region', { name: 'Sub-issues' });
    await panel.getByText('No sub-issues.').waitFor();
    for (const name of ['Login: design', 'Login: build']) {
      await panel.getByLabel('Sub-issue title').fill(name);
      const created = saved(page, 'POST', `/projects/${projectId}/issues/`);
      await panel.getByRole('button', { name: 'Add sub-issue' }).click();
      expect((await created).status()).toBe(201);
      await panel.getByText(name).waitFor();
    }
    await panel.getByText('0 of 2 done').waitFor();
    const children = (await call('get', `/projects/${projectId}/issues/?parent_id=${issues['Login page']}`)).results as { id: string; name: string }[];
    for (const c of children) issues[c.name] = c.id;
    expect(Object.keys(issues)).toContain('Login: design');

    // A child done elsewhere: the page reads it anew.
    const states = (await call('get', `/projects/${projectId}/states/`)) as { id: string; name: string }[];
    const done = states.find((s) => s.name === 'Done')!.id;
    await call('patch', `/projects/${projectId}/issues/${issues['Login: design']}/`, { state_id: done });
    await page.reload();
    await panel.getByText('1 of 2 done').waitFor();
    const bar = panel.getByRole('progressbar', { name: 'Sub-issues done' });
    expect(await bar.getAttribute('aria-valuenow')).toBe('1');
    expect(await bar.getAttribute('aria-valuemax')).toBe('2');
    expect(await bar.locator('span').evaluate((el) => (el as HTMLElement).style.width)).toBe('50%');

    // The child names its parent; another issue gets the same parent from its page.
    await panel.getByRole('link', { name: 'WEB-6' }).click();
    await page.getByRole('region', { name: 'Parent' }).getByText('Sub-issue of').waitFor();
    expect(await page.getByRole('region', { name: 'Parent' }).getByRole('link', { name: 'WEB-1 Login page' }).count()).toBe(1);
    await page.goto(h.app(issuePath('Reset password')));
    await page.getByText('No parent: a top-level issue.').waitFor();
    const patched = saved(page, 'PATCH', `/issues/${issues['Reset password']}/`);
    await page.getByLabel('Parent issue').selectOption({ label: 'WEB-1 Login page' });
    expect((await patched).status()).toBe(200);
    await page.getByRole('region', { name: 'Parent' }).getByRole('link', { name: 'WEB-1 Login page' }).waitFor();
    expect((await issue('Reset password')).parent_id).toBe(issues['Login page']);
    await page.locator('ol.activity li', { hasText: 'made it a sub-issue of WEB-1 Login page' }).waitFor();
    expect((await issue('Login page')).sub_issues).toEqual({ total: 3, completed: 1 });

    // A cycle is refused, as the API says it.
    await page.goto(h.app(issuePath('Login page')));
    await page.getByLabel('Parent issue').selectOption({ label: 'WEB-3 Reset password' });
    expect(await page.getByRole('alert').first().textContent()).toContain('validation_failed');
    await page.getByRole('region', { name: 'Sub-issues' }).getByText('1 of 3 done').waitFor();
  });

  it('adds a "blocked by" relation, shows it in the panel and the Blocked badge, and removes one', async () => {
    const { page } = h;
    await page.goto(h.app(issuePath('Login page')));
    const panel = page.getByRole('region', { name: 'Relations' });
    await panel.getByText('No relations.').waitFor();
    expect(await page.locator('.issue-meta .badge', { hasText: 'Blocked' }).count()).toBe(0);
    await panel.getByLabel('Relation', { exact: true }).selectOption('blocked_by');
    await panel.getByLabel('Related issue').selectOption({ label: 'WEB-3 Reset password' });
    await panel.getByRole('button', { name: 'Add relation' }).click();
    const entry = panel.locator('li', { hasText: 'blocked by WEB-3' });
    await entry.waitFor();
    expect((await entry.textContent())!.replace(/\s+/g, ' ')).toContain('blocked by WEB-3 Reset password Backlog');
    await page.locator('.issue-meta .badge', { hasText: 'Blocked' }).waitFor();

    await panel.getByLabel('Relation', { exact: true }).selectOption('relates_to');
    await panel.getByLabel('Related issue').selectOption({ label: 'WEB-5 Settings page' });
    await panel.getByRole('button', { name: 'Add relation' }).click();
    const related = panel.locator('li', { hasText: 'relates to WEB-5' });
    await related.waitFor();
    await panel.getByRole('button', { name: 'Remove relation: relates to WEB-5' }).click();
    await related.waitFor({ state: 'detached' });
    await h.shot('issue-panels');

    // The other side lists the inverse; the list shows the badge.
    await page.goto(h.app(issuePath('Reset password')));
    await page
      .getByRole('region', { name: 'Relations' })
      .locator('li', { hasText: /blocks\s+WEB-1/ })
      .waitFor();
    await page.goto(h.app(listPath()));
    await page
      .getByRole('row', { name: /Login page/ })
      .getByText('Blocked')
      .waitFor();
    expect(await page.locator('tbody .badge', { hasText: 'Blocked' }).count()).toBe(1);
    await h.checkPhone('issue', issuePath('Login page'), (p) => p.locator('.relation', { hasText: 'blocked by' }).waitFor());
  });

  it('selects rows with shift-click and changes their state and labels in bulk', async () => {
    const { page } = h;
    await page.goto(h.app(listPath()));
    await page.getByRole('link', { name: 'Settings page' }).waitFor();
    expect(await names()).toEqual(['Login: build', 'Login: design', 'Settings page', 'Profile page', 'Reset password', 'Signup form', 'Login page']);
    expect(await page.getByRole('region', { name: 'Bulk edit' }).count()).toBe(0);

    await page.getByLabel('Select Settings page').click();
    await page.getByLabel('Select Signup form').click({ modifiers: ['Shift'] });
    const bar = page.getByRole('region', { name: 'Bulk edit' });
    await bar.getByText('4 selected').waitFor();
    const checked = await page.locator('tbody input[type=checkbox]').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).checked));
    expect(checked).toEqual([false, false, true, true, true, true, false]);
    expect(await page.getByLabel('Select all issues on this page').evaluate((e) => (e as HTMLInputElement).indeterminate)).toBe(true);
    // Shift-click on a selected row takes the range off again.
    await page.getByLabel('Select Profile page').click();
    await page.getByLabel('Select Reset password').click({ modifiers: ['Shift'] });
    await bar.getByText('2 selected').waitFor();
    await page.getByLabel('Select Profile page').click();
    await page.getByLabel('Select Reset password').click({ modifiers: ['Shift'] });
    await bar.getByText('4 selected').waitFor();

    await bar.getByLabel('Set state').selectOption({ label: 'In Progress' });
    await bar.getByLabel('Add label').selectOption({ label: 'Documentation' });
    await h.shot('list-bulk-bar');
    await expectAccessible(page, 'list with the bulk bar');
    const bulk = saved(page, 'POST', '/issues/bulk/');
    await bar.getByRole('button', { name: 'Apply to 4 issues' }).click();
    expect((await bulk).status()).toBe(200);
    await page.getByRole('status').getByText('4 issues updated.').waitFor();
    expect(await bar.count()).toBe(0);
    expect(await page.locator('tbody input[type=checkbox]:checked').count()).toBe(0);
    for (const name of ['Settings page', 'Profile page', 'Reset password', 'Signup form']) {
      const row = page.getByRole('row', { name: new RegExp(name) });
      await row.getByText('In Progress').waitFor();
      expect(await row.locator('.chip').allTextContents()).toContain('Documentation');
    }
    expect(
      await page
        .getByRole('row', { name: /Login page/ })
        .getByText('In Progress')
        .count(),
    ).toBe(0);
    const api = (await call('get', `/projects/${projectId}/issues/?state_group=started`)) as { total: number };
    expect(api.total).toBe(4);

    // Select-all for the page, then take a label off everything in one go.
    await page.getByLabel('Select all issues on this page').check();
    await bar.getByText('7 selected').waitFor();
    await bar.getByLabel('Remove label').selectOption({ label: 'Documentation' });
    await bar.getByRole('button', { name: 'Apply to 7 issues' }).click();
    await page.getByRole('status').getByText('7 issues updated.').waitFor();
    await expect.poll(() => page.locator('tbody .chip', { hasText: 'Documentation' }).count()).toBe(0);

    await h.checkPhone('list-bulk-bar', listPath(), async (p) => {
      await p.getByLabel('Select Settings page').click();
      await p.getByLabel('Select Signup form').click({ modifiers: ['Shift'] });
      await p.getByRole('region', { name: 'Bulk edit' }).getByText('4 selected').waitFor();
    });
  });

  it('deletes the selected issues in bulk after a confirm', async () => {
    const { page } = h;
    await page.goto(h.app(listPath()));
    await page.getByRole('link', { name: 'Settings page' }).waitFor();
    await page.getByLabel('Select Settings page').click();
    await page.getByLabel('Select Profile page').click();
    const bar = page.getByRole('region', { name: 'Bulk edit' });
    await bar.getByRole('button', { name: 'Delete 2 issues' }).click(); // dismissed
    await page.waitForTimeout(200);
    expect(await names()).toHaveLength(7);
    page.once('dialog', (d) => {
      expect(d.message()).toBe('Delete 2 issues? This cannot be undone.');
      void d.accept();
    });
    await bar.getByRole('button', { name: 'Delete 2 issues' }).click();
    await page.getByRole('status').getByText('2 issues deleted.').waitFor();
    await expect.poll(() => names()).toEqual(['Login: build', 'Login: design', 'Reset password', 'Signup form', 'Login page']);
    expect(await bar.count()).toBe(0);
    expect(((await call('get', `/projects/${projectId}/issues/`)) as { total: number }).total).toBe(5);
  });

  it('fits a phone: the label manager, the list and an issue page with its panels, every control labelled', async () => {
    await h.checkPhone('core-labels', `/w/${h.slug}/p/${projectId}/labels`, (p) => p.getByRole('heading', { name: 'Labels' }).first().waitFor());
    await h.checkPhone('core-list', listPath(), (p) => p.getByRole('link', { name: 'Login page' }).waitFor());
    await h.checkPhone('core-issue', issuePath('Login page'), (p) => p.getByRole('region', { name: 'Relations' }).waitFor());
  });
});
