import { createHmac, timingSafeEqual } from 'node:crypto';

/** The three merchant credentials PayTR signs with (`PaytrConfig` satisfies this). */
export interface PaytrCredentials {
  merchantId: string;
  merchantKey: string;
  merchantSalt: string;
}

/**
 * The token-request fields that enter `paytr_token`, exactly as they go on the wire (PayTR hashes the strings it
 * receives, so numbers are formatted the way they are sent).
 */
export interface TokenHashFields {
  user_ip: string;
  merchant_oid: string;
  email: string;
  payment_amount: string | number;
  /** The base64 basket, as sent. */
  user_basket: string;
  no_installment: string | number;
  max_installment: string | number;
  /** As sent: `TL`, `USD`, ... */
  currency: string;
  test_mode: string | number;
}

function hmacBase64(key: string, message: string): string {
  return createHmac('sha256', key).update(message, 'utf8').digest('base64');
}

/** Compares two strings in constant time; different lengths are simply unequal (the length of a base64 digest is public). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) return false;
  return timingSafeEqual(left, right);
}

/**
 * `paytr_token` = base64(HMAC-SHA256(merchant_key, merchant_id + user_ip + merchant_oid + email + payment_amount +
 * user_basket + no_installment + max_installment + currency + test_mode + merchant_salt)).
 */
export function tokenRequestHash(creds: PaytrCredentials, fields: TokenHashFields): string {
  const message =
    creds.merchantId +
    fields.user_ip +
    fields.merchant_oid +
    fields.email +
    String(fields.payment_amount) +
    fields.user_basket +
    String(fields.no_installment) +
    String(fields.max_installment) +
    fields.currency +
    String(fields.test_mode) +
    creds.merchantSalt;
  return hmacBase64(creds.merchantKey, message);
}

/** Checks a received `paytr_token` (the sandbox's side of the token request). */
export function verifyTokenRequestHash(creds: PaytrCredentials, fields: TokenHashFields, token: string): boolean {
  return safeEqual(tokenRequestHash(creds, fields), token);
}

/** The callback `hash` = base64(HMAC-SHA256(merchant_key, merchant_oid + merchant_salt + status + total_amount)). */
export function callbackHash(creds: PaytrCredentials, merchantOid: string, status: string, totalAmount: string | number): string {
  return hmacBase64(creds.merchantKey, merchantOid + creds.merchantSalt + status + String(totalAmount));
}

/** Verifies a callback `hash` in constant time. */
export function verifyCallbackHash(creds: PaytrCredentials, merchantOid: string, status: string, totalAmount: string | number, hash: string): boolean {
  return safeEqual(callbackHash(creds, merchantOid, status, totalAmount), hash);
}

/** Refund (`odeme/iade`): `paytr_token` = base64(HMAC-SHA256(merchant_key, merchant_id + merchant_oid + return_amount + merchant_salt)). */
export function refundHash(creds: PaytrCredentials, merchantOid: string, returnAmount: string): string {
  return hmacBase64(creds.merchantKey, creds.merchantId + merchantOid + returnAmount + creds.merchantSalt);
}

/** Status query (`odeme/durum-sorgu`): `paytr_token` = base64(HMAC-SHA256(merchant_key, merchant_id + merchant_oid + merchant_salt)). */
export function statusQueryHash(creds: PaytrCredentials, merchantOid: string): string {
  return hmacBase64(creds.merchantKey, creds.merchantId + merchantOid + creds.merchantSalt);
}

/**
 * The Direct API's fields that enter `paytr_token` (a payment with a stored card, `POST /odeme`), exactly as sent:
 * `payment_amount` in major units ("299.00"), `currency` as PayTR spells it (`TL`).
 */
export interface DirectHashFields {
  user_ip: string;
  merchant_oid: string;
  email: string;
  payment_amount: string;
  payment_type: string;
  installment_count: string | number;
  currency: string;
  test_mode: string | number;
  non_3d: string | number;
}

/**
 * Direct API (`odeme`): `paytr_token` = base64(HMAC-SHA256(merchant_key, merchant_id + user_ip + merchant_oid + email +
 * payment_amount + payment_type + installment_count + currency + test_mode + non_3d + merchant_salt)).
 */
export function directPaymentHash(creds: PaytrCredentials, fields: DirectHashFields): string {
  const message =
    creds.merchantId +
    fields.user_ip +
    fields.merchant_oid +
    fields.email +
    fields.payment_amount +
    fields.payment_type +
    String(fields.installment_count) +
    fields.currency +
    String(fields.test_mode) +
    String(fields.non_3d) +
    creds.merchantSalt;
  return hmacBase64(creds.merchantKey, message);
}

/** Card list (`odeme/capi/list`): `paytr_token` = base64(HMAC-SHA256(merchant_key, utoken + merchant_salt)). */
export function cardListHash(creds: PaytrCredentials, utoken: string): string {
  return hmacBase64(creds.merchantKey, utoken + creds.merchantSalt);
}

/** Card removal (`odeme/capi/delete`): `paytr_token` = base64(HMAC-SHA256(merchant_key, ctoken + utoken + merchant_salt)). */
export function cardDeleteHash(creds: PaytrCredentials, ctoken: string, utoken: string): string {
  return hmacBase64(creds.merchantKey, ctoken + utoken + creds.merchantSalt);
}
