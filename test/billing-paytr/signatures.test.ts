import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  callbackHash,
  decodeBasket,
  encodeBasket,
  formatMajor,
  fromPaytrCurrency,
  safeEqual,
  tokenRequestHash,
  toPaytrCurrency,
  verifyCallbackHash,
  verifyTokenRequestHash,
} from '../../src/modules/billing/provider/paytr/index.js';
import { CREDS } from './support.js';

/** An independent HMAC-SHA256 (OpenSSL's), base64-encoded. */
function opensslHmac(key: string, message: string): string {
  return execFileSync('openssl', ['dgst', '-sha256', '-hmac', key, '-binary'], { input: message }).toString('base64');
}

const TOKEN_FIELDS = {
  user_ip: '203.0.113.7',
  merchant_oid: 'ORDER123',
  email: 'buyer@example.com',
  payment_amount: 29900,
  user_basket: 'W1siUHJvIHBsYW4iLCIyOTkuMDAiLDFdXQ==',
  no_installment: 1,
  max_installment: 0,
  currency: 'TL',
  test_mode: 1,
};

describe('paytr_token (token request hash)', () => {
  it('matches a vector computed once with openssl', () => {
    // printf '%s' '123456203.0.113.7ORDER123buyer@example.com29900W1si...XQ==10TL1test-salt-Zq4' |
    //   openssl dgst -sha256 -hmac 'test-key-Kx9' -binary | base64
    expect(tokenRequestHash(CREDS, TOKEN_FIELDS)).toBe('+ze1l0552d9ABGhdoRdWDICis9OUAHwk0NW67GstacE=');
  });

  it('is HMAC-SHA256(merchant_key) over the fields in PayTR order followed by the salt', () => {
    const message =
      '123456' + '203.0.113.7' + 'ORDER123' + 'buyer@example.com' + '29900' + TOKEN_FIELDS.user_basket + '1' + '0' + 'TL' + '1' + CREDS.merchantSalt;
    expect(tokenRequestHash(CREDS, TOKEN_FIELDS)).toBe(opensslHmac(CREDS.merchantKey, message));
  });

  it('formats numbers exactly like the strings sent on the wire', () => {
    const asStrings = { ...TOKEN_FIELDS, payment_amount: '29900', no_installment: '1', max_installment: '0', test_mode: '1' };
    expect(tokenRequestHash(CREDS, asStrings)).toBe(tokenRequestHash(CREDS, TOKEN_FIELDS));
  });

  it('verifies its own token and refuses a changed field or other credentials', () => {
    const token = tokenRequestHash(CREDS, TOKEN_FIELDS);
    expect(verifyTokenRequestHash(CREDS, TOKEN_FIELDS, token)).toBe(true);
    expect(verifyTokenRequestHash(CREDS, { ...TOKEN_FIELDS, payment_amount: 29901 }, token)).toBe(false);
    expect(verifyTokenRequestHash({ ...CREDS, merchantSalt: 'other' }, TOKEN_FIELDS, token)).toBe(false);
  });
});

