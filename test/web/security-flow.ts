/**
 * The console, the payment page and the API reference driven in Chromium while every CSP violation, page error and
 * console error is recorded (section 22: "the console works in Chromium with no CSP violation reported"). Shared by
 * the direct run (security.test.ts) and the run through Caddy (caddy.test.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Browser, Page, Response } from 'playwright-core';

export interface FlowReport {
  /** `securitypolicyviolation` events, from any frame: directive and blocked URI. */
  violations: string[];
  /** Uncaught exceptions and console errors (CSP reports included: Chromium logs them as errors too). */
  errors: string[];
  /** The main-document answers, by name: their headers (lower-case). */
  documents: Record<string, Record<string, string>>;
  /** The payment page's script was fetched and ran (integrity matched). */
  paymentScriptLoaded: boolean;
  subscriptionActive: boolean;
}

const RECORD_VIOLATIONS = () => {
  document.addEventListener('securitypolicyviolation', (e) => {
    console.error(
      `CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline'} on ${location.pathname} (${e.sourceFile}:${e.lineNumber}:${e.columnNumber} ${e.sample})`,
    );
  });
};

export async function driveConsole(browser: Browser, base: string, shot?: (name: string, page: Page) => Promise<unknown>): Promise<FlowReport> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ignoreHTTPSErrors: true });
  const report: FlowReport = { violations: [], errors: [], documents: {}, paymentScriptLoaded: false, subscriptionActive: false };
  try {
    const email = `sec.${randomUUID()}@example.com`;
    const signUp = await context.request.post(`${base}/api/auth/sign-up/`, { data: { email, password: 'correct horse battery', display_name: 'Sec' } });
    if (signUp.status() !== 201) throw new Error(`sign-up: ${signUp.status()} ${await signUp.text()}`);
    const token = ((await signUp.json()) as { token: string }).token;
    const slug = `sec-${Date.now().toString(36)}`;
    const ws = await context.request.post(`${base}/api/workspaces/`, { data: { name: 'Security', slug }, headers: { authorization: `Bearer ${token}` } });
    if (ws.status() !== 201) throw new Error(`workspace: ${ws.status()} ${await ws.text()}`);

    await context.addInitScript(([k, t]) => localStorage.setItem(k, t), ['wis.console.token', token] as const);
    await context.addInitScript(RECORD_VIOLATIONS);
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    page.on('console', (m) => {
      if (m.type() !== 'error') return;
      const text = m.text();
      if (text.startsWith('CSP violation:')) report.violations.push(text);
      // The browser's own favicon request (the service has none) is not the page's error.
      else if (!m.location().url.endsWith('/favicon.ico')) report.errors.push(`${text} (${m.location().url})`);
    });
    page.on('pageerror', (e) => report.errors.push(`page error: ${e.message}`));
    page.on('requestfinished', (r) => {
      if (r.url().includes('/payment-page/assets/')) void r.response().then((res) => (report.paymentScriptLoaded ||= res?.status() === 200));
    });
    const keep = (name: string, res: Response | null) => {
      if (res) report.documents[name] = res.headers();
    };
    context.on('response', (res) => {
      if (res.request().resourceType() === 'document' && res.url().includes('/odeme/guvenli/') && !report.documents.payment)
        report.documents.payment = res.headers();
    });

    keep('console', await page.goto(`${base}/app/`));
    await page.locator('main h1').waitFor();
    await page.goto(`${base}/app/w/${slug}/billing`);
    await page.getByRole('heading', { name: 'Subscription and limits' }).waitFor();
    await page.getByLabel('Plan', { exact: true }).selectOption('business');
    await page.getByRole('button', { name: 'Go to payment' }).click();
    const frame = page.frameLocator('iframe[title="Payment page"]');
    await frame.getByRole('button', { name: /^Pay / }).waitFor();
    await page.waitForTimeout(500);
    if (shot) await shot('security-checkout', page);
    await frame.getByRole('button', { name: /^Pay / }).click();
    await frame.getByRole('heading', { name: 'Payment received' }).waitFor();
    for (let i = 0; i < 40 && !report.subscriptionActive; i++) {
      await page.getByRole('button', { name: 'refresh the subscription' }).click();
      report.subscriptionActive = await page
        .locator('.card')
        .getByText('Active', { exact: true })
        .waitFor({ timeout: 500 })
        .then(() => true)
        .catch(() => false);
    }

    keep('docs', await page.goto(`${base}/docs/`));
    await page.getByText('Work-Item Service', { exact: false }).first().waitFor();
    await page.waitForTimeout(500);
    if (shot) await shot('security-docs', page);
    return report;
  } finally {
    await context.close();
  }
}
