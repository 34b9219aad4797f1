import { type PaytrCredentials, verifyCallbackHash } from './signatures.js';
import { fromPaytrCurrency } from './wire.js';

export interface CallbackPayload {
  merchantOid: string;
  status: 'success' | 'failed';
  /** What the customer paid, in minor units. */
  totalAmount: number;
  /** ISO 4217 (`TL` arrives as `TRY`); PayTR sends it for successful payments only. */
  currency: string | null;
  failedReasonCode: string | null;
  failedReasonMsg: string | null;
  testMode: boolean;
  paymentType: string | null;
  /**
   * PayTR's user token, sent with a payment that stored a card (its card-storage page: the notification carries the new
   * `utoken`; the callback field list does not name it). Not covered by `hash`. Null when absent.
   */
  utoken: string | null;
}

export type CallbackParseResult = { ok: true; payload: CallbackPayload } | { ok: false; error: 'missing_fields' | 'bad_hash' };

const MAX_FIELD = 1000;

/**
 * A field as the provider sent it: a form gives strings, JSON may give numbers. Anything else (arrays from a repeated
 * form field, objects, booleans, huge strings) is not a value.
 */
function text(body: Record<string, unknown>, name: string): string | undefined {
  if (!Object.hasOwn(body, name)) return undefined;
  const value = body[name];
  if (typeof value === 'string') return value.length <= MAX_FIELD ? value : undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

function optional(body: Record<string, unknown>, name: string): string | null {
  const value = text(body, name);
  return value === undefined || value.trim() === '' ? null : value;
}

/**
 * The PayTR iFrame API, step 2: checks and reads a payment notification. `body` is the parsed form (or JSON object);
 * this never throws. The hash covers `merchant_oid + merchant_salt + status + total_amount` exactly as received.
 */
export function parseCallback(body: unknown, creds: PaytrCredentials): CallbackParseResult {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, error: 'missing_fields' };
  const fields = body as Record<string, unknown>;
  const merchantOid = text(fields, 'merchant_oid');
  const status = text(fields, 'status');
  const totalAmount = text(fields, 'total_amount');
  const hash = text(fields, 'hash');
  if (!merchantOid || !status || totalAmount === undefined || !hash) return { ok: false, error: 'missing_fields' };
  if (status !== 'success' && status !== 'failed') return { ok: false, error: 'missing_fields' };
  if (!/^\d{1,15}$/.test(totalAmount)) return { ok: false, error: 'missing_fields' };

  if (!verifyCallbackHash(creds, merchantOid, status, totalAmount, hash)) return { ok: false, error: 'bad_hash' };

  const currency = optional(fields, 'currency');
  const testMode = optional(fields, 'test_mode');
  return {
    ok: true,
    payload: {
      merchantOid,
      status,
      totalAmount: Number(totalAmount),
      currency: currency === null ? null : fromPaytrCurrency(currency),
      failedReasonCode: optional(fields, 'failed_reason_code'),
      failedReasonMsg: optional(fields, 'failed_reason_msg'),
      testMode: testMode === '1' || testMode?.toLowerCase() === 'true',
      paymentType: optional(fields, 'payment_type'),
      utoken: optional(fields, 'utoken'),
    },
  };
}
