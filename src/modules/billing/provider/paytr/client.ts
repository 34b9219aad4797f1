import type { PaytrConfig } from '../../../../config/config.js';
import { cardDeleteHash, cardListHash, directPaymentHash, refundHash, statusQueryHash, tokenRequestHash } from './signatures.js';
import { encodeBasket, encodeDirectBasket, formatMajor, fromPaytrCurrency, parseMajor, toPaytrCurrency } from './wire.js';

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
  /** Sent as `store_card=1`: the card paid with is stored (the sandbox's page stores it on Pay). */
  storeCard?: boolean;
  /** The workspace's existing PayTR user token, so that the new card joins it (sent as `utoken`). */
  utoken?: string | null;
}

/** A card stored at PayTR, as `odeme/capi/list` describes it (never a card number). */
export interface StoredCard {
  ctoken: string;
  last4: string;
  expMonth: number;
  /** Four digits, such as 2030. */
  expYear: number;
  /** Lower case: 'visa' | 'mastercard' | 'troy' | 'amex' | ...; 'unknown' when PayTR does not say. */
  brand: string;
  requireCvv: boolean;
}

/** An order of PayTR's Direct API (`/odeme`): what a charge of a stored card and the card page's first payment share. */
export interface DirectOrder {
  merchantOid: string;
  /** Minor units, a positive integer; sent as `payment_amount` in major units with two decimals. */
  amount: number;
  /** ISO 4217: TRY, USD, EUR, GBP. */
  currency: string;
  email: string;
  userIp: string;
  userName: string;
  userAddress: string;
  userPhone: string;
  /** Basket lines; `amount` is the unit price in minor units. */
  basket: { name: string; amount: number; quantity: number }[];
  okUrl: string;
  failUrl: string;
}

/** A charge of a stored card without the customer (PayTR's recurring payment: Direct API, non_3d=1, recurring_payment=1). */
export interface RecurringChargeRequest extends DirectOrder {
  utoken: string;
  ctoken: string;
}

/**
 * PayTR's answer to a recurring charge. `wait_callback`: the outcome comes by the notification only. `failed`: PayTR's
 * `msg` as `reason`, and `try_again` (true unless PayTR says false/0: a final decline such as a closed card).
 */
