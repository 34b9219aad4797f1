/**
 * The KDV split of a document (contract 19.4): catalogue prices include tax, so an invoice's total (a credit note's
 * amount) is the gross, and the net (matrah) is taken out of it:
 * `net = round_half_up(gross * 10000 / (10000 + rate_bp))`, `tax = gross - net` (29900 at 2000 bp -> 24917 + 4983).
 * Integer arithmetic only: with d = 10000 + rate_bp, round_half_up(gross * 10000 / d) = floor((2 * gross * 10000 + d) / (2 * d)).
 */

export interface TaxSplit {
  net_amount: number;
  tax_rate_bp: number;
  tax_amount: number;
}

/** The largest gross the split takes (every intermediate product stays a safe integer). */
export const MAX_GROSS = 2 ** 31;
export const MAX_RATE_BP = 10_000;

/** floor(a / b) for non-negative safe integers a and positive b, exact (the float quotient corrected by one step). */
function floorDiv(a: number, b: number): number {
  let q = Math.floor(a / b);
  while (q * b > a) q -= 1;
  while ((q + 1) * b <= a) q += 1;
  return q;
}

export function splitTax(gross: number, rateBp: number): TaxSplit {
  if (!Number.isSafeInteger(gross) || gross < 0 || gross > MAX_GROSS) throw new RangeError(`gross must be an integer 0..${MAX_GROSS}, got ${gross}`);
  if (!Number.isSafeInteger(rateBp) || rateBp < 0 || rateBp > MAX_RATE_BP) throw new RangeError(`rate must be an integer 0..${MAX_RATE_BP} bp, got ${rateBp}`);
  const d = 10_000 + rateBp;
  const net = floorDiv(2 * gross * 10_000 + d, 2 * d);
  return { net_amount: net, tax_rate_bp: rateBp, tax_amount: gross - net };
}

/** A rate in basis points as Turkish documents print it: 2000 -> "%20", 150 -> "%1,5", 1825 -> "%18,25". */
export function ratePercent(rateBp: number): string {
  const whole = Math.floor(rateBp / 100);
  const frac = String(rateBp % 100)
    .padStart(2, '0')
    .replace(/0+$/, '');
  return `%${whole}${frac ? `,${frac}` : ''}`;
}

/**
 * Minor units in Turkish notation, from integers only: 29900 -> "299,00", 123456789 -> "1.234.567,89",
 * -5980 -> "-59,80". The currency code follows the amount on the documents ("299,00 TRY").
 */
export function formatMinor(minor: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  const major = String(Math.floor(abs / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${sign}${major},${String(abs % 100).padStart(2, '0')}`;
}
