/**
 * Every page of the console with the demo's data (issue 41), as a new user meets it: at 1280x800 and on a 390x844
 * phone, each page loads without an error, shows no page-wide sideways scrolling, and axe-core finds 0 violations
 * (WCAG 2.2 AA and best practice). With `CONSOLE_SCREENSHOTS=1` each page's screenshot at both widths is written to
 * docs/console/ (the ones kept in the repository, looked at before a console change lands); otherwise to
 * test-results/web. `CONSOLE_PAGES=issue,board` opens only those pages.
 */
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { inProcessBackend } from '../../src/cli/demo/demo.in-process.js';
import { DEMO_ACCOUNT, DEMO_SLUG } from '../../src/cli/demo/demo.plan.js';
import { runDemo } from '../../src/cli/demo/demo.runner.js';
import { DUNNING_SUFFIX } from '../../src/cli/demo/demo.steps.js';
import { loadConfig } from '../../src/config/config.js';
import { expectAccessible, hasChromium, type Harness, startHarness } from './harness.js';

const KEEP = process.env.CONSOLE_SCREENSHOTS === '1';
const SHOTS = KEEP ? 'docs/console' : 'test-results/web/pages';
const WIDTHS = [
  { name: 'desktop', viewport: { width: 1280, height: 800 }, isMobile: false },
  { name: 'phone', viewport: { width: 390, height: 844 }, isMobile: true },
] as const;