describe('callback hash', () => {
  it('matches a vector computed once with openssl', () => {
    // printf '%s' 'ORDER123test-salt-Zq4success29900' | openssl dgst -sha256 -hmac 'test-key-Kx9' -binary | base64
    expect(callbackHash(CREDS, 'ORDER123', 'success', 29900)).toBe('WAECWcujInR9iyeQ7H9lJcOCQaVog+a/EFIGuEHeHeU=');
  });

  it('is HMAC-SHA256(merchant_key, merchant_oid + merchant_salt + status + total_amount) for other inputs', () => {
    for (const [oid, status, amount] of [
      ['A1', 'failed', '0'],
      ['019a0b1c2d3e4f5a6b7c8d9e0f1a2b3c', 'success', '79900'],
      ['x'.repeat(64), 'success', '1'],
    ] as const) {
      expect(callbackHash(CREDS, oid, status, amount)).toBe(opensslHmac(CREDS.merchantKey, oid + CREDS.merchantSalt + status + amount));
    }
  });

  it('round-trips through verifyCallbackHash for arbitrary inputs', () => {
    fc.assert(
      fc.property(
        fc.record({ merchantId: fc.string(), merchantKey: fc.string({ minLength: 1 }), merchantSalt: fc.string() }),
        fc.string(),
        fc.constantFrom('success', 'failed'),
        fc.oneof(fc.nat(), fc.string()),
        (creds, oid, status, amount) => {
          const hash = callbackHash(creds, oid, status, amount);
          expect(verifyCallbackHash(creds, oid, status, amount, hash)).toBe(true);
        },
      ),
    );
  });

  it('fails verification after any single-character change to the hash', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=';
    fc.assert(
      fc.property(
        fc.string({ maxLength: 64 }),
        fc.nat(),
        fc.nat(),
        fc.constantFrom(...alphabet.split('')),
        fc.constantFrom('replace', 'insert', 'delete'),
        (oid, amount, position, char, edit) => {
          const hash = callbackHash(CREDS, oid, 'success', amount);
          const i = position % hash.length;
          let changed: string;
          if (edit === 'replace') {
            fc.pre(hash[i] !== char);
            changed = hash.slice(0, i) + char + hash.slice(i + 1);
          } else if (edit === 'insert') {
            changed = hash.slice(0, i) + char + hash.slice(i);
          } else {
            changed = hash.slice(0, i) + hash.slice(i + 1);
          }
          expect(verifyCallbackHash(CREDS, oid, 'success', amount, changed)).toBe(false);
        },
      ),
    );
  });

  it('compares safely when lengths differ', () => {
    expect(safeEqual('abc', 'abcd')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
    expect(safeEqual('ü', 'u')).toBe(false);
  });
});

describe('wire formats', () => {
  it('maps TRY to TL on the way out and TL to TRY on the way in, and nothing else', () => {
    expect(toPaytrCurrency('TRY')).toBe('TL');
    expect(toPaytrCurrency('try')).toBe('TL');
    expect(toPaytrCurrency('USD')).toBe('USD');
    expect(fromPaytrCurrency('TL')).toBe('TRY');
    expect(fromPaytrCurrency('EUR')).toBe('EUR');
  });

  it('formats minor units as major units with two decimals', () => {
    expect(formatMajor(29900)).toBe('299.00');
    expect(formatMajor(5)).toBe('0.05');
    expect(formatMajor(123456)).toBe('1234.56');
    expect(() => formatMajor(1.5)).toThrow();
    expect(() => formatMajor(-1)).toThrow();
  });

  it('encodes the basket as base64 JSON of [name, "price", quantity] lines, as PayTR documents', () => {
    const encoded = encodeBasket([
      { name: 'Pro plan', amount: 29900, quantity: 1 },
      { name: 'Seat "extra" ğüş', amount: 1050, quantity: 3 },
    ]);
    expect(JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'))).toEqual([
      ['Pro plan', '299.00', 1],
      ['Seat "extra" ğüş', '10.50', 3],
    ]);
    expect(encodeBasket([{ name: 'Pro plan', amount: 29900, quantity: 1 }])).toBe(TOKEN_FIELDS.user_basket);
  });

  it('decodes a good basket and refuses garbage', () => {
    expect(decodeBasket(TOKEN_FIELDS.user_basket)).toEqual([['Pro plan', '299.00', 1]]);
    const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64');
    expect(decodeBasket('not base64!')).toBeNull();
    expect(decodeBasket(Buffer.from('{oops').toString('base64'))).toBeNull();
    expect(decodeBasket(b64([]))).toBeNull();
    expect(decodeBasket(b64([['x', '1.00']]))).toBeNull();
    expect(decodeBasket(b64([['x', 'abc', 1]]))).toBeNull();
    expect(decodeBasket(b64([['x', '1.00', 0]]))).toBeNull();
    expect(decodeBasket(b64({ a: 1 }))).toBeNull();
  });

  it('round-trips any basket through encode and decode', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            name: fc.string({ minLength: 1 }).filter((s) => s.trim() !== ''),
            amount: fc.nat({ max: 10_000_000 }),
            quantity: fc.integer({ min: 1, max: 1000 }),
          }),
          { minLength: 1, maxLength: 5 },
        ),
        (lines) => {
          expect(decodeBasket(encodeBasket(lines))).toEqual(lines.map((l) => [l.name, formatMajor(l.amount), l.quantity]));
        },
      ),
    );
  });
});
