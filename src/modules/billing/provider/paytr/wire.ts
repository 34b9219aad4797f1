/**
 * Small wire-format helpers shared by the client, the callback parser and the sandbox. PayTR says `TL` where the
 * rest of the service says `TRY` (ISO 4217); the mapping happens here and nowhere else.
 */

/** The currencies PayTR's iFrame API takes, as it spells them. `TRY` is accepted as a synonym of `TL`. */
export const PAYTR_CURRENCIES = ['TL', 'USD', 'EUR', 'GBP', 'RUB'] as const;

/** ISO 4217 -> PayTR (`TRY` -> `TL`). */
export function toPaytrCurrency(iso: string): string {
  const upper = iso.trim().toUpperCase();
  return upper === 'TRY' ? 'TL' : upper;
}

/** PayTR -> ISO 4217 (`TL` -> `TRY`). */
export function fromPaytrCurrency(paytr: string): string {
  const upper = paytr.trim().toUpperCase();
  return upper === 'TL' ? 'TRY' : upper;
}

/** Minor units (a non-negative integer) -> major units with two decimals: 29900 -> "299.00", 5 -> "0.05". */
export function formatMajor(minor: number): string {
  if (!Number.isSafeInteger(minor) || minor < 0) throw new RangeError(`not an amount in minor units: ${minor}`);
  return `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
}

/** A basket line as PayTR documents it: `[name, unit price in major units with two decimals, quantity]`. */
export type PaytrBasketLine = [string, string, number];

/** base64(JSON([[name, "299.00", 1], ...])). */
export function encodeBasket(lines: { name: string; amount: number; quantity: number }[]): string {
  const json: PaytrBasketLine[] = lines.map((l) => [l.name, formatMajor(l.amount), l.quantity]);
  return Buffer.from(JSON.stringify(json), 'utf8').toString('base64');
}

/** Decodes a `user_basket`; null when it is not base64 JSON of `[[string, "decimal", positive int], ...]` (>= 1 line). */
export function decodeBasket(encoded: string): PaytrBasketLine[] | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return null;
  const lines: PaytrBasketLine[] = [];
  for (const line of parsed as unknown[]) {
    if (!Array.isArray(line) || line.length !== 3) return null;
    const [name, price, quantity] = line as unknown[];
    if (typeof name !== 'string' || name.trim() === '') return null;
    const priceText = typeof price === 'number' ? String(price) : price;
    if (typeof priceText !== 'string' || !/^\d+(\.\d{1,2})?$/.test(priceText)) return null;
    const qty = typeof quantity === 'string' && /^\d+$/.test(quantity) ? Number(quantity) : quantity;
    if (typeof qty !== 'number' || !Number.isSafeInteger(qty) || qty < 1) return null;
    lines.push([name, priceText, qty]);
  }
  return lines;
}

/**
 * Major units as PayTR writes them ("299.00", "299.5", "299", 299) -> minor units (29900, 29950, 29900), with integer
 * arithmetic only; null for anything else (negative, more than two decimals, not a number).
 */
export function parseMajor(value: unknown): number | null {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== 'string') return null;
  const m = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!m) return null;
  const minor = Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  return Number.isSafeInteger(minor) ? minor : null;
}

const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const HTML_DECODE: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#039;': "'", '&#39;': "'" };

/**
 * The Direct API's `user_basket`: unlike the iFrame API's base64, PayTR's Direct API samples send the JSON with HTML
 * entities (PHP `htmlentities(json_encode($basket))`): `[[&quot;Pro&quot;,&quot;299.00&quot;,1]]`.
 */
export function encodeDirectBasket(lines: { name: string; amount: number; quantity: number }[]): string {
  const json: PaytrBasketLine[] = lines.map((l) => [l.name, formatMajor(l.amount), l.quantity]);
  return JSON.stringify(json).replace(/[&<>"]/g, (c) => HTML_ENTITIES[c] as string);
}

/** Reads a Direct API basket (HTML-entity JSON, or plain JSON); null when it is not `[[name, "price", qty], ...]`. */
export function decodeDirectBasket(encoded: string): PaytrBasketLine[] | null {
  const json = encoded.replace(/&(?:amp|lt|gt|quot|#039|#39);/g, (e) => HTML_DECODE[e] as string);
  try {
    return decodeBasket(Buffer.from(json, 'utf8').toString('base64'));
  } catch {
    return null;
  }
}
