import { randomBytes } from 'node:crypto';
import formbody from '@fastify/formbody';
import type { FastifyBaseLogger, FastifyPluginAsync, FastifyReply } from 'fastify';
import type { Config } from '../../../../config/config.js';
import { paymentPageScriptTags } from '../../../../http/payment-page.js';
import { callbackHash, type PaytrCredentials, refundHash, safeEqual, statusQueryHash, verifyTokenRequestHash } from './signatures.js';
import { decodeBasket, formatMajor, PAYTR_CURRENCIES, type PaytrBasketLine, parseMajor } from './wire.js';

/**
 * The built-in sandbox provider: PayTR's iFrame API wire protocol served by the service itself, so the whole checkout
 * runs without a PayTR account. Orders live in memory (per process) and expire after their `timeout_limit`.
 */
export interface SandboxOptions {
  config: Config;
  /** Where the Pay and Decline buttons send the signed notification (the service's provider callback). */
  callbackUrl: string;
  fetch?: typeof fetch;
  /** Milliseconds since the epoch; tests move it to expire orders. */
  now?: () => number;
  /** Waits between notification attempts after the first one (PayTR retries too, about once a minute). */
  retryDelaysMs?: number[];
  /** Where orders live; default in memory (per process). The service passes a database-backed store. */
  store?: SandboxStore;
}

/** The sandbox's orders. A database-backed store keeps open payment pages working across a restart. */
export interface SandboxStore {
  insert(order: SandboxOrder): Promise<void>;
  byToken(token: string): Promise<SandboxOrder | undefined>;
  /** The paid order of a merchant_oid, if any. */
  paidByOid(merchantOid: string): Promise<SandboxOrder | undefined>;
  /** open -> paid | declined; false when the order was no longer open. */
  complete(token: string, state: 'paid' | 'declined'): Promise<boolean>;
  /** Adds a refund to a paid order, never past its amount; false when it would. */
  addRefund(merchantOid: string, amount: number): Promise<boolean>;
  /** Drops expired open orders. */
  sweep(now: number): Promise<void>;
}

/** The default store: a Map in this process. */
export function memorySandboxStore(): SandboxStore {
  const orders = new Map<string, SandboxOrder>();
  return {
    async insert(order) {
      while (orders.size >= MAX_ORDERS) {
        const oldest = orders.keys().next().value;
        if (oldest === undefined) break;
        orders.delete(oldest);
      }
      orders.set(order.token, { ...order });
    },
    async byToken(token) {
      const o = orders.get(token);
      return o ? { ...o } : undefined;
    },
    async paidByOid(merchantOid) {
      for (const o of orders.values()) if (o.merchantOid === merchantOid && o.state === 'paid') return { ...o };
      return undefined;
    },
    async complete(token, state) {
      const o = orders.get(token);
      if (!o || o.state !== 'open') return false;
      o.state = state;
      return true;
    },
    async addRefund(merchantOid, amount) {
      for (const o of orders.values()) {
        if (o.merchantOid === merchantOid && o.state === 'paid') {
          if (o.refundedAmount + amount > o.amount) return false;
          o.refundedAmount += amount;
          return true;
        }
      }
      return false;
    },
    async sweep(now) {
      for (const [token, o] of orders) if (o.state === 'open' && o.expiresAt <= now) orders.delete(token);
    },
  };
}

export const SANDBOX_PREFIX = '/sandbox/paytr';
export const DEFAULT_RETRY_DELAYS_MS = [1_000, 5_000, 15_000, 60_000];
const MAX_ORDERS = 10_000;

export interface SandboxOrder {
  token: string;
  merchantOid: string;
  email: string;
  userName: string;
  /** payment_amount, minor units. */
  amount: number;
  /** As PayTR spells it: TL, USD, ... */
  currency: string;
  basket: PaytrBasketLine[];
  okUrl: string;
  failUrl: string;
  testMode: boolean;
  expiresAt: number;
  state: 'open' | 'paid' | 'declined';
  /** Minor units refunded through `/odeme/iade`. */
  refundedAmount: number;
}

