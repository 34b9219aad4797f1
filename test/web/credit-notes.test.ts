import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, type Harness, startHarness } from './harness.js';

describe.skipIf(!hasChromium)('billing credit notes in Chromium', () => {
  let h: Harness;
  let paymentId = '';
  let merchantOid = '';

  beforeAll(async () => {
    h = await startHarness('credit-notes');
  });

  afterAll(async () => {
    await h?.close();
  });

  it('shows no credit notes for a paid workspace without refunds', async () => {
    const { page } = h;
    const checkout = await h.ctx.api.post(`/api/workspaces/${h.slug}/billing/checkout/`, { plan_slug: 'pro', billing_interval: 'month' }, { token: h.token });
    expect(checkout.status, checkout.text).toBe(201);
    merchantOid = checkout.body.merchant_oid;
    // Pay on the sandbox's payment page, as a customer would.
    await page.goto(checkout.body.iframe_url);
    await page.getByRole('button', { name: /^Pay / }).click();
    await expect
      .poll(async () => (await h.ctx.api.get(`/api/workspaces/${h.slug}/billing/payments/`, { token: h.token })).body.results[0]?.status)
      .toBe('success');
    paymentId = (await h.ctx.api.get(`/api/workspaces/${h.slug}/billing/payments/`, { token: h.token })).body.results[0].id;

    // Billing is in tabs (issue 41): the documents have their own.
    await page.goto(h.app(`/w/${h.slug}/billing?tab=documents`));
    await page.getByRole('heading', { name: 'Credit notes' }).waitFor();
    await page.getByText('No credit notes').waitFor();
  });

  it('lists the credit notes of refunds, newest first, and pages through them', async () => {
    const { page } = h;
    const refund = (amount: number, reason: string) => h.ctx.api.post(`/api/admin/payments/${paymentId}/refund/`, { amount, reason }, { token: h.token });
    const first = await refund(10_000, 'Goodwill');
    expect(first.status, first.text).toBe(201);
    for (let i = 0; i < 21; i++) expect((await refund(1, `Correction ${i + 1}`)).status).toBe(201);

    await page.reload();
    const pager = page.getByRole('navigation', { name: 'Credit note pages' });
    await pager.getByText('1–20 of 22').waitFor();
    const table = page.locator('table').filter({ hasText: 'Payment order' });
    const rows = table.locator('tbody tr');
    expect(await rows.count()).toBe(20);
    expect(await rows.first().textContent()).toContain('Correction 21');
    expect(await rows.first().textContent()).toMatch(/CN-\d{4}-\d{6}/);
    expect(await rows.first().textContent()).toContain(merchantOid);
    await h.shot('credit-notes');
    await pager.getByRole('button', { name: 'Next' }).click();
    await pager.getByText('21–22 of 22').waitFor();
    expect(await rows.count()).toBe(2);
    const goodwill = table.getByRole('row', { name: /Goodwill/ });
    expect(await goodwill.textContent()).toContain(first.body.credit_note_number);
    expect(await goodwill.textContent()).toMatch(/100[.,]00/);
    // The payment shows what was refunded of it.
    expect(
      await page
        .getByRole('row', { name: new RegExp(merchantOid) })
        .first()
        .textContent(),
    ).toMatch(/Refunded/);
    await h.checkPhone('billing', `/w/${h.slug}/billing?tab=documents`);
  });
});
