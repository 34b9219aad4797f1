/**
 * Turkish tax identifiers (contract 19.5), pure functions.
 *
 * VKN (Vergi Kimlik Numarası, 10 digits), the Revenue Administration's check digit: for the first nine digits, with
 * i counted 1..9 from the ninth digit leftwards, c1 = (digit + i) mod 10; when c1 is not 0, c2 = (c1 * 2^i) mod 9,
 * or 9 when that is 0; the check digit is (10 - (sum of c2) mod 10) mod 10 (python-stdnum `stdnum.tr.vkn`; GİB's
 * VKN verification page). Example: 4540536920.
 *
 * TCKN (T.C. Kimlik No, 11 digits, first not 0): d10 = (7 * (d1 + d3 + d5 + d7 + d9) - (d2 + d4 + d6 + d8)) mod 10
 * and d11 = (d1 + ... + d10) mod 10. Example: 10000000146.
 */

const digitsOf = (s: string): number[] => [...s].map(Number);
const mod = (a: number, m: number): number => ((a % m) + m) % m;

/** The check digit of the first nine digits of a VKN. */
export function vknCheckDigit(first9: string): number {
  const d = digitsOf(first9);
  let sum = 0;
  for (let i = 1; i <= 9; i++) {
    const c1 = (d[9 - i]! + i) % 10;
    if (c1 !== 0) sum += (c1 * 2 ** i) % 9 || 9;
  }
  return (10 - (sum % 10)) % 10;
}

export const isValidVkn = (s: string): boolean => /^\d{10}$/.test(s) && vknCheckDigit(s.slice(0, 9)) === Number(s[9]);

/** The two check digits (d10, d11) of the first nine digits of a TCKN. */
export function tcknCheckDigits(first9: string): [number, number] {
  const d = digitsOf(first9);
  const odd = d[0]! + d[2]! + d[4]! + d[6]! + d[8]!;
  const even = d[1]! + d[3]! + d[5]! + d[7]!;
  const d10 = mod(7 * odd - even, 10);
  const d11 = (odd + even + d10) % 10;
  return [d10, d11];
}

export function isValidTckn(s: string): boolean {
  if (!/^[1-9]\d{10}$/.test(s)) return false;
  const [d10, d11] = tcknCheckDigits(s.slice(0, 9));
  return Number(s[9]) === d10 && Number(s[10]) === d11;
}

/** A Turkish tax id: a VKN (companies) or a TCKN (individuals). */
export const isValidTurkishTaxId = (s: string): boolean => isValidVkn(s) || isValidTckn(s);
