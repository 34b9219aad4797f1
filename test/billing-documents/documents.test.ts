import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createWorkspace, expectProblem, type WorkspaceFixture } from '../helpers/factories.js';
import { startTestApp, type TestApp, useTestApp } from '../helpers/test-app.js';
import { instanceAdmin } from '../billing/billing-helpers.js';
import { eventsOf, paidPayment } from '../billing/billing-client.js';
import { expectPdf, fetchPdf, pdfText } from './support.js';

const SELLER = { name: 'Örnek Bilişim Hizmetleri A.Ş.', taxId: '4540536920', taxOffice: 'Beşiktaş', address: 'Barbaros Bulvarı No: 1, İstanbul' };
const ctx = useTestApp({ billingSeller: SELLER });

const BUYER = {
  legal_name: 'Çağrı Şenöz Yazılım İşleri Ltd. Şti.',
  tax_id: '10000000146',
  tax_office: 'Üsküdar',
  address_line: 'Gül Sokak No: 7',
  city: 'İstanbul',
  postal_code: '34662',
  country: 'TR',
  email: 'muhasebe@example.com',
};

const billing = (ws: WorkspaceFixture, rest: string) => `/api/workspaces/${ws.slug}/billing/${rest}`;

async function putProfile(t: TestApp, ws: WorkspaceFixture, body: Record<string, unknown>) {
  const res = await t.api.put(billing(ws, 'profile/'), body, { token: ws.admin.token });
  expect(res.status, res.text).toBe(200);
}

async function invoices(t: TestApp, ws: WorkspaceFixture) {
  const res = await t.api.get(billing(ws, 'invoices/'), { token: ws.admin.token });
  expect(res.status, res.text).toBe(200);
  return res.body.results as Record<string, any>[];
}

async function couponPayment(t: TestApp, ws: WorkspaceFixture, operatorToken: string) {
  const code = `c${Math.random().toString(36).slice(2, 10)}`;
  const created = await t.api.post('/api/admin/coupons/', { code, percent_off: 20 }, { token: operatorToken });
  expect(created.status, created.text).toBe(201);
  return paidPayment(t, ws, { plan_slug: 'pro', billing_interval: 'month', coupon_code: code });
}

