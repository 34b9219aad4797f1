/**
 * What every browser test file needs: the built console, a real service on a fresh database, Chromium, and a signed-up
 * admin with a workspace whose token the pages start with. Screenshots go to test-results/web (not committed).
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { expect } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildWeb } from '../../scripts/build-web.js';
import { type ConfigOverrides, startTestApp, type TestApp } from '../helpers/test-app.js';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
const SHOTS = 'test-results/web';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const TOKEN_KEY = 'wis.console.token';

export interface Harness {
  ctx: TestApp;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** The admin's token (first user: also the instance admin). */
  token: string;
  slug: string;
  app(path?: string): string;
  shot(name: string, p?: Page): Promise<void>;
  /** Opens `path` at 390 px wide: no sideways scrolling, every input labelled; saves `<name>` screenshot. */
  checkPhone(name: string, path: string, ready?: (p: Page) => Promise<unknown>): Promise<void>;
  signUp(name: string): Promise<{ token: string; userId: string; email: string }>;
  close(): Promise<void>;
}

export async function startHarness(prefix: string, overrides: ConfigOverrides = {}): Promise<Harness> {
  buildWeb({ quiet: true });
  await mkdir(SHOTS, { recursive: true });
  const ctx = await startTestApp(overrides);
  let n = 0;
  const signUp = async (name: string) => {
    const email = `${name.toLowerCase()}.${Date.now()}.${++n}@example.com`;
    const res = await ctx.api.post('/api/auth/sign-up/', { email, password: 'correct horse battery', display_name: name });
    expect(res.status, res.text).toBe(201);
    return { token: res.body.token as string, userId: res.body.user.id as string, email };
  };
  const admin = await signUp('Ada');
  const slug = `${prefix}-${Date.now().toString(36)}`;
  const ws = await ctx.api.post('/api/workspaces/', { name: `Acme ${prefix}`, slug }, { token: admin.token });
  expect(ws.status, ws.text).toBe(201);
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(([k, t]) => localStorage.setItem(k, t), [TOKEN_KEY, admin.token] as const);
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const app = (path = '') => `${ctx.url}/app${path}`;
  const shot = async (name: string, p: Page = page) => {
    await p.screenshot({ path: `${SHOTS}/${prefix}-${name}.png`, fullPage: true });
  };
  return {
    ctx,
    browser,
    context,
    page,
    token: admin.token,
    slug,
    app,
    shot,
    signUp,
    async checkPhone(name, path, ready) {
      const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true });
      try {
        await phone.addInitScript(([k, t]) => localStorage.setItem(k, t), [TOKEN_KEY, admin.token] as const);
        const p = await phone.newPage();
        p.setDefaultTimeout(10_000);
        await p.goto(app(path));
        await p.locator('main h1').waitFor();
        await p.waitForLoadState('networkidle');
        if (ready) await ready(p);
        // Network idle is not rendered: on a loaded machine the last answer's render can follow it.
        await p.waitForFunction(() => !document.querySelector('.loading'), undefined, { timeout: 15_000 }).catch(() => undefined);
        expect(await p.locator('.loading').count(), `${name}: still loading`).toBe(0);
        const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow, `${name}: sideways scrolling`).toBeLessThanOrEqual(0);
        const unlabelled = await p.evaluate(() =>
          [...document.querySelectorAll('input, select, textarea')].filter((el) => !(el as HTMLInputElement).labels?.length).map((el) => el.outerHTML),
        );
        expect(unlabelled, `${name}: unlabelled controls`).toEqual([]);
        await shot(`${name}-phone`, p);
      } finally {
        await phone.close();
      }
    },
    async close() {
      await browser.close();
      await ctx.close();
    },
  };
}

/**
 * Presses Tab from the page heading until the focused element's name (its aria-label, or its text) matches `name`,
 * then checks that the focus outline shows. Keyboard use: the control is reachable and visibly focused.
 */
export async function tabTo(page: Page, name: string | RegExp, max = 60): Promise<void> {
  await page.locator('main h1').focus();
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const el = document.activeElement;
      return el ? (el.getAttribute('aria-label') ?? el.textContent ?? '').trim() : '';
    });
    if (typeof name === 'string' ? focused === name : name.test(focused)) {
      const outline = await page.evaluate(() => getComputedStyle(document.activeElement as Element).outlineStyle);
      expect(outline, `focus outline on ${focused}`).toBe('solid');
      return;
    }
  }
  throw new Error(`Tab never reached ${String(name)}`);
}

/**
 * Runs axe-core (WCAG 2.0, 2.1 and 2.2 A/AA rules and best practice) on the page as it stands and fails on any
 * violation of any impact (issue 41: 0 violations on every page and state), naming the rule and the first elements it
 * found. The page must have finished loading what it shows.
 */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  const source = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  // Evaluated through the DevTools protocol, not added as a script element: the console's CSP (script-src 'self')
  // rightly refuses inline scripts, and the harness counts every CSP violation as a failure.
  await page.evaluate(source);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(ctx: Document, o: object): Promise<{ violations: { id: string; impact: string | null; nodes: { target: unknown[] }[] }[] }> };
      }
    ).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa', 'best-practice'] },
    });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)) }));
  });
  expect(violations, `${what}: ${JSON.stringify(violations)}`).toEqual([]);
}

/**
 * Collects the console errors of the harness's pages, CSP violations included (they reach the console as errors), in
 * `errors`, except those of `/favicon.ico` and of URLs containing a part of `expected` (errors a test causes on
 * purpose: a 404 or 402 it shows as such). The test asserts `errors` is empty where it wants no error.
 */
export async function recordConsoleErrors(h: Pick<Harness, 'context' | 'page'>, errors: string[], expected: readonly string[] = []): Promise<void> {
  await h.context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline'} on ${location.pathname}`);
    });
  });
  h.page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const url = m.location().url;
    if (url.endsWith('/favicon.ico') || expected.some((part) => url.includes(part))) return;
    errors.push(`${m.text()} (${url})`);
  });
  h.page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
}
