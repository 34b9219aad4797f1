import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { invoiceDetailView } from '../../src/modules/billing/invoices/invoices.views.js';
import { openEmptyDatabase } from '../helpers/databases.js';

/** 1050 on invoices and refunds written before it: the split is added at the default rate, no amount is rewritten. */
describe('migration 1050 (billing documents) on data written before it', () => {
  let handle: DatabaseHandle;
  const now = new Date('2026-01-15T10:00:00Z');
  const user = randomUUID();
  const workspace = randomUUID();
  const payment = randomUUID();
  const upgrade = randomUUID();
  const invoice = randomUUID();
  const upgradeInvoice = randomUUID();
  const refunded = randomUUID();
  const reserved = randomUUID();

  beforeAll(async () => {
    handle = await openEmptyDatabase();
    await migrateTo(handle.db, '1000_time_tracking');
    const db = handle.db;
    await sql`INSERT INTO users (id, email, display_name, password_hash, created_at, updated_at)
              VALUES (${user}, 'old@example.com', 'Old', 'x', ${now}, ${now})`.execute(db);
    await sql`INSERT INTO workspaces (id, slug, name, created_by, created_at, updated_at)
              VALUES (${workspace}, 'old-docs', 'Old', ${user}, ${now}, ${now})`.execute(db);
    const pay = (id: string, oid: string, list: number, discount: number, credit: number) =>
      sql`INSERT INTO payments (id, workspace_id, merchant_oid, plan_slug, billing_interval, list_amount, discount_amount, proration_credit,
                                amount, currency, coupon_code, status, created_at, paid_at, updated_at)
          VALUES (${id}, ${workspace}, ${oid}, 'pro', 'month', ${list}, ${discount}, ${credit}, ${list - discount - credit}, 'TRY',
                  ${discount ? 'spring' : null}, 'success', ${now}, ${now}, ${now})`.execute(db);
    await pay(payment, 'OLD1', 29900, 5980, 0);
    await pay(upgrade, 'OLD2', 79900, 0, 12345);
    const inv = (id: string, paymentId: string, n: string, list: number, discount: number, credit: number) =>
      sql`INSERT INTO invoices (id, workspace_id, payment_id, invoice_number, plan_slug, plan_name, billing_interval, subtotal_amount,
                                discount_amount, proration_credit, total_amount, currency, coupon_code, period_start, period_end, created_at)
          VALUES (${id}, ${workspace}, ${paymentId}, ${n}, 'pro', 'Pro', 'month', ${list}, ${discount}, ${credit}, ${list - discount - credit},
                  'TRY', ${discount ? 'spring' : null}, ${now}, ${new Date('2026-02-15T10:00:00Z')}, ${now})`.execute(db);
    await inv(invoice, payment, 'INV-2026-000001', 29900, 5980, 0);
    await inv(upgradeInvoice, upgrade, 'INV-2026-000002', 79900, 0, 12345);
    await sql`UPDATE payments SET refunded_amount = 10000, refund_reserved_amount = 500 WHERE id = ${payment}`.execute(db);
    const refund = (id: string, amount: number, status: string, number: string | null) =>
      sql`INSERT INTO refunds (id, payment_id, workspace_id, amount, currency, status, credit_note_number, created_at)
          VALUES (${id}, ${payment}, ${workspace}, ${amount}, 'TRY', ${status}, ${number}, ${now})`.execute(db);
    await refund(refunded, 10000, 'succeeded', 'CN-2026-000001');
    await refund(reserved, 500, 'reserved', null);
    await migrateToLatest(db);
  });
  afterAll(async () => handle?.close());

  it('gives invoices the split at the default 20 % without touching their amounts, and no parties', async () => {
    const rows = await handle.db.selectFrom('invoices').selectAll().orderBy('invoice_number').execute();
    expect(rows.map((r) => [r.subtotal_amount, r.discount_amount, r.proration_credit, r.total_amount])).toEqual([
      [29900, 5980, 0, 23920],
      [79900, 0, 12345, 67555],
    ]);
    expect(rows.map((r) => [r.tax_rate_bp, r.net_amount, r.tax_amount])).toEqual([
      [2000, 19933, 3987],
      [2000, 56296, 11259], // 67555 / 1.2 = 56295.83 -> 56296
    ]);
    expect(rows.map((r) => [r.bill_to, r.seller, r.lines])).toEqual([
      [null, null, null],
      [null, null, null],
    ]);
  });

  it('derives the lines of an old invoice from its stored fields, adding up to its total', async () => {
    const row = await handle.db.selectFrom('invoices').selectAll().where('id', '=', upgradeInvoice).executeTakeFirstOrThrow();
    const view = invoiceDetailView(row);
    expect(view.lines.map((l) => l.amount)).toEqual([79900, -12345]);
    expect(view.lines.reduce((s, l) => s + l.amount, 0)).toBe(row.total_amount);
    expect(view).toMatchObject({ net_amount: 56296, tax_amount: 11259, tax_rate_bp: 2000, bill_to: null, seller: null });
    const first = invoiceDetailView(await handle.db.selectFrom('invoices').selectAll().where('id', '=', invoice).executeTakeFirstOrThrow());
    expect(first.lines.map((l) => [l.description, l.amount])).toEqual([
      ['Pro plan, monthly', 29900],
      ['Coupon spring', -5980],
    ]);
  });

  it('gives issued credit notes the split and their issue date; a reserved refund waits for its own', async () => {
    const rows = await handle.db.selectFrom('refunds').selectAll().orderBy('amount', 'desc').execute();
    expect(rows.map((r) => [r.id, r.amount, r.tax_rate_bp, r.net_amount, r.tax_amount, r.issued_at?.toISOString() ?? null])).toEqual([
      [refunded, 10000, 2000, 8333, 1667, now.toISOString()],
      [reserved, 500, null, null, null, null],
    ]);
    // the reserved refund completes later with its own split (the service does this in its confirm step)
    await handle.db
      .updateTable('refunds')
      .set({ status: 'succeeded', credit_note_number: 'CN-2026-000002', tax_rate_bp: 1800, net_amount: 424, tax_amount: 76, issued_at: now })
      .where('workspace_id', '=', workspace)
      .where('id', '=', reserved)
      .execute();
    // a split that does not add up is refused
    await expect(
      sql`UPDATE invoices SET tax_amount = tax_amount + 1 WHERE workspace_id = ${workspace} AND id = ${invoice}`.execute(handle.db),
    ).rejects.toMatchObject({ code: '23514' });
  });
});
