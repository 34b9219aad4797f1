import { randomBytes } from 'node:crypto';
import formbody from '@fastify/formbody';
import type { FastifyBaseLogger, FastifyPluginAsync, FastifyReply } from 'fastify';
import type { Config } from '../../../../config/config.js';
import { paymentPageScriptTags } from '../../../../http/payment-page.js';
import {
  callbackHash,
  cardDeleteHash,
  cardListHash,
  directPaymentHash,
  type PaytrCredentials,
  refundHash,
  safeEqual,
  statusQueryHash,
  verifyTokenRequestHash,
} from './signatures.js';
import { decodeBasket, decodeDirectBasket, formatMajor, PAYTR_CURRENCIES, type PaytrBasketLine, parseMajor } from './wire.js';

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
  /** How long after a `wait_callback` answer the charge's notification is posted (default 200 ms). */
  waitCallbackDelayMs?: number;
  /**
   * How long after an answer of `success` or `failed` the charge's notification is posted (default 50 ms): PayTR's
   * notification follows its answer. 0 makes them race (tests of the race set it).
   */
  notifyAfterAnswerMs?: number;
}

/** How the later charges of a stored sandbox card end (the test card it was stored from, contract 19.7). */
export type SandboxCardBehaviour = 'success' | 'insufficient_funds' | 'card_closed' | 'wait_callback' | 'wait_callback_failed';

/** A stored sandbox card: what PayTR's capi/list shows, never the card number. */
export interface SandboxCard {
  utoken: string;
  ctoken: string;
  last4: string;
  /** Lower case: visa, mastercard, amex, troy, unknown. */
  brand: string;
  expMonth: number;
  expYear: number;
  behaviour: SandboxCardBehaviour;
  createdAt: number;
}

/** One charge of a stored card through the Direct API (`POST /odeme`). */
export interface SandboxCharge {
  merchantOid: string;
  utoken: string;
  ctoken: string;
  /** Minor units. */
  amount: number;
  /** As PayTR spells it: TL, USD, ... */
  currency: string;
  /** The outcome, as the notification tells it. */
  status: 'success' | 'failed';
  /** The synchronous answer given (wait_callback: the outcome came by the notification only). */
  answer: 'success' | 'wait_callback' | 'failed';
  failureReason: string | null;
  tryAgain: boolean | null;
  testMode: boolean;
  refundedAmount: number;
  createdAt: number;
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
  insertCard(card: SandboxCard): Promise<void>;
  /** A user's cards, oldest first. */
  cards(utoken: string): Promise<SandboxCard[]>;
  card(utoken: string, ctoken: string): Promise<SandboxCard | undefined>;
  /** What a charge needs to know, in one look: the card, and whether an iFrame order already paid the merchant_oid. */
  cardForCharge(utoken: string, ctoken: string, merchantOid: string): Promise<{ card: SandboxCard | undefined; orderPaid: boolean }>;
  /** False when there was no such card. */
  deleteCard(utoken: string, ctoken: string): Promise<boolean>;
  /** False when the merchant_oid was already charged (nothing is written then). */
  insertCharge(charge: SandboxCharge): Promise<boolean>;
  chargeByOid(merchantOid: string): Promise<SandboxCharge | undefined>;
  /** Adds a refund to a successful charge, never past its amount; false when it would. */
  addChargeRefund(merchantOid: string, amount: number): Promise<boolean>;
}

