import { type Command, integer, print, required, UsageError } from '../cli.js';

const DELIVERY_COLUMNS = ['id', 'event_type', 'status', 'attempts', 'last_status_code', 'last_error', 'next_attempt_at', 'created_at'];
const STATUSES = ['pending', 'succeeded', 'failed'];

/** Look at and replay webhook deliveries, as the workspace's admin would from the API. */
export const webhookCommands: Command[] = [
  {
    name: 'webhooks list',
    summary: 'the webhook endpoints of a workspace',
    usage: '--workspace SLUG [--json]',
    options: { workspace: { type: 'string' } },
    run: async (values, ctx) => {
      const { webhooks } = await ctx.services();
      print(ctx, values, await webhooks.list(ctx.operator, required(values, 'workspace')), ['id', 'url', 'event_types', 'is_active', 'disabled_reason']);
    },
  },
  {
    name: 'webhooks deliveries',
    summary: 'the delivery log of an endpoint, newest first',
    usage: '--workspace SLUG --webhook ID [--status pending|succeeded|failed] [--offset N] [--per-page N] [--json]',
    options: {
      workspace: { type: 'string' },
      webhook: { type: 'string' },
      status: { type: 'string' },
      offset: { type: 'string' },
      'per-page': { type: 'string' },
    },
    run: async (values, ctx) => {
      const status = values.status;
      if (status !== undefined && !STATUSES.includes(String(status))) throw new UsageError(`--status must be one of ${STATUSES.join(', ')}`);
      const { webhooks } = await ctx.services();
      const page = await webhooks.listDeliveries(ctx.operator, required(values, 'workspace'), required(values, 'webhook'), {
        offset: integer(values, 'offset', { min: 0, max: 1_000_000 }) ?? 0,
        per_page: integer(values, 'per-page', { min: 1, max: 100 }) ?? 20,
        ...(status ? { status: String(status) } : {}),
      });
      if (values.json) print(ctx, values, page);
      else {
        print(ctx, values, page.results, DELIVERY_COLUMNS);
        ctx.out(`(${page.results.length} of ${page.total})`);
      }
    },
  },
  {
    name: 'webhooks redeliver',
    summary: 'send a delivery again now, with the same webhook-id',
    usage: '--workspace SLUG --webhook ID --delivery ID',
    options: { workspace: { type: 'string' }, webhook: { type: 'string' }, delivery: { type: 'string' } },
    run: async (values, ctx) => {
      const { webhooks } = await ctx.services();
      const d = await webhooks.redeliver(ctx.operator, required(values, 'workspace'), required(values, 'webhook'), required(values, 'delivery'));
      if (values.json) print(ctx, values, d);
      else ctx.out(`delivery ${d.id}: ${d.status} after ${d.attempts} attempt(s), last answer ${d.last_status_code ?? d.last_error ?? '-'}`);
      return d.status === 'succeeded' ? 0 : 1;
    },
  },
];
