import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidTckn, isValidTurkishTaxId, isValidVkn } from '../../src/modules/billing/profile/profile.rules.js';

/**
 * Models written independently of the implementation, from the published algorithms:
 * VKN: digits v1..v9 counted from the left, with k = 10 - position: t = (v + k) mod 10, p = t * 2^k mod 9 (9 when
 * t != 0 and that is 0), check = (10 - sum mod 10) mod 10. TCKN: the two check digits of the Ministry of the Interior.
 */
function vknModel(nine: number[]): string {
  let sum = 0;
  nine.forEach((v, index) => {
    const k = 9 - index;
    const t = (v + k) % 10;
    if (t === 0) return;
    const p = (t * Math.pow(2, k)) % 9;
    sum += p === 0 ? 9 : p;
  });
  return nine.join('') + String((10 - (sum % 10)) % 10);
}

function tcknModel(nine: number[]): string {
  const odd = nine[0]! + nine[2]! + nine[4]! + nine[6]! + nine[8]!;
  const even = nine[1]! + nine[3]! + nine[5]! + nine[7]!;
  const d10 = (((odd * 7 - even) % 10) + 10) % 10;
  const d11 = (odd + even + d10) % 10;
  return nine.join('') + String(d10) + String(d11);
}

const digits = (n: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n });
const tcknPrefix = fc.tuple(fc.integer({ min: 1, max: 9 }), digits(8)).map(([first, rest]) => [first, ...rest]);

/** The number with the digit at `at` replaced by another digit. */
const mutate = (s: string, at: number, by: number): string => {
  const i = at % s.length;
  const d = (Number(s[i]) + 1 + (by % 9)) % 10;
  return s.slice(0, i) + String(d) + s.slice(i + 1);
};

describe('VKN and TCKN (contract 19.5)', () => {
  it('knows published examples', () => {
    expect(isValidVkn('4540536920')).toBe(true);
    expect(isValidVkn('4540536921')).toBe(false);
    expect(isValidTckn('10000000146')).toBe(true);
    expect(isValidTckn('10000000147')).toBe(false);
    expect(isValidTckn('01000000146')).toBe(false);
    expect(isValidTurkishTaxId('454053692')).toBe(false);
    expect(isValidTurkishTaxId('45405369200')).toBe(false);
    expect(isValidTurkishTaxId('45405 3692')).toBe(false);
  });

  it('accepts every generated valid VKN and refuses it with any one digit changed', () => {
    fc.assert(
      fc.property(digits(9), fc.nat(), fc.nat(), (nine, at, by) => {
        const vkn = vknModel(nine);
        expect(isValidVkn(vkn)).toBe(true);
        expect(isValidTurkishTaxId(vkn)).toBe(true);
        expect(isValidVkn(mutate(vkn, at, by))).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts every generated valid TCKN and refuses it with any one digit changed or a leading 0', () => {
    fc.assert(
      fc.property(tcknPrefix, fc.nat(), fc.nat(), (nine, at, by) => {
        const tckn = tcknModel(nine);
        expect(isValidTckn(tckn)).toBe(true);
        expect(isValidTurkishTaxId(tckn)).toBe(true);
        expect(isValidTckn(mutate(tckn, at, by))).toBe(false);
        expect(isValidTckn(`0${tckn.slice(1)}`)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses anything that is not 10 or 11 digits', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 14 }), (s) => {
        if (!/^\d{10,11}$/.test(s)) expect(isValidTurkishTaxId(s)).toBe(false);
      }),
    );
  });
});
