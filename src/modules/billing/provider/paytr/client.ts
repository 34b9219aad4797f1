import type { PaytrConfig } from '../../../../config/config.js';
import { refundHash, statusQueryHash, tokenRequestHash } from './signatures.js';
import { encodeBasket, formatMajor, fromPaytrCurrency, parseMajor, toPaytrCurrency } from './wire.js';

export interface TokenRequest {
  /** Alphanumeric, at most 64 characters, unique per payment. */
  merchantOid: string;
  email: string;
  /** The total to charge, in minor units (a positive integer). */
  amount: number;
  /** ISO 4217: TRY, USD, EUR, GBP. */
  currency: string;
  userIp: string;
  userName: string;
  userAddress: string;
  userPhone: string;
  /** Basket lines; `amount` is the unit price in minor units. */
  basket: { name: string; amount: number; quantity: number }[];
  okUrl: string;
  failUrl: string;
  /** How long the payment page stays usable; PayTR's default is 30. */
  timeoutLimitMinutes?: number;
}

export interface TokenResult {
  token: string;
  /** `{iframeBase}/odeme/guvenli/{token}`: what the browser embeds. */
  iframeUrl: string;
}

export interface RefundRequest {
  merchantOid: string;
  /** Minor units, a positive integer; sent as `return_amount` in major units with two decimals. */
  amount: number;
  /** Our refund's id: PayTR's optional `reference_no` (alphanumeric, at most 64). */
  referenceNo: string;
}

/** What `odeme/durum-sorgu` says about an order. `unknown`: the provider answered `status: error` (no such paid order). */
export type StatusResult =
  { state: 'paid'; paymentAmount: number; paymentTotal: number | null; currency: string | null } | { state: 'unknown'; errNo: string; errMsg: string };

export interface PaytrClient {
  getToken(req: TokenRequest): Promise<TokenResult>;
  /** `odeme/iade`; resolves when the provider accepted, throws PaytrError when it refused or failed. */
  refund(req: RefundRequest): Promise<void>;
  /** `odeme/durum-sorgu`; throws PaytrError only when the answer could not be had or read. */
  status(merchantOid: string): Promise<StatusResult>;
}

export type PaytrErrorKind = 'invalid_request' | 'network' | 'timeout' | 'http_status' | 'bad_response' | 'refused';

/** The provider failed or refused. `reason` is safe to log and to show: it never carries a credential. */
export class PaytrError extends Error {
  constructor(
    readonly reason: string,
    readonly kind: PaytrErrorKind = 'refused',
  ) {
    super(`PayTR token request failed: ${reason}`);
    this.name = 'PaytrError';
  }
}

export const DEFAULT_TIMEOUT_LIMIT_MINUTES = 30;
const MAX_REASON_LENGTH = 300;

function positiveInt(value: number): boolean {
  return Number.isSafeInteger(value) && value > 0;
}

/** Whatever the answer says, a secret never leaves this module inside a reason. */
function scrub(text: string, config: PaytrConfig): string {
  let out = text;
  for (const secret of [config.merchantKey, config.merchantSalt]) {
    if (secret) out = out.split(secret).join('[redacted]');
  }
  out = out.replace(/\s+/g, ' ').trim();
  return out.length > MAX_REASON_LENGTH ? `${out.slice(0, MAX_REASON_LENGTH)}...` : out;
}

function checkRequest(req: TokenRequest): void {
  if (!/^[A-Za-z0-9]{1,64}$/.test(req.merchantOid)) {
    throw new PaytrError('merchant_oid must be 1-64 letters and digits', 'invalid_request');
  }
  if (!positiveInt(req.amount)) throw new PaytrError('amount must be a positive integer (minor units)', 'invalid_request');
  if (!/^[A-Za-z]{3}$/.test(req.currency)) throw new PaytrError('currency must be an ISO 4217 code', 'invalid_request');
  if (req.basket.length === 0) throw new PaytrError('the basket is empty', 'invalid_request');
  for (const line of req.basket) {
    if (!Number.isSafeInteger(line.amount) || line.amount < 0 || !positiveInt(line.quantity)) {
      throw new PaytrError('basket amounts must be integers in minor units and quantities positive', 'invalid_request');
    }
  }
  const timeout = req.timeoutLimitMinutes;
  if (timeout !== undefined && !positiveInt(timeout)) {
    throw new PaytrError('timeoutLimitMinutes must be a positive integer', 'invalid_request');
  }
}

/** PayTR's limits for the display-only customer fields (its step 1 table); longer values are cut, not refused. */
export const FIELD_LIMITS = { user_name: 60, user_address: 400, user_phone: 20 } as const;

/** Cuts to `max` characters without splitting a surrogate pair; an empty value becomes "-" (PayTR requires one). */
function fit(value: string, max: number): string {
  const chars = Array.from(value.trim());
  return chars.length === 0 ? '-' : chars.slice(0, max).join('').trimEnd();
}

/** PayTR wants the customer's IPv4 address; Node reports IPv4 clients of a dual-stack socket as `::ffff:a.b.c.d`. */
function plainIp(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip.trim());
  return mapped?.[1] ?? ip.trim();
}