export type TokenRequestCheck = { ok: true; order: Omit<SandboxOrder, 'token' | 'state' | 'refundedAmount'> } | { ok: false; reason: string };

type Form = Record<string, unknown>;

function field(form: Form, name: string): string | undefined {
  if (!Object.hasOwn(form, name)) return undefined;
  const value = form[name];
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

function httpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

const REQUIRED = [
  'merchant_id',
  'user_ip',
  'merchant_oid',
  'email',
  'payment_amount',
  'paytr_token',
  'user_basket',
  'no_installment',
  'max_installment',
  'user_name',
  'user_address',
  'user_phone',
  'merchant_ok_url',
  'merchant_fail_url',
] as const;

/**
 * Checks a get-token form the way PayTR does (required fields, limits from its step 1 table, the merchant and the
 * `paytr_token`). Pure, so it is unit-tested without HTTP.
 */
export function checkTokenRequest(body: unknown, creds: PaytrCredentials, now: number): TokenRequestCheck {
  const form: Form = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Form) : {};
  const v: Record<string, string> = {};
  for (const name of REQUIRED) {
    const value = field(form, name);
    if (value === undefined || value.trim() === '') return { ok: false, reason: `required field ${name} is missing` };
    v[name] = value;
  }
  const fail = (reason: string): TokenRequestCheck => ({ ok: false, reason });
  const currency = field(form, 'currency') ?? '';
  const testMode = field(form, 'test_mode') ?? '0';
  const debugOn = field(form, 'debug_on') ?? '0';
  const timeoutLimit = field(form, 'timeout_limit') ?? '';
  const get = (name: (typeof REQUIRED)[number]): string => v[name] as string;

  if (get('merchant_id') !== creds.merchantId) return fail('merchant_id is invalid or the merchant is not active');
  if (
    !verifyTokenRequestHash(
      creds,
      {
        user_ip: get('user_ip'),
        merchant_oid: get('merchant_oid'),
        email: get('email'),
        payment_amount: get('payment_amount'),
        user_basket: get('user_basket'),
        no_installment: get('no_installment'),
        max_installment: get('max_installment'),
        currency,
        test_mode: testMode,
      },
      get('paytr_token'),
    )
  ) {
    return fail('paytr_token does not match the values sent (check merchant_key, merchant_salt and the field order)');
  }
  if (get('user_ip').length > 39) return fail('user_ip must be at most 39 characters');
  if (!/^[A-Za-z0-9]{1,64}$/.test(get('merchant_oid'))) {
    return fail('merchant_oid must be alphanumeric and at most 64 characters');
  }
  if (get('email').length > 100 || !/^[^\s@]+@[^\s@]+$/.test(get('email'))) {
    return fail('email must be an e-mail address of at most 100 characters');
  }
  const amountText = get('payment_amount');
  if (!/^[1-9]\d{0,14}$/.test(amountText)) return fail('payment_amount must be a positive integer (amount * 100)');
  const basket = decodeBasket(get('user_basket'));
  if (!basket) return fail('user_basket must be base64 of a JSON array of [name, "price", quantity] lines');
  if (!/^[01]$/.test(get('no_installment'))) return fail('no_installment must be 0 or 1');
  if (!/^(0|[2-9]|1[0-2])$/.test(get('max_installment'))) return fail('max_installment must be 0 or 2..12');
  const paytrCurrency = currency === '' || currency.toUpperCase() === 'TRY' ? 'TL' : currency;
  if (!(PAYTR_CURRENCIES as readonly string[]).includes(paytrCurrency)) {
    return fail(`currency must be one of ${PAYTR_CURRENCIES.join(', ')}`);
  }
  if (!/^[01]$/.test(testMode)) return fail('test_mode must be 0 or 1');
  if (!/^[01]$/.test(debugOn)) return fail('debug_on must be 0 or 1');
  if (timeoutLimit !== '' && !/^\d{1,5}$/.test(timeoutLimit)) return fail('timeout_limit must be a number of minutes');
  if (get('user_name').length > 60) return fail('user_name must be at most 60 characters');
  if (get('user_address').length > 400) return fail('user_address must be at most 400 characters');
  if (get('user_phone').length > 20) return fail('user_phone must be at most 20 characters');
  for (const name of ['merchant_ok_url', 'merchant_fail_url'] as const) {
    if (get(name).length > 400 || !httpUrl(get(name))) return fail(`${name} must be an http(s) URL`);
  }
  const minutes = timeoutLimit === '' || Number(timeoutLimit) === 0 ? 30 : Number(timeoutLimit);
  return {
    ok: true,
    order: {
      merchantOid: get('merchant_oid'),
      email: get('email'),
      userName: get('user_name'),
      amount: Number(amountText),
      currency: paytrCurrency,
      basket,
      okUrl: get('merchant_ok_url'),
      failUrl: get('merchant_fail_url'),
      testMode: testMode === '1',
      expiresAt: now + minutes * 60_000,
    },
  };
}