export type RecurringChargeResult = { status: 'success' } | { status: 'wait_callback' } | { status: 'failed'; reason: string; tryAgain: boolean };

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
  /**
   * Charges a stored card (`POST odeme`, recurring_payment=1, non_3d=1). Resolves with PayTR's answer; throws PaytrError
   * (kind network / timeout / http_status / bad_response) when the outcome is unknown, and invalid_request before
   * sending anything for a malformed request.
   */
  chargeStoredCard(req: RecurringChargeRequest): Promise<RecurringChargeResult>;
  /** `odeme/capi/list`: the user's stored cards ([] when none); PaytrError on `{status: "error"}` or a transport failure. */
  listCards(utoken: string): Promise<StoredCard[]>;
  /** `odeme/capi/delete`: resolves when PayTR removed the card; PaytrError (kind refused) when it answered an error. */
  deleteCard(utoken: string, ctoken: string): Promise<void>;
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
  const form = new URLSearchParams({
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
  // Not part of paytr_token (PayTR's hash lists them nowhere); sent only when asked, so a plain checkout is unchanged.
  if (req.storeCard) form.set('store_card', '1');
  if (req.utoken) form.set('utoken', req.utoken);
  return form;
}

/**
 * The fields every Direct API order (`/odeme`) carries, in the order of PayTR's table, with `paytr_token` over the
 * hashed ones (`directPaymentHash`): a charge of a stored card (`non_3d=1`) and the card page's first payment (`0`).
 */
function directOrderFields(config: PaytrConfig, req: DirectOrder, non3d: '0' | '1'): [string, string][] {
  const testMode = config.testMode ? '1' : '0';
  const hashed = {
    user_ip: plainIp(req.userIp),
    merchant_oid: req.merchantOid,
    email: req.email,
    payment_amount: formatMajor(req.amount),
    payment_type: 'card',
    installment_count: '0',
    currency: toPaytrCurrency(req.currency),
    test_mode: testMode,
    non_3d: non3d,
  };
  return [
    ['merchant_id', config.merchantId],
    ...Object.entries(hashed),
    ['paytr_token', directPaymentHash(config, hashed)],
    ['user_name', fit(req.userName, FIELD_LIMITS.user_name)],
    ['user_address', fit(req.userAddress, FIELD_LIMITS.user_address)],
    ['user_phone', fit(req.userPhone, FIELD_LIMITS.user_phone)],
    ['user_basket', encodeDirectBasket(req.basket)],
    ['merchant_ok_url', req.okUrl],
    ['merchant_fail_url', req.failUrl],
    ['debug_on', testMode],
    ['client_lang', 'en'],
  ];
}

/** The form of a recurring charge of a stored card (Direct API), in the order of PayTR's table, with `paytr_token`. Exported for tests. */
export function buildRecurringChargeForm(config: PaytrConfig, req: RecurringChargeRequest): URLSearchParams {
  return new URLSearchParams([...directOrderFields(config, req, '1'), ['utoken', req.utoken], ['ctoken', req.ctoken], ['recurring_payment', '1']]);
}

/**
 * The first payment of a card that PayTR stores ("Kart Saklama API", [postman] "Yeni Kart Ekleme"): the Direct API
 * payment form the customer's browser posts to `{apiBase}/odeme`, card fields typed by the customer (never here).
 */
export interface CardStorageRequest extends DirectOrder {
  /** The workspace's existing PayTR user token, so that the new card joins it; null for a first card. */
  utoken: string | null;
}

/**
 * The hidden fields of the card page's form (Direct API, 3D: `non_3d=0`, `store_card=1`), in the order of PayTR's
 * table, with `paytr_token` (`directPaymentHash`). The card fields (`cc_owner`, `card_number`, `expiry_month`,
 * `expiry_year`, `cvv`) are the page's inputs, typed in the browser and posted straight to PayTR. Exported for tests.
 */
export function buildCardStorageForm(config: PaytrConfig, req: CardStorageRequest): [string, string][] {
  const fields = [...directOrderFields(config, req, '0'), ['store_card', '1'] as [string, string]];
  // Outside paytr_token, as in [postman]; absent for a workspace's first card (PayTR then makes a new user token).
  if (req.utoken) fields.push(['utoken', req.utoken]);
  return fields;
}

function checkChargeRequest(req: RecurringChargeRequest): void {
  if (!/^[A-Za-z0-9]{1,64}$/.test(req.merchantOid)) throw new PaytrError('merchant_oid must be 1-64 letters and digits', 'invalid_request');
  if (!positiveInt(req.amount)) throw new PaytrError('amount must be a positive integer (minor units)', 'invalid_request');
  if (!/^[A-Za-z]{3}$/.test(req.currency)) throw new PaytrError('currency must be an ISO 4217 code', 'invalid_request');
  if (!token(req.utoken) || !token(req.ctoken)) throw new PaytrError('utoken and ctoken are required', 'invalid_request');
  if (req.basket.length === 0) throw new PaytrError('the basket is empty', 'invalid_request');
  for (const line of req.basket) {
    if (!Number.isSafeInteger(line.amount) || line.amount < 0 || !positiveInt(line.quantity)) {
      throw new PaytrError('basket amounts must be integers in minor units and quantities positive', 'invalid_request');
    }
  }
}

/** A provider token as we pass it on: non-empty, printable, short. Its value never appears in a reason. */
function token(value: string | null | undefined): value is string {
  return typeof value === 'string' && /^[\x21-\x7e]{1,200}$/.test(value);
}

/** PayTR's `try_again`: only an explicit false / 0 / "false" / "0" makes a decline final; absent means "may retry". */
function tryAgainOf(value: unknown): boolean {
  if (value === false || value === 0) return false;
  if (typeof value === 'string' && ['false', '0', 'no'].includes(value.trim().toLowerCase())) return false;
  return true;
}

/** One card of a `capi/list` answer; null when it lacks what a card must have. */
function readCard(raw: unknown): StoredCard | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const c = raw as Record<string, unknown>;
  const str = (v: unknown): string | null => (typeof v === 'string' ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : null);
  const ctoken = str(c.ctoken);
  const last4 = str(c.last_4);
  const month = Number(str(c.month));
  const yearText = str(c.year);
  if (!ctoken || !last4 || !/^\d{4}$/.test(last4) || !yearText || !/^\d{2}(\d{2})?$/.test(yearText)) return null;
  if (!Number.isInteger(month) || month < 1 || month > 12) return null;
  const year = yearText.length === 2 ? 2000 + Number(yearText) : Number(yearText);
  const brand = (str(c.schema) ?? '').toLowerCase().replace(/[^a-z0-9]/g, '') || 'unknown';
  return { ctoken, last4, expMonth: month, expYear: year, brand, requireCvv: str(c.require_cvv) === '1' || c.require_cvv === true };
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
    const body = await postJson(url, form);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new PaytrError('the provider answered an unexpected JSON value', 'bad_response');
    }
    return body as Record<string, unknown>;
  }

  /** POSTs a form and reads any JSON value back (capi/list answers an array). */
  async function postJson(url: string, form: URLSearchParams): Promise<unknown> {
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
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new PaytrError('the provider answered something that is not JSON', 'bad_response');
    }
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

    async chargeStoredCard(req) {
      checkChargeRequest(req);
      const body = await postForm(`${config.apiBase}/odeme`, buildRecurringChargeForm(config, req));
      if (body.status === 'success') return { status: 'success' };
      if (body.status === 'wait_callback') return { status: 'wait_callback' };
      if (body.status === 'failed' || body.status === 'error') {
        const said = [body.msg, body.reason, body.err_msg].find((v): v is string => typeof v === 'string' && v.trim() !== '');
        return { status: 'failed', reason: said ? scrub(said, config) : 'no reason given', tryAgain: tryAgainOf(body.try_again) };
      }
      throw new PaytrError('the provider answered an unknown status', 'bad_response');
    },

    async listCards(utoken) {
      if (!token(utoken)) throw new PaytrError('utoken is required', 'invalid_request');
      const form = new URLSearchParams({ merchant_id: config.merchantId, utoken, paytr_token: cardListHash(config, utoken) });
      const body = await postJson(`${config.apiBase}/odeme/capi/list`, form);
      if (Array.isArray(body)) {
        const cards = body.map(readCard);
        if (cards.some((c) => c === null)) throw new PaytrError('the provider listed a card without ctoken, last_4 or expiry', 'bad_response');
        return cards as StoredCard[];
      }
      if (typeof body !== 'object' || body === null) throw new PaytrError('the provider answered an unexpected JSON value', 'bad_response');
      const record = body as Record<string, unknown>;
      if (record.status === 'error' || record.status === 'failed') throw new PaytrError(errorText(record).errMsg, 'refused');
      // "When nothing matches, the answer is an empty JSON" (PayTR's CAPI LIST page).
      if (Object.keys(record).length === 0) return [];
      throw new PaytrError('the provider answered an unexpected JSON value', 'bad_response');
    },

    async deleteCard(utoken, ctoken) {
      if (!token(utoken) || !token(ctoken)) throw new PaytrError('utoken and ctoken are required', 'invalid_request');
      const form = new URLSearchParams({ merchant_id: config.merchantId, ctoken, utoken, paytr_token: cardDeleteHash(config, ctoken, utoken) });
      const body = await postForm(`${config.apiBase}/odeme/capi/delete`, form);
      if (body.status === 'success') return;
      if (body.status === 'error' || body.status === 'failed') throw new PaytrError(errorText(body).errMsg, 'refused');
      throw new PaytrError('the provider answered an unknown status', 'bad_response');
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
