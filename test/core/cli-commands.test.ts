import { describe, expect, it } from 'vitest';
import { type CliContext, UsageError } from '../../src/cli/cli.js';
import { catalogueCommands } from '../../src/cli/commands/catalogue.js';
import { paymentCommands } from '../../src/cli/commands/payments.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

/** The CLI's commands, run in-process against the test app's services, as the operator. */
function cli() {
  const lines: string[] = [];
  const c: CliContext = {
    config: () => ctx().config,
    out: (line) => lines.push(line),
    operator: { userId: '00000000-0000-7000-8000-000000000000', tokenId: 'cli', isInstanceAdmin: true, isOperator: true },
    services: async () => ctx().app.services,
    database: async () => ctx().database,
  };
  const all = [...catalogueCommands, ...paymentCommands];
  const run = (name: string, values: Record<string, string | boolean>) => all.find((x) => x.name === name)!.run(values, c);
  return { run, lines, last: () => lines.at(-1)! };
}

describe('cli plans, coupons and payments', () => {
  it("manages plans and coupons with the API's validation; refusals are AppErrors (exit 1), bad flags UsageErrors (exit 2)", async () => {
    const { run, last } = cli();
    await run('plans list', {});
    expect(last()).toMatch(/^slug\s+name.*\n.*free/);
    const slug = `team${Date.now() % 100000}`;
    await run('plans create', { slug, name: 'Team', currency: 'TRY', 'price-month': '9900', json: true });
    expect(JSON.parse(last())).toMatchObject({ slug, price_month: 9900, max_users: -1, is_active: true });
    await run('plans retire', { slug });
    expect(JSON.parse(last())).toMatchObject({ is_active: false });
    await expect(run('plans create', { slug, name: 'Team', currency: 'TRY' })).rejects.toMatchObject({ code: 'conflict' });
    await expect(run('plans create', { slug: 'x', name: 'X', currency: 'try' })).rejects.toThrow(UsageError);
    await expect(run('plans create', { slug: 'x', name: 'X', currency: 'TRY', 'price-month': '1.5' })).rejects.toThrow(/--price-month/);

    const code = `SPRING${Date.now() % 100000}`;
    await run('coupons create', { code, 'percent-off': '20' });
    expect(JSON.parse(last())).toMatchObject({ code: code.toLowerCase(), percent_off: 20 });
    await expect(run('coupons create', { code: 'X1', 'amount-off': '500' })).rejects.toMatchObject({ code: 'validation_failed' });
    await run('coupons list', {});
    expect(last()).toContain(code.toLowerCase());
    await run('coupons delete', { code });
    await expect(run('coupons delete', { code })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('lists payments and refuses a bad status or an unknown payment', async () => {
    const { run, last } = cli();
    await run('payments list', { json: true });
    expect(JSON.parse(last())).toMatchObject({ offset: 0, per_page: 20 });
    await expect(run('payments list', { status: 'lost' })).rejects.toThrow(UsageError);
    await expect(run('payments refund', {})).rejects.toThrow(/--id/);
    await expect(run('payments refund', { id: '00000000-0000-7000-8000-000000000001' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(run('payments reconcile', { id: '00000000-0000-7000-8000-000000000001' })).rejects.toMatchObject({ code: 'not_found' });
  });
});