/** The notification PayTR posts to the merchant's callback URL (step 2), signed with the merchant's credentials. */
export function sandboxNotification(
  creds: PaytrCredentials,
  order: Pick<SandboxOrder, 'merchantOid' | 'amount' | 'currency' | 'testMode'>,
  outcome: { status: 'success' } | { status: 'failed'; code: string; message: string },
): Record<string, string> {
  const totalAmount = String(order.amount);
  const fields: Record<string, string> = {
    merchant_oid: order.merchantOid,
    status: outcome.status,
    total_amount: totalAmount,
    hash: callbackHash(creds, order.merchantOid, outcome.status, totalAmount),
  };
  if (outcome.status === 'failed') {
    fields.failed_reason_code = outcome.code;
    fields.failed_reason_msg = outcome.message;
  }
  fields.test_mode = order.testMode ? '1' : '0';
  fields.payment_type = 'card';
  // PayTR sends the currency and the requested amount with successful payments only.
  if (outcome.status === 'success') {
    fields.currency = order.currency;
    fields.payment_amount = String(order.amount);
  }
  return fields;
}

export const DECLINE_REASONS: Record<string, string> = {
  '0': 'Insufficient card limit or balance (sandbox)',
  '3': 'Security check failed (sandbox)',
  '6': 'The customer abandoned the payment (sandbox)',
};

// ---- HTML ----

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

const STYLE = `body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#222}
.badge{display:inline-block;background:#fde68a;padding:.15rem .5rem;border-radius:.3rem;font-size:.8rem}
table{width:100%;border-collapse:collapse}td{padding:.2rem 0}td.r{text-align:right}
fieldset{border:1px dashed #999;border-radius:.4rem;margin:1rem 0}label{display:block;margin:.4rem 0}
input{width:100%;padding:.3rem;background:#f4f4f4;border:1px solid #ccc}
.buttons{display:flex;gap:.5rem;align-items:end;flex-wrap:wrap}button{padding:.5rem 1.2rem;font-size:1rem;cursor:pointer}
button.pay{background:#16a34a;color:#fff;border:0}button.decline{background:#dc2626;color:#fff;border:0}`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

