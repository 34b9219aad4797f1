import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, type Harness, startHarness } from './harness.js';

/** Contract 19.8 (part): the billing profile form, and each invoice and credit note with its tax split and a PDF link. */
describe.skipIf(!hasChromium)('billing documents in Chromium', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness('billing-docs');
  });

  afterAll(async () => {
    await h?.close();
  });

  it('saves the billing profile and shows the API field errors next to the fields', async () => {
    const { page } = h;
    // Billing is in tabs (issue 41): the profile has its own.
    await page.goto(h.app(`/w/${h.slug}/billing`));
    await page.getByRole('tab', { name: 'Profile' }).click();
    await page.getByRole('heading', { name: 'Billing profile' }).waitFor();
    expect(new URL(page.url()).search).toBe('?tab=profile');
    const form = page.locator('form').filter({ hasText: 'Save billing profile' });
    // before the first save: empty, country TR
    expect(await form.getByLabel('Country').inputValue()).toBe('TR');
    expect(await form.getByLabel('Legal name').inputValue()).toBe('');

    await form.getByLabel('Legal name').fill('Çağrı Şenöz Yazılım A.Ş.');
    await form.getByLabel('Tax id').fill('4540536921'); // a VKN with a wrong check digit
    await form.getByLabel('Invoice e-mail').fill('not-an-address');
    await form.getByRole('button', { name: 'Save billing profile' }).click();
    await form.locator('.field.invalid').first().waitFor();
    const invalid = form.locator('.field.invalid');
    // both fields, each with the API's message next to it
    expect(await invalid.count()).toBe(2);
    expect(await invalid.filter({ hasText: 'Tax id' }).textContent()).toContain('VKN');
    expect(await invalid.filter({ hasText: 'Invoice e-mail' }).textContent()).toContain('must be an e-mail address');
    await h.shot('profile-errors');

    await form.getByLabel('Tax id').fill('4540536920');
    await form.getByLabel('Invoice e-mail').fill('fatura@example.com');
    await form.getByLabel('City').fill('İstanbul');
    await form.getByRole('button', { name: 'Save billing profile' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect(await form.locator('.field.invalid').count()).toBe(0);
    const stored = await h.ctx.api.get(`/api/workspaces/${h.slug}/billing/profile/`, { token: h.token });
    expect(stored.body).toMatchObject({
      legal_name: 'Çağrı Şenöz Yazılım A.Ş.',
      tax_id: '4540536920',
      city: 'İstanbul',
      country: 'TR',
      email: 'fatura@example.com',
    });
    await page.reload();
    expect(await page.locator('form').filter({ hasText: 'Save billing profile' }).getByLabel('Legal name').inputValue()).toBe('Çağrı Şenöz Yazılım A.Ş.');
  });

  it('lists invoices and credit notes with their tax split and a PDF link that downloads the document', async () => {
    const { page } = h;
    const checkout = await h.ctx.api.post(`/api/workspaces/${h.slug}/billing/checkout/`, { plan_slug: 'pro', billing_interval: 'month' }, { token: h.token });
    expect(checkout.status, checkout.text).toBe(201);
    await page.goto(checkout.body.iframe_url);
    await page.getByRole('button', { name: /^Pay / }).click();
    await expect.poll(async () => (await h.ctx.api.get(`/api/workspaces/${h.slug}/billing/invoices/`, { token: h.token })).body.results.length).toBe(1);
    const invoice = (await h.ctx.api.get(`/api/workspaces/${h.slug}/billing/invoices/`, { token: h.token })).body.results[0];
    const payment = (await h.ctx.api.get(`/api/workspaces/${h.slug}/billing/payments/`, { token: h.token })).body.results[0];
    const refund = await h.ctx.api.post(`/api/admin/payments/${payment.id}/refund/`, { amount: 10_000, reason: 'Goodwill' }, { token: h.token });
    expect(refund.status, refund.text).toBe(201);

    await page.goto(h.app(`/w/${h.slug}/billing?tab=documents`));
    const invoiceRow = page.getByRole('row', { name: new RegExp(invoice.invoice_number) });
    await invoiceRow.waitFor();
    // 299.00 = 249.17 net + 49.83 KDV (20 %)
    expect(await invoiceRow.textContent()).toMatch(/249[.,]17/);
    expect(await invoiceRow.textContent()).toMatch(/49[.,]83/);
    expect(await invoiceRow.textContent()).toMatch(/20\s?%/);
    const link = invoiceRow.getByRole('link', { name: `PDF of invoice ${invoice.invoice_number}` });
    expect(await link.getAttribute('href')).toBe(`/api/workspaces/${h.slug}/billing/invoices/${invoice.id}/pdf/`);
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe(`${invoice.invoice_number}.pdf`);
    const file = await download.path();
    const { readFile } = await import('node:fs/promises');
    expect((await readFile(file)).subarray(0, 5).toString('latin1')).toBe('%PDF-');

    const noteRow = page.getByRole('row', { name: new RegExp(refund.body.credit_note_number) });
    await noteRow.waitFor();
    expect(await noteRow.textContent()).toMatch(/83[.,]33/);
    expect(await noteRow.textContent()).toMatch(/16[.,]67/);
    const noteLink = noteRow.getByRole('link', { name: `PDF of credit note ${refund.body.credit_note_number}` });
    const [noteDownload] = await Promise.all([page.waitForEvent('download'), noteLink.click()]);
    expect(noteDownload.suggestedFilename()).toBe(`${refund.body.credit_note_number}.pdf`);
    await h.shot('documents');
  });
});