describe('invoice documents (contract 19.4-19.6)', () => {
  it('an invoice freezes its tax split, buyer, seller and lines; its PDF shows them in Turkish', async () => {
    const t = ctx();
    const operator = await instanceAdmin(t);
    const ws = await createWorkspace(t.api);
    await putProfile(t, ws, BUYER);
    const payment = await couponPayment(t, ws, operator.token);
    expect(payment).toMatchObject({ amount: 23920, discount_amount: 5980 });

    const [listed] = await invoices(t, ws);
    expect(listed).toMatchObject({
      total_amount: 23920,
      subtotal_amount: 29900,
      net_amount: 19933,
      tax_rate_bp: 2000,
      tax_amount: 3987,
      bill_to: BUYER,
      seller: { name: SELLER.name, tax_id: SELLER.taxId, tax_office: SELLER.taxOffice, address: SELLER.address },
      payment_id: payment.id,
    });
    expect(listed).not.toHaveProperty('lines');

    const detail = await t.api.get(billing(ws, `invoices/${listed!.id}/`), { token: ws.admin.token });
    expect(detail.status, detail.text).toBe(200);
    expect(detail.body).toEqual({ ...listed, lines: expect.any(Array) });
    const lines = detail.body.lines as { description: string; amount: number; quantity: number; period_start: string | null; period_end: string | null }[];
    expect(lines).toEqual([
      { description: 'Pro plan, monthly', period_start: listed!.period_start, period_end: listed!.period_end, quantity: 1, amount: 29900 },
      { description: `Coupon ${payment.coupon_code}`, period_start: listed!.period_start, period_end: listed!.period_end, quantity: 1, amount: -5980 },
    ]);
    expect(lines.reduce((s, l) => s + l.amount, 0)).toBe(listed!.total_amount);
    // without the trailing slash too
    expect((await t.api.get(billing(ws, `invoices/${listed!.id}`), { token: ws.admin.token })).status).toBe(200);

    // invoice.created carries the same record, lines included
    const [event] = await eventsOf(t, ws.workspaceId, 'invoice.created');
    expect(event!.data).toEqual(detail.body);

    // later edits of the profile never reach an issued invoice
    await putProfile(t, ws, { legal_name: 'Someone Else' });
    expect((await t.api.get(billing(ws, `invoices/${listed!.id}/`), { token: ws.admin.token })).body.bill_to).toEqual(BUYER);

    const pdf = await fetchPdf(`${t.url}${billing(ws, `invoices/${listed!.id}/pdf/`)}`, ws.admin.token);
    expectPdf(pdf);
    expect(pdf.disposition).toContain(`${listed!.invoice_number}.pdf`);
    const text = pdfText(pdf.bytes, 'invoice');
    if (text !== null) {
      for (const expected of [
        listed!.invoice_number,
        'FATURA',
        BUYER.legal_name, // ç ğ ı İ ş
        'Üsküdar', // ü
        SELLER.name, // ö ş
        'Beşiktaş',
        'Pro plan, monthly',
        '299,00 TRY',
        '-59,80 TRY',
        'Matrah',
        '199,33 TRY',
        'KDV %20',
        '39,87 TRY',
        '239,20 TRY',
        'Düzenleme tarihi',
      ]) {
        expect(text, `the PDF text lacks "${expected}":\n${text}`).toContain(expected);
      }
      for (const letter of ['ş', 'ğ', 'ı', 'İ', 'ç', 'ö', 'ü']) expect(text).toContain(letter);
    }
  });

  it('a credit note freezes its split, buyer and seller; its PDF refers to the invoice', async () => {
    const t = ctx();
    const operator = await instanceAdmin(t);
    const ws = await createWorkspace(t.api);
    const payment = await paidPayment(t, ws);
    const [invoice] = await invoices(t, ws);
    // no profile at issue: bill_to null
    expect(invoice).toMatchObject({ total_amount: 29900, net_amount: 24917, tax_amount: 4983, tax_rate_bp: 2000, bill_to: null });

    await putProfile(t, ws, BUYER);
    const refund = await t.api.post(`/api/admin/payments/${payment.id}/refund/`, { amount: 10000, reason: 'Müşteri iadesi' }, { token: operator.token });
    expect(refund.status, refund.text).toBe(201);
    expect(refund.body).toMatchObject({ amount: 10000, net_amount: 8333, tax_amount: 1667, tax_rate_bp: 2000, bill_to: BUYER, seller: { name: SELLER.name } });

    const notes = await t.api.get(billing(ws, 'credit-notes/'), { token: ws.admin.token });
    expect(notes.body.results).toEqual([refund.body]);
    // payment.refunded carries the credit note with its new fields
    const [event] = await eventsOf(t, ws.workspaceId, 'payment.refunded');
    expect(event!.data).toMatchObject({ refund: refund.body });

    const pdf = await fetchPdf(`${t.url}${billing(ws, `credit-notes/${refund.body.id}/pdf/`)}`, ws.admin.token);
    expectPdf(pdf);
    const text = pdfText(pdf.bytes, 'credit-note');
    if (text !== null) {
      for (const expected of [
        refund.body.credit_note_number,
        invoice!.invoice_number,
        BUYER.legal_name,
        'Müşteri iadesi',
        '100,00 TRY',
        '83,33 TRY',
        '16,67 TRY',
        'KDV %20',
      ]) {
        expect(text, `the PDF text lacks "${expected}":\n${text}`).toContain(expected);
      }
    }
  });

  it('another workspace, a member or an unknown id never sees a document', async () => {
    const t = ctx();
    const operator = await instanceAdmin(t);
    const ws = await createWorkspace(t.api);
    const other = await createWorkspace(t.api);
    const member = await ws.addUser('member');
    const payment = await paidPayment(t, ws);
    const [invoice] = await invoices(t, ws);
    const refund = await t.api.post(`/api/admin/payments/${payment.id}/refund/`, { amount: 100 }, { token: operator.token });
    expect(refund.status, refund.text).toBe(201);

    const paths = [`invoices/${invoice!.id}/`, `invoices/${invoice!.id}/pdf/`, `credit-notes/${refund.body.id}/pdf/`];
    for (const p of paths) {
      // the other workspace's admin, through their own workspace: 404; through this one: 404 (not a member)
      expectProblem(await t.api.get(billing(other, p), { token: other.admin.token }), 404, 'not_found');
      expectProblem(await t.api.get(billing(ws, p), { token: other.admin.token }), 404, 'not_found');
      expectProblem(await t.api.get(billing(ws, p), { token: member.token }), 403, 'forbidden');
    }
    const unknown = '01900000-0000-7000-8000-000000000000';
    for (const p of [`invoices/${unknown}/`, `invoices/${unknown}/pdf/`, `credit-notes/${unknown}/pdf/`, `credit-notes/${invoice!.id}/pdf/`]) {
      expectProblem(await t.api.get(billing(ws, p), { token: ws.admin.token }), 404, 'not_found');
    }
    expectProblem(await t.api.get(billing(ws, 'invoices/not-a-uuid/'), { token: ws.admin.token }), 400, 'validation_failed');
  });

  it('the rate in force at issue is frozen on the document', async () => {
    const t = ctx();
    const ws = await createWorkspace(t.api);
    await paidPayment(t, ws);
    // the same database served with another rate: the issued invoice keeps 20 %, a new one takes 10 %
    const later = await startTestApp({ billingTaxRateBp: 1000, billingSeller: { ...SELLER, name: 'Yeni Unvan A.Ş.' } }, t.database);
    try {
      const [first] = await invoices(later, ws);
      expect(first).toMatchObject({ tax_rate_bp: 2000, net_amount: 24917, tax_amount: 4983, seller: { name: SELLER.name } });
      await paidPayment(later, ws, { plan_slug: 'business', billing_interval: 'month' });
      const [second] = await invoices(later, ws);
      expect(second).toMatchObject({ total_amount: second!.total_amount, tax_rate_bp: 1000, seller: { name: 'Yeni Unvan A.Ş.' } });
      const net = Math.floor((2 * second!.total_amount * 10000 + 11000) / 22000);
      expect(second).toMatchObject({ net_amount: net, tax_amount: second!.total_amount - net });
    } finally {
      await later.close();
    }
    const stored = await sql<{ n: number }>`SELECT count(*)::int AS n FROM invoices WHERE workspace_id = ${ws.workspaceId} AND tax_rate_bp = 2000`.execute(
      t.database.db,
    );
    expect(stored.rows[0]!.n).toBe(1);
  });
});
