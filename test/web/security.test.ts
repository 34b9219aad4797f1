import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { buildWeb } from '../../scripts/build-web.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { CHROMIUM } from './harness.js';
import { driveConsole } from './security-flow.js';

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

describe.skipIf(!existsSync(CHROMIUM))('section 22 in Chromium: the console, the payment page and the API reference under their CSPs', () => {
  let ctx: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    buildWeb({ quiet: true });
    await mkdir('test-results/web', { recursive: true });
    ctx = await startTestApp();
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await ctx?.close();
  });

  it('signs in, checks out in the payment iframe (its SRI-checked script runs), opens /docs: no CSP violation, no page or console error', async () => {
    const report = await driveConsole(browser, ctx.url, (name, page: Page) => page.screenshot({ path: `test-results/web/${name}.png`, fullPage: true }));
    expect(report.violations).toEqual([]);
    expect(report.errors).toEqual([]);
    expect(report.paymentScriptLoaded).toBe(true);
    expect(report.subscriptionActive).toBe(true);
    expect(report.documents.console?.['content-security-policy']).toMatch(/script-src 'self';/);
    expect(report.documents.docs?.['content-security-policy']).toMatch(/script-src 'self' 'sha256-/);
    expect(report.documents.payment?.['content-security-policy']).toMatch(/script-src 'sha384-[^']+';/);
  }, 120_000);
});
