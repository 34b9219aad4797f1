import { describe, expect, it } from 'vitest';
import { runBillingCommand } from '../../src/cli/billing.js';
import { createWorkspace } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { instanceAdmin } from '../billing/billing-helpers.js';
import { paidPayment, paymentByOid } from './support.js';

const ctx = useTestApp({ sessionTtlDays: 3650 });

async function cli(args: string[], env: Record<string, string> = {}) {
  const lines: string[] = [];
  const errors: string[] = [];
  const code = await runBillingCommand(args, env, { log: (s) => lines.push(s), error: (s) => errors.push(s) });
  return { code, out: lines.join('\n'), err: errors.join('\n') };
}

describe('the operator CLI for billing', () => {
  it('lists plans, coupons and payments, refunds and reconciles a payment', async () => {
    const t = ctx();
    const operator = await instanceAdmin(t);
    const ws = await createWorkspace(t.api);
    const payment = await paidPayment(t, ws);
    const auth = ['--url', t.url, '--token', operator.token];

    const plans = await cli(['plans', 'list', ...auth]);
    expect(plans.code).toBe(0);
    expect(JSON.parse(plans.out).map((p: any) => p.slug)).toContain('pro');

    expect((await cli(['coupons', 'create', ...auth, '--code', 'OPS10', '--percent-off', '10'])).code).toBe(0);
    expect(JSON.parse((await cli(['coupons', 'list', ...auth])).out).map((c: any) => c.code)).toContain('ops10');
    expect((await cli(['coupons', 'delete', ...auth, '--code', 'OPS10'])).code).toBe(0);

    const list = await cli(['payments', 'list', ...auth, '--workspace', ws.slug, '--status', 'success']);
    expect(JSON.parse(list.out)).toMatchObject({ total: 1, results: [{ id: payment.id }] });

    const refund = await cli(['payments', 'refund', ...auth, '--id', payment.id, '--amount', '900', '--reason', 'goodwill', '--key', 'ticket-1']);
    expect(refund.code, refund.err).toBe(0);
    expect(JSON.parse(refund.out)).toMatchObject({ payment_id: payment.id, amount: 900, reason: 'goodwill', credit_note_number: expect.stringMatching(/^CN-/) });
    expect((await paymentByOid(t, ws, payment.merchant_oid)).refunded_amount).toBe(900);

    const reconcile = await cli(['payments', 'reconcile', ...auth, '--id', payment.id], { WIS_TOKEN: operator.token });
    expect(JSON.parse(reconcile.out)).toMatchObject({ id: payment.id, status: 'success', refunded_amount: 900 });

    // errors: the API's answer, exit code 1; usage errors exit 2
    const over = await cli(['payments', 'refund', ...auth, '--id', payment.id, '--amount', '99999999']);
    expect(over.code).toBe(1);
    expect(over.err).toMatch(/HTTP 400/);
    expect((await cli(['payments', 'refund', '--url', t.url, '--id', payment.id])).code).toBe(2);
    expect((await cli(['payments', 'explode', ...auth])).code).toBe(2);
    const denied = await cli(['payments', 'list', '--url', t.url, '--token', ws.admin.token]);
    expect(denied.code).toBe(1);
    expect(denied.err).toMatch(/HTTP 403/);
  });
});
