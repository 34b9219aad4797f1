import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createProperty, setup, valuePath, valuesPath } from './fixtures.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

const OPTIONS = ['Alpha', 'beta', 'Gamma ray', 'δ', '🎉'];
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const storable = (s: string) => !s.includes('\u0000') && !LONE_SURROGATE.test(s);

/** The contract's rules, written out independently of the service's own checks. */
const ORACLE: Record<string, (v: unknown) => boolean | 'unknown'> = {
  text: (v) => typeof v === 'string' && storable(v) && Array.from(v).length <= 10_000,
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  checkbox: (v) => typeof v === 'boolean',
  select: (v) => typeof v === 'string' && OPTIONS.includes(v),
  multi_select: (v) => Array.isArray(v) && v.every((o) => typeof o === 'string' && OPTIONS.includes(o)) && new Set(v).size === v.length,
  url: (v) => {
    // eslint-disable-next-line no-control-regex
    if (typeof v !== 'string' || !storable(v) || !/^https?:\/\//i.test(v) || /[\s\u0000-\u001f\u007f]/.test(v)) return false;
    try {
      return ['http:', 'https:'].includes(new URL(v).protocol) && new URL(v).hostname !== '';
    } catch {
      return false;
    }
  },
  // Random JSON almost never looks like a date; generated dates say themselves whether they are valid.
  date: (v) => (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v) ? 'unknown' : false),
};

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const validDate = fc.oneof(
  fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  fc
    .tuple(
      fc.date({ min: new Date('0001-01-02T00:00:00Z'), max: new Date('9999-12-30T00:00:00Z'), noInvalidDate: true }),
      fc.integer({ min: -14, max: 14 }),
      fc.constantFrom(0, 30, 45),
      fc.constantFrom('', '.1', '.123', '.123456'),
    )
    .map(([d, h, m, frac]) => {
      const off = h === 14 || h === -14 ? 0 : m;
      const sign = h < 0 ? '-' : '+';
      return `${d.toISOString().slice(0, 19)}${frac}${h === 0 && off === 0 ? 'Z' : `${sign}${pad(Math.abs(h))}:${pad(off)}`}`;
    }),
);
const invalidDate = fc.oneof(
  fc.constantFrom(
    '2026-02-29',
    '2026-13-01',
    '2026-00-01',
    '0000-01-01',
    '2026-01-32',
    '2026-11-21T09:30:00',
    '2026-11-21T25:00:00Z',
    '2026-11-21T09:30:00+15:00',
  ),
  fc
    .tuple(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 32, max: 99 }))
    .map(([y, m, d]) => `${pad(y, 4)}-${pad(m)}-${pad(d)}`),
);

const VALID: Record<string, fc.Arbitrary<unknown>> = {
  text: fc.string({ maxLength: 200 }),
  number: fc.double({ noNaN: true, noDefaultInfinity: true }),
  checkbox: fc.boolean(),
  select: fc.constantFrom(...OPTIONS),
  multi_select: fc.uniqueArray(fc.constantFrom(...OPTIONS)),
  url: fc.webUrl({ withQueryParameters: true, withFragments: true }),
  date: validDate,
};

type Case = { value: unknown; valid: boolean | 'unknown' };

function cases(type: string): fc.Arbitrary<Case> {
  const oracle = ORACLE[type]!;
  const judged = (arb: fc.Arbitrary<unknown>) => arb.map((value) => ({ value, valid: oracle(value) }));
  const arbitraryJson = judged(fc.jsonValue({ stringUnit: 'binary', maxDepth: 2 }));
  const generated =
    type === 'date'
      ? fc.oneof(
          validDate.map((value) => ({ value, valid: true })),
          invalidDate.map((value) => ({ value, valid: false })),
        )
      : judged(VALID[type]!);
  return fc.oneof(arbitraryJson, generated, judged(fc.string({ unit: 'binary', maxLength: 30 })));
}

/** CP_RUNS=2000 npx vitest run test/custom-properties/values.property.test.ts for a deeper search. */
describe('custom values, property-based', () => {
  for (const type of Object.keys(ORACLE)) {
    it(`${type}: a valid value round-trips exactly and an invalid one is a 400, never a 500`, async () => {
      const { api } = ctx();
      const { ws, project, issue } = await setup(api);
      const options = type === 'select' || type === 'multi_select' ? OPTIONS : undefined;
      const property = await createProperty(api, ws, project.id, { type, ...(options && { options }) });
      const token = { token: ws.admin.token };
      await fc.assert(
        fc.asyncProperty(cases(type), async ({ value, valid }) => {
          fc.pre(valid !== 'unknown');
          const res = await api.put(valuePath(ws, issue.id, property.id), { value }, token);
          if (value === null) {
            expect(res.status, res.text).toBe(200);
            return;
          }
          const expected = JSON.parse(JSON.stringify(value)); // what the wire carries (-0 is 0)
          if (!valid) {
            expect(res.status, `${JSON.stringify(value)?.slice(0, 80)} -> ${res.text.slice(0, 200)}`).toBe(400);
            // a body with a `__proto__` key is refused by the JSON parser itself (prototype-poisoning guard)
            expect(['validation_failed', 'invalid_json']).toContain(res.body.code);
            return;
          }
          expect(res.status, `${JSON.stringify(value)?.slice(0, 80)} -> ${res.text.slice(0, 200)}`).toBe(200);
          expect(res.body.value).toEqual(expected);
          const read = await api.get(valuesPath(ws, project.id, issue.id), token);
          expect(read.body[0].value).toEqual(expected);
        }),
        { numRuns: Number(process.env.CP_RUNS ?? 60) },
      );
    }, 120_000);
  }
});