function paymentPage(order: SandboxOrder, merchantId: string): string {
  const base = `${SANDBOX_PREFIX}/odeme/guvenli/${encodeURIComponent(order.token)}`;
  const lines = order.basket
    .map(([name, price, qty]) => `<tr><td>${esc(name)} &times; ${qty}</td><td class="r">${esc(price)} ${esc(order.currency)}</td></tr>`)
    .join('');
  const reasons = Object.entries(DECLINE_REASONS)
    .map(([code, msg]) => `<option value="${code}">${esc(msg)}</option>`)
    .join('');
  return page(
    'Sandbox payment',
    `<h1>Sandbox payment <span class="badge">${order.testMode ? 'TEST MODE' : 'SANDBOX'}</span></h1>
<p>This page imitates the PayTR payment form. No card is charged and no money moves.</p>
<table><tr><td>Merchant</td><td class="r">Sandbox merchant ${esc(merchantId)}</td></tr>
<tr><td>Order</td><td class="r">${esc(order.merchantOid)}</td></tr>
<tr><td>Customer</td><td class="r">${esc(order.userName)} &lt;${esc(order.email)}&gt;</td></tr>
${lines}
<tr><td><strong>Total</strong></td><td class="r"><strong id="amount">${formatMajor(order.amount)} ${esc(order.currency)}</strong></td></tr></table>
<fieldset><legend>Fake test card (not a real card)</legend>
<label>Card holder <input value="SANDBOX TEST CARD" readonly></label>
<label>Card number <input value="4355 0843 5508 4358" readonly></label>
<label>Expiry <input value="12/30" readonly></label>
<label>CVV <input value="000" readonly></label></fieldset>
<div class="buttons">
<form method="post" action="${base}/pay"><button class="pay" type="submit">Pay ${formatMajor(order.amount)} ${esc(order.currency)}</button></form>
<form method="post" action="${base}/decline"><label>Decline as <select name="reason">${reasons}</select></label><button class="decline" type="submit">Decline</button></form>
</div>${paymentPageScriptTags()}`,
  );
}