/** The default store: a Map in this process. */
export function memorySandboxStore(): SandboxStore {
  const orders = new Map<string, SandboxOrder>();
  const cards = new Map<string, SandboxCard>();
  const charges = new Map<string, SandboxCharge>();
  return {
    async insertCard(card) {
      cards.set(card.ctoken, { ...card });
    },
    async cards(utoken) {
      return [...cards.values()].filter((c) => c.utoken === utoken).map((c) => ({ ...c }));
    },
    async card(utoken, ctoken) {
      const c = cards.get(ctoken);
      return c && c.utoken === utoken ? { ...c } : undefined;
    },
    async cardForCharge(utoken, ctoken, merchantOid) {
      return { card: await this.card(utoken, ctoken), orderPaid: (await this.paidByOid(merchantOid)) !== undefined };
    },
    async deleteCard(utoken, ctoken) {
      const c = cards.get(ctoken);
      if (!c || c.utoken !== utoken) return false;
      return cards.delete(ctoken);
    },
    async insertCharge(charge) {
      if (charges.has(charge.merchantOid)) return false;
      charges.set(charge.merchantOid, { ...charge });
      return true;
    },
    async chargeByOid(merchantOid) {
      const c = charges.get(merchantOid);
      return c ? { ...c } : undefined;
    },
    async addChargeRefund(merchantOid, amount) {
      const c = charges.get(merchantOid);
      if (!c || c.status !== 'success' || c.refundedAmount + amount > c.amount) return false;
      c.refundedAmount += amount;
      return true;
    },
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
  /** `store_card=1`: a successful payment stores the card (absent on orders made before card storage). */
  storeCard?: boolean;
  /** The user token the stored card joins; null: a new one is made. */
  utoken?: string | null;
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
  const storeCard = field(form, 'store_card') ?? '';
  if (storeCard !== '' && !/^[01]$/.test(storeCard)) return fail('store_card must be 0 or 1');
  const utoken = (field(form, 'utoken') ?? '').trim();
  if (utoken !== '' && !/^[A-Za-z0-9]{1,64}$/.test(utoken)) return fail('utoken must be alphanumeric and at most 64 characters');
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
      storeCard: storeCard === '1',
      utoken: utoken === '' ? null : utoken,
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

// ---- test cards (contract 19.7) ----

/** The default test card of the payment page (PayTR's own test card number). */
export const DEFAULT_TEST_CARD = '4355084355084358';
/** Declined at once on the payment page: a failed notification, nothing stored. */
export const DECLINED_TEST_CARD = '4000000000000002';

/**
 * Test cards whose stored copy behaves in a set way on later charges. `4000000000003220` and `4000000000009995` are
 * sandbox extensions (not PayTR's): the Direct API answers `wait_callback` and the outcome (success, or a
 * retryable `insufficient_funds` decline) comes by the notification only. Any other 12-19 digit number is the default.
 */
export const TEST_CARD_BEHAVIOURS: Readonly<Record<string, SandboxCardBehaviour>> = {
  [DEFAULT_TEST_CARD]: 'success',
  '4000000000000341': 'insufficient_funds',
  '4000000000000069': 'card_closed',
  '4000000000003220': 'wait_callback',
  '4000000000009995': 'wait_callback_failed',
};

/** A card number as typed (spaces and dashes allowed) -> its digits; null unless 12-19 digits. */
export function cardDigits(input: string | undefined): string | null {
  if (input === undefined) return DEFAULT_TEST_CARD;
  const digits = input.replace(/[\s-]/g, '');
  if (digits === '') return DEFAULT_TEST_CARD;
  return /^\d{12,19}$/.test(digits) ? digits : null;
}

/** The card scheme from the number's prefix, as capi/list's `schema` would name it (lower case). */
export function cardBrand(digits: string): string {
  if (digits.startsWith('4')) return 'visa';
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(digits)) return 'mastercard';
  if (/^3[47]/.test(digits)) return 'amex';
  if (/^9792/.test(digits)) return 'troy';
  return 'unknown';
}

/** What a charge of a stored card with this behaviour answers and notifies. */
function chargeOutcome(behaviour: SandboxCardBehaviour): Pick<SandboxCharge, 'status' | 'answer' | 'failureReason' | 'tryAgain'> {
  switch (behaviour) {
    case 'insufficient_funds':
      return { status: 'failed', answer: 'failed', failureReason: 'insufficient_funds', tryAgain: true };
    case 'card_closed':
      return { status: 'failed', answer: 'failed', failureReason: 'card_closed', tryAgain: false };
    case 'wait_callback':
      return { status: 'success', answer: 'wait_callback', failureReason: null, tryAgain: null };
    case 'wait_callback_failed':
      return { status: 'failed', answer: 'wait_callback', failureReason: 'insufficient_funds', tryAgain: true };
    default:
      return { status: 'success', answer: 'success', failureReason: null, tryAgain: null };
  }
}

/** The JSON answer of the Direct API for a charge (repeated as it was for a repeated merchant_oid). */
function chargeAnswer(charge: Pick<SandboxCharge, 'answer' | 'failureReason' | 'tryAgain'>): Record<string, unknown> {
  if (charge.answer === 'failed') return { status: 'failed', msg: charge.failureReason ?? 'declined', try_again: charge.tryAgain ?? true };
  return { status: charge.answer };
}

const newToken = (): string => randomBytes(16).toString('hex');

const REQUIRED_DIRECT = [
  'merchant_id',
  'user_ip',
  'merchant_oid',
  'email',
  'payment_amount',
  'payment_type',
  'installment_count',
  'non_3d',
  'paytr_token',
  'user_name',
  'user_address',
  'user_phone',
  'user_basket',
  'merchant_ok_url',
  'merchant_fail_url',
  'utoken',
  'ctoken',
] as const;

export type DirectChargeCheck =
  | { ok: true; charge: { merchantOid: string; utoken: string; ctoken: string; amount: number; currency: string; testMode: boolean } }
  | { ok: false; reason: string };

/**
 * Checks a Direct API payment with a stored card (recurring, non-3D) the way PayTR does: required fields, the merchant,
 * `paytr_token`, then the values. Card fields (a payment with a new card) are not served by the sandbox. Pure.
 */
export function checkDirectCharge(body: unknown, creds: PaytrCredentials): DirectChargeCheck {
  const form: Form = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Form) : {};
  const v: Record<string, string> = {};
  for (const name of REQUIRED_DIRECT) {
    const value = field(form, name);
    if (value === undefined || value.trim() === '') return { ok: false, reason: `required field ${name} is missing` };
    v[name] = value;
  }
  const get = (name: (typeof REQUIRED_DIRECT)[number]): string => v[name] as string;
  const fail = (reason: string): DirectChargeCheck => ({ ok: false, reason });
  const currency = field(form, 'currency') ?? '';
  const testMode = field(form, 'test_mode') ?? '0';
  if (get('merchant_id') !== creds.merchantId) return fail('merchant_id is invalid or the merchant is not active');
  const expected = directPaymentHash(creds, {
    user_ip: get('user_ip'),
    merchant_oid: get('merchant_oid'),
    email: get('email'),
    payment_amount: get('payment_amount'),
    payment_type: get('payment_type'),
    installment_count: get('installment_count'),
    currency,
    test_mode: testMode,
    non_3d: get('non_3d'),
  });
  if (!safeEqual(expected, get('paytr_token'))) {
    return fail('paytr_token does not match the values sent (check merchant_key, merchant_salt and the field order)');
  }
  if (field(form, 'card_number') !== undefined || field(form, 'cc_owner') !== undefined) {
    return fail('the sandbox serves payments with a stored card only (utoken and ctoken, no card fields)');
  }
  if (get('non_3d') !== '1') return fail('non_3d must be 1: the sandbox charges stored cards without 3-D Secure');
  if ((field(form, 'recurring_payment') ?? '') !== '1') return fail('recurring_payment must be 1 for a charge without the customer');
  if (get('payment_type') !== 'card') return fail('payment_type must be card');
  if (get('installment_count') !== '0') return fail('installment_count must be 0 for a recurring payment');
  if (!/^[A-Za-z0-9]{1,64}$/.test(get('merchant_oid'))) return fail('merchant_oid must be alphanumeric and at most 64 characters');
  if (get('user_ip').length > 39) return fail('user_ip must be at most 39 characters');
  if (get('email').length > 100 || !/^[^\s@]+@[^\s@]+$/.test(get('email'))) return fail('email must be an e-mail address of at most 100 characters');
  const amount = /^\d+(\.\d{1,2})?$/.test(get('payment_amount')) ? parseMajor(get('payment_amount')) : null;
  if (amount === null || amount <= 0) return fail('payment_amount must be a positive amount such as 100.99 or 150');
  const paytrCurrency = currency === '' || currency.toUpperCase() === 'TRY' ? 'TL' : currency;
  if (!(PAYTR_CURRENCIES as readonly string[]).includes(paytrCurrency)) return fail(`currency must be one of ${PAYTR_CURRENCIES.join(', ')}`);
  if (!/^[01]$/.test(testMode)) return fail('test_mode must be 0 or 1');
  if (!decodeDirectBasket(get('user_basket'))) return fail('user_basket must be a JSON array of [name, "price", quantity] lines');
  if (get('user_name').length > 60) return fail('user_name must be at most 60 characters');
  if (get('user_address').length > 400) return fail('user_address must be at most 400 characters');
  if (get('user_phone').length > 20) return fail('user_phone must be at most 20 characters');
  for (const name of ['merchant_ok_url', 'merchant_fail_url'] as const) {
    if (get(name).length > 400 || !httpUrl(get(name))) return fail(`${name} must be an http(s) URL`);
  }
  return {
    ok: true,
    charge: { merchantOid: get('merchant_oid'), utoken: get('utoken'), ctoken: get('ctoken'), amount, currency: paytrCurrency, testMode: testMode === '1' },
  };
}

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
<label>Card number <input name="card_number" form="pay-form" value="${DEFAULT_TEST_CARD}" inputmode="numeric" autocomplete="off" maxlength="23"></label>
<label>Expiry <input value="12/30" readonly></label>
<label>CVV <input value="000" readonly></label>
<p>Test cards: ${DEFAULT_TEST_CARD} pays (later charges succeed); 4000000000000341 pays, later charges are declined
(insufficient funds); 4000000000000069 pays, later charges are declined as final (card closed);
${DECLINED_TEST_CARD} is declined.${order.storeCard ? ' <strong>This payment stores the card.</strong>' : ''}</p></fieldset>
<div class="buttons">
<form method="post" action="${base}/pay" id="pay-form"><button class="pay" type="submit">Pay ${formatMajor(order.amount)} ${esc(order.currency)}</button></form>
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

