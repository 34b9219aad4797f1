import { type Command, integer, print, required, UsageError } from '../cli.js';

const PAYMENT_COLUMNS = ['id', 'workspace_slug', 'status', 'amount', 'refunded_amount', 'currency', 'plan_slug', 'merchant_oid', 'created_at'];
const STATUSES = ['pending', 'success', 'failed', 'refunded'];

/** The operator's view of every workspace's payments: list, refund through the provider, reconcile with it. */
export const paymentCommands: Command[] = [
  {
    name: 'payments list',
    summary: "every workspace's payments, newest first",
    usage: '[--status pending|success|failed|refunded] [--workspace SLUG] [--offset N] [--per-page N] [--json]',
    options: { status: { type: 'string' }, workspace: { type: 'string' }, offset: { type: 'string' }, 'per-page': { type: 'string' } },
    run: async (values, ctx) => {
      const status = values.status;
      if (status !== undefined && !STATUSES.includes(String(status))) throw new UsageError(`--status must be one of ${STATUSES.join(', ')}`);
      const { refunds } = await ctx.services();
      const page = await refunds.listAllPayments(ctx.operator, {
        offset: integer(values, 'offset', { min: 0, max: 1_000_000 }) ?? 0,
        per_page: integer(values, 'per-page', { min: 1, max: 100 }) ?? 20,
        ...(status ? { status: String(status) } : {}),
        ...(typeof values.workspace === 'string' ? { workspace: values.workspace } : {}),
      });
      if (values.json) print(ctx, values, page);
      else {
        print(ctx, values, page.results as Record<string, unknown>[], PAYMENT_COLUMNS);
        ctx.out(`(${page.results.length} of ${page.total})`);
      }
    },
  },
  {
    name: 'payments refund',
    summary: 'refund a successful payment through the provider, with a credit note',
    usage: '--id PAYMENT_ID [--amount MINOR_UNITS] [--reason TEXT] [--cancel-subscription] [--key IDEMPOTENCY_KEY]',
    help: 'Without --amount, what is left is refunded. Amounts are integers in minor units (29900 = 299.00).',
    options: {
      id: { type: 'string' },
      amount: { type: 'string' },
      reason: { type: 'string' },
      'cancel-subscription': { type: 'boolean' },
      key: { type: 'string' },
    },
    run: async (values, ctx) => {
      const id = required(values, 'id');
      const amount = integer(values, 'amount', { min: 1, max: 2_000_000_000 });
      const { refunds } = await ctx.services();
      const refund = await refunds.refund(
        ctx.operator,
        id,
        {
          ...(amount !== undefined ? { amount } : {}),
          ...(typeof values.reason === 'string' ? { reason: values.reason } : {}),
          cancel_subscription: values['cancel-subscription'] === true,
        },
        typeof values.key === 'string' ? values.key : undefined,
      );
      print(ctx, { ...values, json: true }, refund);
    },
  },
  {
    name: 'payments reconcile',
    summary: 'ask the provider about a payment now and apply its answer (as its callback would)',
    usage: '--id PAYMENT_ID',
    options: { id: { type: 'string' } },
    run: async (values, ctx) => {
      const { reconcile } = await ctx.services();
      print(ctx, { ...values, json: true }, await reconcile.reconcileNow(ctx.operator, required(values, 'id')));
    },
  },
];
