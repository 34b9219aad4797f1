import { parseArgs } from 'node:util';

/**
 * `npm run cli -- billing ...`: the operator's billing commands. They talk to a running service over its HTTP API
 * (so every rule, permission and audit of the API applies) with an instance admin's token.
 */
export const BILLING_USAGE = `Billing (against a running service; --url or PUBLIC_BASE_URL, --token or WIS_TOKEN: an instance admin's token):
  billing plans list
  billing coupons list
  billing coupons create --code C (--percent-off N | --amount-off N --currency CUR) [--plans a,b] [--max-redemptions N] [--redeem-by ISO]
  billing coupons delete --code C
  billing payments list [--status S] [--workspace SLUG] [--offset N] [--per-page N]
  billing payments refund --id PAYMENT_ID [--amount MINOR] [--reason TEXT] [--cancel-subscription] [--key IDEMPOTENCY_KEY]
  billing payments reconcile --id PAYMENT_ID
`;

type Out = { log(s: string): void; error(s: string): void };

export async function runBillingCommand(args: string[], env: NodeJS.ProcessEnv = process.env, out: Out = console): Promise<number> {
  const [resource, action, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      status: { type: 'string' },
      workspace: { type: 'string' },
      offset: { type: 'string' },
      'per-page': { type: 'string' },
      id: { type: 'string' },
      amount: { type: 'string' },
      reason: { type: 'string' },
      'cancel-subscription': { type: 'boolean', default: false },
      key: { type: 'string' },
      code: { type: 'string' },
      'percent-off': { type: 'string' },
      'amount-off': { type: 'string' },
      currency: { type: 'string' },
      plans: { type: 'string' },
      'max-redemptions': { type: 'string' },
      'redeem-by': { type: 'string' },
    },
    allowPositionals: false,
  });
  const base = (values.url ?? env.PUBLIC_BASE_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
  const token = values.token ?? env.WIS_TOKEN;
  const fail = (msg: string) => {
    out.error(`${msg}\n\n${BILLING_USAGE}`);
    return 2;
  };
  if (!token) return fail('--token (or WIS_TOKEN) is required');
  const int = (name: string, v: string | undefined): number | undefined => {
    if (v === undefined) return undefined;
    if (!/^-?\d+$/.test(v)) throw new Error(`--${name} must be an integer`);
    return Number(v);
  };
  const need = (name: 'id' | 'code'): string => {
    const v = values[name];
    if (!v) throw new Error(`--${name} is required`);
    return v;
  };

  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<number> {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let shown = text;
    try {
      shown = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      // not JSON: shown as it is
    }
    if (res.ok) {
      out.log(shown);
      return 0;
    }
    out.error(`HTTP ${res.status}\n${shown}`);
    return 1;
  }

  const key = `${resource ?? ''} ${action ?? ''}`;
  const id = () => encodeURIComponent(need('id'));
  switch (key) {
    case 'plans list':
      return call('GET', '/api/admin/plans/');
    case 'coupons list':
      return call('GET', '/api/admin/coupons/');
    case 'coupons create':
      return call('POST', '/api/admin/coupons/', {
        code: need('code'),
        ...(values['percent-off'] !== undefined ? { percent_off: int('percent-off', values['percent-off']) } : {}),
        ...(values['amount-off'] !== undefined ? { amount_off: int('amount-off', values['amount-off']), currency: values.currency } : {}),
        ...(values.plans ? { plan_slugs: values.plans.split(',').map((s) => s.trim()) } : {}),
        ...(values['max-redemptions'] !== undefined ? { max_redemptions: int('max-redemptions', values['max-redemptions']) } : {}),
        ...(values['redeem-by'] ? { redeem_by: values['redeem-by'] } : {}),
      });
    case 'coupons delete':
      return call('DELETE', `/api/admin/coupons/${encodeURIComponent(need('code'))}/`);
    case 'payments list': {
      const q = new URLSearchParams();
      if (values.status) q.set('status', values.status);
      if (values.workspace) q.set('workspace', values.workspace);
      if (values.offset) q.set('offset', values.offset);
      if (values['per-page']) q.set('per_page', values['per-page']);
      return call('GET', `/api/admin/payments/${q.size ? `?${q}` : ''}`);
    }
    case 'payments refund':
      return call(
        'POST',
        `/api/admin/payments/${id()}/refund/`,
        {
          ...(values.amount !== undefined ? { amount: int('amount', values.amount) } : {}),
          ...(values.reason ? { reason: values.reason } : {}),
          ...(values['cancel-subscription'] ? { cancel_subscription: true } : {}),
        },
        values.key ? { 'idempotency-key': values.key } : {},
      );
    case 'payments reconcile':
      return call('POST', `/api/admin/payments/${id()}/reconcile/`);
    default:
      return fail(`Unknown billing command "${key.trim()}"`);
  }
}
