import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkValue,
  filterClause,
  nameKey,
  optionErrors,
  parseIsoDate,
  PROPERTY_TYPES,
  readFilterQuery,
  stripOptions,
} from '../../src/modules/custom-properties/custom-properties.domain.js';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** Formats an instant as an ISO 8601 timestamp in the given offset (minutes east of UTC). */
function formatAt(ms: number, offsetMin: number, fraction: string): string {
  const local = new Date(ms + offsetMin * 60_000);
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  const zone = offsetMin === 0 && fraction.length % 2 === 0 ? 'Z' : `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
  return (
    `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}` +
    `T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}${fraction}${zone}`
  );
}

describe('ISO 8601 dates', () => {
  it('reads calendar dates as midnight UTC and refuses impossible ones', () => {
    expect(parseIsoDate('2026-11-21')).toEqual({ at: new Date('2026-11-21T00:00:00Z'), isDay: true });
    expect(parseIsoDate('2024-02-29')?.isDay).toBe(true);
    expect(parseIsoDate('2000-02-29')?.isDay).toBe(true);
    expect(parseIsoDate('0045-03-01')?.at.getUTCFullYear()).toBe(45);
    for (const bad of [
      '2025-02-29',
      '1900-02-29',
      '2026-04-31',
      '2026-00-10',
      '2026-12-32',
      '0000-01-01',
      '2026-1-01',
      '+02026-01-01',
      '2026-W01',
      '2026-001',
      ' 2026-01-01',
      '2026-01-01\n',
    ]) {
      expect(parseIsoDate(bad), bad).toBeNull();
    }
  });

  it('reads timestamps with a zone, and refuses those without one or out of range', () => {
    expect(parseIsoDate('2026-11-21T09:30:00.123+03:00')?.at.toISOString()).toBe('2026-11-21T06:30:00.123Z');
    expect(parseIsoDate('2026-11-21T09:30Z')?.at.toISOString()).toBe('2026-11-21T09:30:00.000Z');
    expect(parseIsoDate('2026-12-31T23:30:00-01:00')?.at.toISOString()).toBe('2027-01-01T00:30:00.000Z');
    expect(parseIsoDate('2026-11-21T09:30:00.123456789Z')?.at.toISOString()).toBe('2026-11-21T09:30:00.123Z');
    for (const bad of [
      '2026-11-21T09:30:00',
      '2026-11-21T24:00:00Z',
      '2026-11-21T09:60:00Z',
      '2026-11-21T09:30:60Z',
      '2026-11-21T09:30:00+14:30',
      '2026-11-21T09:30:00+0300',
      '2026-11-21t09:30:00z',
      '2026-11-21 09:30:00Z',
      '2026-11-21T09:30:00.Z',
      '2026-02-30T00:00:00Z',
    ]) {
      expect(parseIsoDate(bad), bad).toBeNull();
    }
  });

  it('reads back the instant of any timestamp written in any offset', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.parse('0001-01-02T00:00:00Z'), max: Date.parse('9999-12-30T00:00:00Z') }),
        fc.integer({ min: -14 * 60, max: 14 * 60 }),
        fc.constantFrom('', '.5', '.123', '.000001'),
        (ms, offset, fraction) => {
          const exact = fraction === '.5' ? 500 : fraction === '.123' ? 123 : 0;
          const at = Math.floor(ms / 1000) * 1000 + exact;
          const parsed = parseIsoDate(formatAt(at, offset, fraction));
          expect(parsed?.at.getTime()).toBe(at);
          expect(parsed?.isDay).toBe(false);
        },
      ),
    );
  });
});

describe('value checks', () => {
  const props = {
    text: { type: 'text', options: [] },
    url: { type: 'url', options: [] },
    number: { type: 'number', options: [] },
    date: { type: 'date', options: [] },
    select: { type: 'select', options: ['A', 'b'] },
    multi_select: { type: 'multi_select', options: ['A', 'b'] },
    checkbox: { type: 'checkbox', options: [] },
  } as const;

  it('never throws on arbitrary JSON, and accepts only the JSON type of the property', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary' }), fc.constantFrom(...PROPERTY_TYPES), (value, type) => {
        const result = checkValue(props[type], value);
        if (!result.ok) return;
        const expected = { text: 'string', url: 'string', date: 'string', select: 'string', number: 'number', checkbox: 'boolean', multi_select: 'object' }[
          type
        ];
        expect(typeof result.value).toBe(expected);
        expect(JSON.stringify(result.value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 500 },
    );
  });

  it('indexes each type in its own column', () => {
    expect(checkValue(props.number, -0)).toEqual({ ok: true, value: 0, indexed: expect.objectContaining({ value_number: 0 }) });
    expect(checkValue(props.date, '2026-01-02')).toMatchObject({ indexed: { value_date: new Date('2026-01-02T00:00:00Z') } });
    expect(checkValue(props.multi_select, ['b'])).toMatchObject({ indexed: { value_options: ['b'], value_text: null } });
    expect(checkValue(props.select, 'A')).toMatchObject({ indexed: { value_text: 'A' } });
    expect(checkValue(props.checkbox, false)).toMatchObject({ indexed: { value_bool: false } });
  });

  it('counts text length in characters (code points)', () => {
    expect(checkValue(props.text, '🎉'.repeat(10_000)).ok).toBe(true);
    expect(checkValue(props.text, '🎉'.repeat(10_001)).ok).toBe(false);
  });
});

describe('definitions', () => {
  it('folds names for the uniqueness check', () => {
    expect(nameKey('Story Points')).toBe(nameKey('STORY POINTS'));
    expect(nameKey('Straße')).toBe(nameKey('STRASSE'));
    expect(nameKey('\u00c9tat')).toBe(nameKey('e\u0301tat')); // precomposed and decomposed É, either case
    expect(nameKey('Alpha')).not.toBe(nameKey('Beta'));
  });

  it('checks options per type', () => {
    expect(optionErrors('text', undefined)).toEqual([]);
    expect(optionErrors('text', [])).toEqual([]);
    expect(optionErrors('number', ['x'])).toEqual([{ path: '/options', message: expect.any(String) }]);
    expect(optionErrors('select', undefined)).toHaveLength(1);
    expect(optionErrors('select', ['a', 'A'])).toEqual([]);
    expect(optionErrors('multi_select', ['a', 'a']).map((e) => e.path)).toEqual(['/options/1']);
    expect(optionErrors('multi_select', ['a', ' ', 'x\u0000']).map((e) => e.path)).toEqual(['/options/1', '/options/2']);
  });

  it('strips removed options from values', () => {
    const gone = new Set(['x']);
    expect(stripOptions('select', 'x', gone)).toEqual({ keep: false, value: null });
    expect(stripOptions('select', 'y', gone)).toEqual({ keep: true, value: 'y' });
    expect(stripOptions('multi_select', ['y', 'x', 'z'], gone)).toEqual({ keep: true, value: ['y', 'z'] });
  });
});

describe('the custom.<propertyId> filter', () => {
  const id = '01900000-0000-7000-8000-000000000001';

  it('reads custom.* keys, one entry per repeated value, and names bad keys', () => {
    const { filters, errors } = readFilterQuery({
      offset: 0,
      [`custom.${id}`]: ['a', 'b'],
      [`custom.${id}.gte`]: '1',
      'custom.nope': 'x',
      [`custom.${id}.gt`]: '1',
    });
    expect(filters).toEqual([
      { key: `custom.${id}`, propertyId: id, op: 'eq', raw: 'a' },
      { key: `custom.${id}`, propertyId: id, op: 'eq', raw: 'b' },
      { key: `custom.${id}.gte`, propertyId: id, op: 'gte', raw: '1' },
    ]);
    expect(errors.map((e) => e.path)).toEqual(['/querystring/custom.nope', `/querystring/custom.${id}.gt`]);
  });

  it('turns values into clauses per type and refuses malformed ones', () => {
    const f = (op: 'eq' | 'gte' | 'lte', raw: string) => ({ key: 'k', propertyId: id, op, raw });
    const p = (type: (typeof PROPERTY_TYPES)[number], options: string[] = []) => ({ id, type, options });
    expect(filterClause(p('number'), f('eq', '2.5'))).toEqual({ kind: 'number', propertyId: id, gte: 2.5, lte: 2.5 });
    expect(filterClause(p('number'), f('gte', '-1e3'))).toEqual({ kind: 'number', propertyId: id, gte: -1000 });
    expect(filterClause(p('date'), f('eq', '2026-01-02'))).toEqual({
      kind: 'date',
      propertyId: id,
      gte: new Date('2026-01-02T00:00:00Z'),
      lt: new Date('2026-01-03T00:00:00Z'),
    });
    expect(filterClause(p('date'), f('lte', '2026-01-02'))).toEqual({ kind: 'date', propertyId: id, lt: new Date('2026-01-03T00:00:00Z') });
    expect(filterClause(p('date'), f('lte', '2026-01-02T10:00:00Z'))).toEqual({ kind: 'date', propertyId: id, lte: new Date('2026-01-02T10:00:00Z') });
    expect(filterClause(p('checkbox'), f('eq', 'false'))).toEqual({ kind: 'bool', propertyId: id, value: false });
    expect(filterClause(p('multi_select', ['a']), f('eq', 'a'))).toEqual({ kind: 'option', propertyId: id, value: 'a' });
    expect(filterClause(p('select', ['a']), f('eq', 'a'))).toEqual({ kind: 'text', propertyId: id, value: 'a' });
    for (const [prop, filter] of [
      [p('number'), f('eq', 'abc')],
      [p('number'), f('eq', '0x10')],
      [p('number'), f('eq', '1e999')],
      [p('number'), f('eq', '')],
      [p('date'), f('gte', '2026-02-30')],
      [p('checkbox'), f('eq', 'yes')],
      [p('checkbox'), f('gte', 'true')],
      [p('text'), f('lte', 'x')],
      [p('text'), f('eq', 'nul\u0000')],
      [p('select', ['a']), f('eq', 'b')],
      [p('multi_select', ['a']), f('eq', 'A')],
    ] as const) {
      expect(typeof filterClause(prop, filter), `${prop.type} ${filter.raw}`).toBe('string');
    }
  });
});