/** The form fields of a token request, in PayTR's order, with `paytr_token` computed. Exported for tests. */
export function buildTokenForm(config: PaytrConfig, req: TokenRequest): URLSearchParams {
  const testMode = config.testMode ? '1' : '0';
  const hashed = {
    user_ip: plainIp(req.userIp),
    merchant_oid: req.merchantOid,
    email: req.email,
    payment_amount: String(req.amount),
    user_basket: encodeBasket(req.basket),
    // A subscription is one charge: installments are never offered.
    no_installment: '1',
    max_installment: '0',
    currency: toPaytrCurrency(req.currency),
    test_mode: testMode,
  };
  return new URLSearchParams({
    merchant_id: config.merchantId,
    user_ip: hashed.user_ip,
    merchant_oid: hashed.merchant_oid,
    email: hashed.email,
    payment_amount: hashed.payment_amount,
    paytr_token: tokenRequestHash(config, hashed),
    user_basket: hashed.user_basket,
    // Detailed refusal reasons while testing; PayTR advises turning them off in production.
    debug_on: testMode,
    no_installment: hashed.no_installment,
    max_installment: hashed.max_installment,
    user_name: fit(req.userName, FIELD_LIMITS.user_name),
    user_address: fit(req.userAddress, FIELD_LIMITS.user_address),
    user_phone: fit(req.userPhone, FIELD_LIMITS.user_phone),
    merchant_ok_url: req.okUrl,
    merchant_fail_url: req.failUrl,
    timeout_limit: String(req.timeoutLimitMinutes ?? DEFAULT_TIMEOUT_LIMIT_MINUTES),
    currency: hashed.currency,
    test_mode: testMode,
  });
}

/**
 * The PayTR iFrame API, step 1: ask for a payment token. The same client talks to www.paytr.com and to the built-in
 * sandbox; only `config.apiBase` / `config.iframeBase` differ.
 */
export function createPaytrClient(config: PaytrConfig, options: { fetch?: typeof fetch } = {}): PaytrClient {
  const doFetch = options.fetch ?? globalThis.fetch;
  const endpoint = `${config.apiBase}/odeme/api/get-token`;

  /** POSTs a form and reads a JSON object back; every failure is a PaytrError with a reason free of secrets. */
  async function postForm(url: string, form: URLSearchParams): Promise<Record<string, unknown>> {
    let response: Response;
    let text: string;
    try {
      response = await doFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        signal: AbortSignal.timeout(config.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      const name = error instanceof Error ? error.name : '';
      if (name === 'TimeoutError' || name === 'AbortError') throw new PaytrError(`no answer within ${config.timeoutMs} ms`, 'timeout');
      throw new PaytrError(`could not reach the provider (${name || 'network error'})`, 'network');
    }
    if (response.status < 200 || response.status > 299) throw new PaytrError(`the provider answered HTTP ${response.status}`, 'http_status');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new PaytrError('the provider answered something that is not JSON', 'bad_response');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new PaytrError('the provider answered an unexpected JSON value', 'bad_response');
    }
    return body as Record<string, unknown>;
  }

  const errorText = (body: Record<string, unknown>): { errNo: string; errMsg: string } => ({
    errNo: typeof body.err_no === 'string' || typeof body.err_no === 'number' ? scrub(String(body.err_no), config) : '',
    errMsg: typeof body.err_msg === 'string' && body.err_msg.trim() ? scrub(body.err_msg, config) : 'no reason given',
  });

  return {
    async refund(req) {
      if (!/^[A-Za-z0-9]{1,64}$/.test(req.merchantOid)) throw new PaytrError('merchant_oid must be 1-64 letters and digits', 'invalid_request');
      if (!positiveInt(req.amount)) throw new PaytrError('amount must be a positive integer (minor units)', 'invalid_request');
      const returnAmount = formatMajor(req.amount);
      const form = new URLSearchParams({
        merchant_id: config.merchantId,
        merchant_oid: req.merchantOid,
        return_amount: returnAmount,
        reference_no: req.referenceNo.replace(/[^A-Za-z0-9]/g, '').slice(0, 64),
        paytr_token: refundHash(config, req.merchantOid, returnAmount),
      });
      const body = await postForm(`${config.apiBase}/odeme/iade`, form);
      if (body.status === 'error') {
        const { errNo, errMsg } = errorText(body);
        throw new PaytrError(errNo ? `${errNo}: ${errMsg}` : errMsg, 'refused');
      }
      if (body.status !== 'success') throw new PaytrError('the provider answered an unknown status', 'bad_response');
    },

    async status(merchantOid) {
      if (!/^[A-Za-z0-9]{1,64}$/.test(merchantOid)) throw new PaytrError('merchant_oid must be 1-64 letters and digits', 'invalid_request');
      const form = new URLSearchParams({
        merchant_id: config.merchantId,
        merchant_oid: merchantOid,
        paytr_token: statusQueryHash(config, merchantOid),
      });
      const body = await postForm(`${config.apiBase}/odeme/durum-sorgu`, form);
      if (body.status === 'error') return { state: 'unknown', ...errorText(body) };
      if (body.status !== 'success') throw new PaytrError('the provider answered an unknown status', 'bad_response');
      const paymentAmount = parseMajor(body.payment_amount);
      if (paymentAmount === null) throw new PaytrError('the provider answered success without a readable payment_amount', 'bad_response');
      return {
        state: 'paid',
        paymentAmount,
        paymentTotal: parseMajor(body.payment_total),
        currency: typeof body.currency === 'string' && body.currency.trim() ? fromPaytrCurrency(body.currency) : null,
      };
    },

    async getToken(req) {
      checkRequest(req);
      const form = buildTokenForm(config, req);

      const { status, token, reason } = await postForm(endpoint, form);
      if (status === 'failed') {
        const text = typeof reason === 'string' && reason.trim() ? scrub(reason, config) : 'no reason given';
        throw new PaytrError(text, 'refused');
      }
      if (status !== 'success') throw new PaytrError('the provider answered an unknown status', 'bad_response');
      if (typeof token !== 'string' || token.trim() === '') {
        throw new PaytrError('the provider answered success without a token', 'bad_response');
      }
      return { token, iframeUrl: `${config.iframeBase}/odeme/guvenli/${encodeURIComponent(token)}` };
    },
  };
}