describe.skipIf(!hasChromium)('every page of the console with the demo data, at 1280 px and on a phone', () => {
  let h: Harness;
  let token: string;
  const pages: [string, string][] = [];

  beforeAll(async () => {
    h = await startHarness('pages');
    // The demo's attachments go where the service under test reads them.
    const api = await inProcessBackend(loadConfig({ LOG_LEVEL: 'silent', STORAGE_DIR: h.ctx.config.storage.dir }), h.ctx.database, 'the test database');
    try {
      // The kept screenshots show the whole demo; the suite's check a smaller one.
      await runDemo(api, { out: () => undefined, ...(KEEP ? {} : { issueCount: 40 }) });
    } finally {
      await api.close();
    }
    // The service's clock (a test clock, standing still) moves to the time the demo was written at, so its SLA clocks
    // have run out where the demo's have.
    h.ctx.clock.set(new Date());
    const signIn = await h.ctx.api.post('/api/auth/sign-in/', { email: DEMO_ACCOUNT.email, password: DEMO_ACCOUNT.password });
    expect(signIn.status, signIn.text).toBe(200);
    token = signIn.body.token as string;
    const get = async (path: string) => {
      const res = await h.ctx.api.get(path, { token });
      expect(res.status, `${path}: ${res.text}`).toBe(200);
      return res.body;
    };
    const w = `/w/${DEMO_SLUG}`;
    const projects = (await get(`/api/workspaces/${DEMO_SLUG}/projects/`)) as { id: string; identifier: string }[];
    const sd = projects.find((p) => p.identifier === 'SD')!;
    const issues = (await get(`/api/workspaces/${DEMO_SLUG}/projects/${sd.id}/issues/?per_page=50`)) as { results: { id: string; assignee_ids: string[] }[] };
    const issue = issues.results.find((i) => i.assignee_ids.length) ?? issues.results[0]!;
    const baselines = (await get(`/api/workspaces/${DEMO_SLUG}/projects/${projects[1]!.id}/baselines/`)) as { id: string }[] | { results: { id: string }[] };
    const baseline = Array.isArray(baselines) ? baselines[0] : baselines.results[0];
    const webhooks = (await get(`/api/workspaces/${DEMO_SLUG}/webhooks/`)) as { id: string }[] | { results: { id: string }[] };
    const webhook = Array.isArray(webhooks) ? webhooks[0] : webhooks.results[0];
    const p = `${w}/p/${sd.id}`;
    pages.push(
      ['workspaces', '/'],
      ['home', w],
      ['projects', `${w}/projects`],
      ['my-issues', `${w}/my-issues`],
      ['issues', `${p}/issues`],
      ['board', `${p}/board`],
      ['issue', `${p}/issues/${issue.id}`],
      ['new-issue', `${p}/issues/new`],
      ['states', `${p}/states`],
      ['labels', `${p}/labels`],
      ['properties', `${p}/properties`],
      ['forecast', `/w/${DEMO_SLUG}/p/${projects[1]!.id}/forecast`],
      ['baselines', `/w/${DEMO_SLUG}/p/${projects[1]!.id}/baselines`],
      ['sla-breached', `${w}/sla/breached`],
      ['sla-at-risk', `${w}/sla/at-risk`],
      ['sla-policies', `${w}/sla/policies`],
      ['sla-calendars', `${w}/sla/calendars`],
      ['sla-reports', `${w}/sla/reports`],
      ['billing', `${w}/billing`],
      ['billing-payment-methods', `${w}/billing?tab=payment-methods`],
      ['billing-documents', `${w}/billing?tab=documents`],
      ['billing-profile', `${w}/billing?tab=profile`],
      ['home-past-due', `${w}${DUNNING_SUFFIX}`],
      ['billing-past-due', `${w}${DUNNING_SUFFIX}/billing`],
      ['members', `${w}/members`],
      ['timesheet', `${w}/timesheet`],
      ['webhooks', `${w}/webhooks`],
      ['inbox', '/inbox'],
      ['settings', '/settings'],
    );
    if (baseline) pages.push(['deviation', `/w/${DEMO_SLUG}/p/${projects[1]!.id}/baselines/${baseline.id}`]);
    if (webhook) pages.push(['webhook', `${w}/webhooks/${webhook.id}`]);
    mkdirSync(SHOTS, { recursive: true });
  }, 600_000);

  afterAll(async () => {
    await h?.close();
  });

  async function visit(browser: Browser, width: (typeof WIDTHS)[number], name: string, path: string, errors: string[]): Promise<Page> {
    const context = await browser.newContext({ viewport: width.viewport, isMobile: width.isMobile, deviceScaleFactor: 1 });
    await context.addInitScript((t) => localStorage.setItem('wis.console.token', t), token);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico')) errors.push(`${name} ${width.name}: ${m.text()}`);
    });
    page.on('pageerror', (e) => errors.push(`${name} ${width.name}: page error ${e.message}`));
    page.on('response', (r) => {
      if (r.status() >= 500) errors.push(`${name} ${width.name}: ${r.status()} from ${r.request().method()} ${r.url()}`);
    });
    await page.goto(h.app(path));
    await page.locator('main h1').waitFor();
    await page.waitForLoadState('networkidle');
    await page.waitForFunction(() => !document.querySelector('.loading'), undefined, { timeout: 15_000 });
    return page;
  }

  for (const width of WIDTHS) {
    it(`opens every page at ${width.viewport.width} px: no error, no sideways scrolling, 0 axe violations`, async () => {
      const errors: string[] = [];
      const failures: string[] = [];
      const only = process.env.CONSOLE_PAGES?.split(',');
      for (const [name, path] of pages.filter(([n]) => !only || only.includes(n))) {
        const page = await visit(h.browser, width, name, path, errors);
        try {
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          if (overflow > 0) failures.push(`${name}: ${overflow} px of sideways scrolling`);
          await expectAccessible(page, `${name} at ${width.viewport.width} px`).catch((e: Error) => failures.push(e.message.split('\n')[0]!));
          await page.screenshot({
            path: `${SHOTS}/${name}-${width.name}.${KEEP ? 'jpg' : 'png'}`,
            fullPage: true,
            ...(KEEP ? { type: 'jpeg' as const, quality: 70 } : {}),
          });
        } finally {
          await page.context().close();
        }
      }
      expect(failures).toEqual([]);
      expect(errors).toEqual([]);
    }, 600_000);
  }
});