const badCardPage = (): string => page('Invalid card number', '<h1>Invalid card number</h1><p>A card number has 12 to 19 digits. Go back and correct it.</p>');

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
    if ((await store.paidByOid(check.order.merchantOid)) || (await store.chargeByOid(check.order.merchantOid))) {
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
    const form = (typeof body === 'object' && body !== null ? body : {}) as Form;
    // The card number lives only in this request: never stored, logged or echoed (only brand and last four are kept).
    const digits = outcome === 'pay' ? cardDigits(field(form, 'card_number')) : null;
    if (outcome === 'pay' && digits === null) return sendHtml(reply, 400, badCardPage());
    if (digits === DECLINED_TEST_CARD) outcome = 'decline';
    if (order.state !== 'open' || !(await store.complete(token, outcome === 'pay' ? 'paid' : 'declined'))) {
      return sendHtml(reply, 409, completedPage((await store.byToken(token)) ?? order));
    }
    let result: Parameters<typeof sandboxNotification>[2];
    let stored: SandboxCard | undefined;
    if (outcome === 'pay' && digits !== null && order.storeCard) {
      stored = {
        utoken: order.utoken ?? newToken(),
        ctoken: newToken(),
        last4: digits.slice(-4),
        brand: cardBrand(digits),
        expMonth: 12,
        expYear: 2030,
        behaviour: TEST_CARD_BEHAVIOURS[digits] ?? 'success',
        createdAt: now(),
      };
      await store.insertCard(stored);
      log.info({ merchantOid: order.merchantOid, brand: stored.brand, last4: stored.last4 }, 'sandbox: card stored');
    }
    if (digits === DECLINED_TEST_CARD) {
      result = { status: 'failed', code: '0', message: 'Card declined (sandbox test card)' };
    } else if (outcome === 'pay') {
      result = { status: 'success' };
    } else {
      const asked = field(form, 'reason') ?? '0';
      const code = Object.hasOwn(DECLINE_REASONS, asked) ? asked : '0';
      result = { status: 'failed', code, message: DECLINE_REASONS[code] as string };
    }
    const notification = sandboxNotification(creds, order, result);
    // PayTR's card-storage page: the notification of a payment that stored a card carries the user token.
    if (stored) Object.assign(notification, { utoken: stored.utoken, ctoken: stored.ctoken });
    await deliverNotification(notification, { url: opts.callbackUrl, fetch: doFetch, timeoutMs: creds.timeoutMs, delays, log }, pending);
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
    const paid = await store.paidByOid(oid);
    const charge = paid ? undefined : await store.chargeByOid(oid);
    const order = paid ?? (charge?.status === 'success' ? charge : undefined);
    if (!order) return apiError(reply, '004', 'No paid order with this merchant_oid');
    const refunded = paid ? await store.addRefund(oid, minor) : await store.addChargeRefund(oid, minor);
    if (!refunded) return apiError(reply, '005', 'return_amount exceeds what is left to refund');
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
    const charge = await store.chargeByOid(oid);
    const order = (await store.paidByOid(oid)) ?? (charge?.status === 'success' ? charge : undefined);
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

  // ---- the Direct API with stored cards: a recurring charge, the card list and card removal ----

  const json = (reply: FastifyReply) => void reply.type('application/json; charset=utf-8');
  const waitMs = opts.waitCallbackDelayMs ?? 200;
  const afterAnswerMs = opts.notifyAfterAnswerMs ?? 50;

  /** Posts a charge's notification in the background (after `delayMs`), so that it can race the answer as PayTR's does. */
  const notifyLater = (fields: Record<string, string>, delayMs: number, log: FastifyBaseLogger): void => {
    const send = () => {
      pending.delete(timerDelivery);
      void deliverNotification(fields, { url: opts.callbackUrl, fetch: doFetch, timeoutMs: creds.timeoutMs, delays, log }, pending);
    };
    const timer = setTimeout(send, delayMs);
    const timerDelivery: Delivery = { stop: () => clearTimeout(timer) };
    pending.add(timerDelivery);
  };

  app.post('/sandbox/paytr/odeme', { schema: hide }, async (request, reply) => {
    json(reply);
    const check = checkDirectCharge(request.body, creds);
    if (!check.ok) return { status: 'failed', msg: check.reason };
    const { merchantOid, utoken, ctoken, amount, currency, testMode } = check.charge;
    // A merchant_oid is charged at most once: a repeat gets the first answer again and charges nothing (the insert
    // below is the check; a repeat whose card is gone since is answered from the first charge too).
    const { card, orderPaid } = await store.cardForCharge(utoken, ctoken, merchantOid);
    if (orderPaid) return { status: 'failed', msg: 'merchant_oid has already been paid; send a new merchant_oid', try_again: false };
    if (!card) {
      const earlier = await store.chargeByOid(merchantOid);
      return earlier ? chargeAnswer(earlier) : { status: 'failed', msg: 'No stored card with this utoken and ctoken', try_again: false };
    }
    const charge: SandboxCharge = {
      merchantOid,
      utoken,
      ctoken,
      amount,
      currency,
      testMode,
      refundedAmount: 0,
      createdAt: now(),
      ...chargeOutcome(card.behaviour),
    };
    if (!(await store.insertCharge(charge))) {
      const first = await store.chargeByOid(merchantOid);
      return first ? chargeAnswer(first) : { status: 'failed', msg: 'merchant_oid is being charged; try again later' };
    }
    request.log.info({ merchantOid, amount, outcome: charge.status, answer: charge.answer }, 'sandbox: stored card charged');
    const result: Parameters<typeof sandboxNotification>[2] =
      charge.status === 'success' ? { status: 'success' } : { status: 'failed', code: '0', message: charge.failureReason ?? 'declined' };
    const notification = sandboxNotification(creds, { merchantOid, amount, currency, testMode }, result);
    notifyLater(notification, charge.answer === 'wait_callback' ? waitMs : afterAnswerMs, request.log);
    return chargeAnswer(charge);
  });

  const tokenPair = (form: Form) => ({
    merchantId: field(form, 'merchant_id') ?? '',
    utoken: field(form, 'utoken') ?? '',
    ctoken: field(form, 'ctoken') ?? '',
    token: field(form, 'paytr_token') ?? '',
  });

  app.post('/sandbox/paytr/odeme/capi/list', { schema: hide }, async (request, reply) => {
    json(reply);
    const { merchantId, utoken, token } = tokenPair((request.body ?? {}) as Form);
    if (!merchantId || !utoken || !token) return { status: 'error', err_msg: 'merchant_id, utoken and paytr_token are required' };
    if (merchantId !== creds.merchantId || !safeEqual(cardListHash(creds, utoken), token)) return { status: 'error', err_msg: 'paytr_token is invalid' };
    const cards = await store.cards(utoken);
    // PayTR: "when nothing matches, the answer is an empty JSON".
    if (cards.length === 0) return {};
    return cards.map((c) => ({
      ctoken: c.ctoken,
      last_4: c.last4,
      require_cvv: '0',
      month: String(c.expMonth).padStart(2, '0'),
      year: String(c.expYear % 100).padStart(2, '0'),
      c_bank: 'Sandbox Bank',
      c_name: 'SANDBOX TEST CARD',
      c_brand: 'sandbox',
      c_type: 'credit',
      businessCard: 'n',
      schema: c.brand.toUpperCase(),
    }));
  });

  app.post('/sandbox/paytr/odeme/capi/delete', { schema: hide }, async (request, reply) => {
    json(reply);
    const { merchantId, utoken, ctoken, token } = tokenPair((request.body ?? {}) as Form);
    if (!merchantId || !utoken || !ctoken || !token) return { status: 'error', err_msg: 'merchant_id, ctoken, utoken and paytr_token are required' };
    if (merchantId !== creds.merchantId || !safeEqual(cardDeleteHash(creds, ctoken, utoken), token)) {
      return { status: 'error', err_msg: 'paytr_token is invalid' };
    }
    if (!(await store.deleteCard(utoken, ctoken))) return { status: 'error', err_msg: 'No stored card with this utoken and ctoken' };
    request.log.info('sandbox: stored card removed');
    return { status: 'success' };
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