function sendHtml(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply.status(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(html);
}

function completedPage(order: SandboxOrder): string {
  const refunded =
    order.refundedAmount > 0
      ? `<p>Refunded: <strong id="refunded">${formatMajor(order.refundedAmount)} ${esc(order.currency)}</strong> of ${formatMajor(order.amount)} ${esc(order.currency)}</p>`
      : '';
  return page(
    'Payment completed',
    `<h1>This payment is already completed</h1><p>Order ${esc(order.merchantOid)}: ${order.state === 'paid' ? 'paid' : 'declined'}.</p>${refunded}`,
  );
}

const notFoundPage = (): string =>
  page('Payment not found', '<h1>Payment not found</h1><p>This payment link is unknown or has expired. Start the checkout again.</p>');

// ---- the plugin ----

interface Delivery {
  stop(): void;
}

/**
 * Posts the notification until the merchant answers exactly `OK` (the first attempt is awaited so the subscription is
 * usually active by the time the browser lands on the OK page; later attempts run in the background).
 */
function deliverNotification(
  fields: Record<string, string>,
  opts: { url: string; fetch: typeof fetch; timeoutMs: number; delays: number[]; log: FastifyBaseLogger },
  pending: Set<Delivery>,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const delivery: Delivery = {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
  const attempt = async (n: number): Promise<boolean> => {
    try {
      const res = await opts.fetch(opts.url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
      const text = await res.text();
      if (text === 'OK') return true;
      opts.log.warn({ merchantOid: fields.merchant_oid, attempt: n, status: res.status }, 'sandbox: callback not acknowledged with OK');
    } catch (error) {
      opts.log.warn({ merchantOid: fields.merchant_oid, attempt: n, err: (error as Error).name }, 'sandbox: callback failed');
    }
    return false;
  };
  const retry = (n: number): void => {
    const delay = opts.delays[n - 2];
    if (stopped || delay === undefined) {
      pending.delete(delivery);
      if (!stopped) opts.log.error({ merchantOid: fields.merchant_oid }, 'sandbox: callback given up');
      return;
    }
    timer = setTimeout(() => {
      void attempt(n).then((ok) => (ok ? pending.delete(delivery) : retry(n + 1)));
    }, delay);
    timer.unref();
  };
  pending.add(delivery);
  return attempt(1).then((ok) => {
    if (ok) pending.delete(delivery);
    else retry(2);
  });
}

/**
 * `POST /sandbox/paytr/odeme/api/get-token`, `GET /sandbox/paytr/odeme/guvenli/:token` and its Pay / Decline form
 * targets, plus the return pages. Register it without a prefix; it brings its own form parser.
 */
export const sandboxRoutes: FastifyPluginAsync<SandboxOptions> = async (app, opts) => {
  await app.register(formbody);
  const creds = opts.config.paytr;
  const now = opts.now ?? Date.now;
  const doFetch = opts.fetch ?? globalThis.fetch;
  const delays = opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  const store = opts.store ?? memorySandboxStore();
  const pending = new Set<Delivery>();

  app.addHook('onClose', async () => {
    for (const d of pending) d.stop();
    pending.clear();
  });

  /** An order whose page can still be shown: open and not expired, or completed (its page says so). */
  const openOrder = async (token: string): Promise<SandboxOrder | undefined> => {
    const order = await store.byToken(token);
    if (!order || (order.state === 'open' && order.expiresAt <= now())) return undefined;
    return order;
  };

  const hide = { hide: true } as const;

  app.post('/sandbox/paytr/odeme/api/get-token', { schema: hide }, async (request, reply) => {
    const check = checkTokenRequest(request.body, creds, now());
    void reply.type('application/json; charset=utf-8');
    if (!check.ok) return { status: 'failed', reason: check.reason };
    if (await store.paidByOid(check.order.merchantOid)) {
      return { status: 'failed', reason: 'merchant_oid has already been paid; send a new merchant_oid' };
    }
    await store.sweep(now());
    const token = randomBytes(24).toString('hex');
    await store.insert({ ...check.order, token, state: 'open', refundedAmount: 0 });
    request.log.info({ merchantOid: check.order.merchantOid }, 'sandbox: payment token issued');
    return { status: 'success', token };
  });

  app.get<{ Params: { token: string } }>('/sandbox/paytr/odeme/guvenli/:token', { schema: hide }, async (request, reply) => {
    const order = await openOrder(request.params.token);
    if (!order) return sendHtml(reply, 404, notFoundPage());
    if (order.state !== 'open') return sendHtml(reply, 409, completedPage(order));
    return sendHtml(reply, 200, paymentPage(order, creds.merchantId));
  });

  const complete = async (outcome: 'pay' | 'decline', token: string, body: unknown, log: FastifyBaseLogger, reply: FastifyReply): Promise<FastifyReply> => {
    const order = await openOrder(token);
    if (!order) return sendHtml(reply, 404, notFoundPage());
    if (order.state !== 'open' || !(await store.complete(token, outcome === 'pay' ? 'paid' : 'declined'))) {
      return sendHtml(reply, 409, completedPage((await store.byToken(token)) ?? order));
    }
    let result: Parameters<typeof sandboxNotification>[2];
    if (outcome === 'pay') {
      result = { status: 'success' };
    } else {
      const form = (typeof body === 'object' && body !== null ? body : {}) as Form;
      const asked = field(form, 'reason') ?? '0';
      const code = Object.hasOwn(DECLINE_REASONS, asked) ? asked : '0';
      result = { status: 'failed', code, message: DECLINE_REASONS[code] as string };
    }
    await deliverNotification(
      sandboxNotification(creds, order, result),
      { url: opts.callbackUrl, fetch: doFetch, timeoutMs: creds.timeoutMs, delays, log },
      pending,
    );
    return reply.redirect(outcome === 'pay' ? order.okUrl : order.failUrl, 303);
  };

  app.post<{ Params: { token: string } }>('/sandbox/paytr/odeme/guvenli/:token/pay', { schema: hide }, async (request, reply) =>
    complete('pay', request.params.token, request.body, request.log, reply),
  );
  app.post<{ Params: { token: string } }>('/sandbox/paytr/odeme/guvenli/:token/decline', { schema: hide }, async (request, reply) =>
    complete('decline', request.params.token, request.body, request.log, reply),
  );

  // ---- refund and status query (same signatures as PayTR) ----

  const apiError = (reply: FastifyReply, errNo: string, errMsg: string) => {
    void reply.type('application/json; charset=utf-8');
    return { status: 'error', err_no: errNo, err_msg: errMsg };
  };

  app.post('/sandbox/paytr/odeme/iade', { schema: hide }, async (request, reply) => {
    const form = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Form;
    const merchantId = field(form, 'merchant_id') ?? '';
    const oid = field(form, 'merchant_oid') ?? '';
    const returnAmount = field(form, 'return_amount') ?? '';
    const token = field(form, 'paytr_token') ?? '';
    if (!merchantId || !oid || !returnAmount || !token) return apiError(reply, '001', 'merchant_id, merchant_oid, return_amount and paytr_token are required');
    if (merchantId !== creds.merchantId || !safeEqual(refundHash(creds, oid, returnAmount), token)) {
      return apiError(reply, '002', 'paytr_token is invalid');
    }
    const minor = /^\d+\.\d{2}$/.test(returnAmount) ? parseMajor(returnAmount) : null;
    if (minor === null || minor <= 0) return apiError(reply, '003', 'return_amount must be a positive amount with two decimals, such as 299.00');
    const order = await store.paidByOid(oid);
    if (!order) return apiError(reply, '004', 'No paid order with this merchant_oid');
    if (!(await store.addRefund(oid, minor))) return apiError(reply, '005', 'return_amount exceeds what is left to refund');
    request.log.info({ merchantOid: oid, amount: minor }, 'sandbox: refund accepted');
    void reply.type('application/json; charset=utf-8');
    return {
      status: 'success',
      is_test: order.testMode ? 1 : 0,
      merchant_oid: oid,
      return_amount: returnAmount,
      reference_no: field(form, 'reference_no') ?? '',
    };
  });

  app.post('/sandbox/paytr/odeme/durum-sorgu', { schema: hide }, async (request, reply) => {
    const form = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Form;
    const merchantId = field(form, 'merchant_id') ?? '';
    const oid = field(form, 'merchant_oid') ?? '';
    const token = field(form, 'paytr_token') ?? '';
    if (!merchantId || !oid || !token) return apiError(reply, '001', 'merchant_id, merchant_oid and paytr_token are required');
    if (merchantId !== creds.merchantId || !safeEqual(statusQueryHash(creds, oid), token)) return apiError(reply, '002', 'paytr_token is invalid');
    const order = await store.paidByOid(oid);
    if (!order) return apiError(reply, '003', 'No completed payment with this merchant_oid');
    void reply.type('application/json; charset=utf-8');
    return {
      status: 'success',
      payment_amount: formatMajor(order.amount),
      payment_total: formatMajor(order.amount),
      currency: order.currency,
      test_mode: order.testMode ? '1' : '0',
      returns: order.refundedAmount > 0 ? [{ return_amount: formatMajor(order.refundedAmount) }] : [],
    };
  });

  await app.register(returnPages);
};

/** `GET /billing/return/ok` and `/billing/return/fail`: where the payment page sends the browser afterwards. */
export const returnPages: FastifyPluginAsync = async (app) => {
  const pages = {
    '/billing/return/ok': page(
      'Payment received',
      '<h1>Payment received</h1><p>Thank you. Your subscription is updated as soon as the payment provider confirms the payment. You can close this window.</p>',
    ),
    '/billing/return/fail': page(
      'Payment failed',
      '<h1>Payment failed</h1><p>The payment did not go through and nothing was charged. You can close this window and try again.</p>',
    ),
  };
  // Both plugins offer these pages; whichever is registered first serves them.
  if (!app.hasRoute({ method: 'GET', url: '/billing/return/ok' })) {
    app.get('/billing/return/ok', { schema: { hide: true } }, async (_request, reply) => sendHtml(reply, 200, pages['/billing/return/ok']));
  }
  if (!app.hasRoute({ method: 'GET', url: '/billing/return/fail' })) {
    app.get('/billing/return/fail', { schema: { hide: true } }, async (_request, reply) => sendHtml(reply, 200, pages['/billing/return/fail']));
  }
};
