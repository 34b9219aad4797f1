/**
 * The rules of custom properties as plain functions: what a value of each type may be, how it is indexed, what a
 * definition's options may be, and how the issue-list filter `custom.<propertyId>` is read. No I/O here.
 */
import type { CustomPropertyType } from '../../db/tables/custom-properties.js';
import { type FieldError, invalid } from '../../kernel/errors.js';
import { isUuid } from '../../kernel/ids.js';

export type { CustomPropertyType };

export const PROPERTY_TYPES: readonly CustomPropertyType[] = ['text', 'number', 'date', 'select', 'multi_select', 'checkbox', 'url'];
export const CHOICE_TYPES: ReadonlySet<CustomPropertyType> = new Set(['select', 'multi_select']);

export const MAX_TEXT_CHARS = 10_000;
export const MAX_URL_CHARS = 10_000;
export const MAX_OPTIONS = 200;
export const MAX_OPTION_CHARS = 255;

/** The typed copies of a value that the issue-list filter uses (one per kind of comparison). */
export interface IndexedValue {
  value_text: string | null;
  value_number: number | null;
  value_date: Date | null;
  value_bool: boolean | null;
  value_options: string[] | null;
}

export type ValueCheck = { ok: true; value: unknown; indexed: IndexedValue } | { ok: false; message: string };

const NONE: IndexedValue = { value_text: null, value_number: null, value_date: null, value_bool: null, value_options: null };

const LONE_SURROGATE_RE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Text PostgreSQL cannot store: the NUL character (text and jsonb refuse it) and lone UTF-16 surrogates (not
 * Unicode, so jsonb refuses them). Refusing them up front keeps bad input a 400, never a 500.
 */
export function unstorableText(value: string): string | null {
  if (value.includes('\u0000')) return 'must not contain the NUL character (\\u0000)';
  if (LONE_SURROGATE_RE.test(value)) return 'must be valid Unicode (no lone surrogates)';
  return null;
}

/** Length in Unicode code points, the "characters" of the limits (an emoji counts once). */
export const charLength = (value: string): number => {
  let n = 0;
  for (const _ of value) n++;
  return n;
};

// ---- dates ------------------------------------------------------------------------------------------------------

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):(\d{2}))$/;

const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysIn = (y: number, m: number): number => [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;

function utc(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): Date {
  const at = new Date(0);
  at.setUTCFullYear(y, mo - 1, d); // setUTCFullYear, unlike Date.UTC, leaves years 0..99 alone
  at.setUTCHours(h, mi, s, ms);
  return at;
}

export interface ParsedDate {
  /** The instant: midnight UTC for a calendar date. */
  at: Date;
  /** True for `YYYY-MM-DD`: the value names a whole (UTC) day rather than an instant. */
  isDay: boolean;
}

/**
 * An ISO 8601 calendar date `YYYY-MM-DD` (a real date, years 0001-9999) or a full timestamp with a time zone:
 * `YYYY-MM-DDTHH:MM[:SS[.fraction]](Z|±HH:MM)`. Anything else (week dates, ordinal dates, no zone) is refused.
 */
export function parseIsoDate(value: string): ParsedDate | null {
  const day = DATE_RE.exec(value);
  if (day) {
    const [y, mo, d] = [Number(day[1]), Number(day[2]), Number(day[3])];
    if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo)) return null;
    return { at: utc(y, mo, d), isDay: true };
  }
  const ts = TIMESTAMP_RE.exec(value);
  if (!ts) return null;
  const [y, mo, d, h, mi] = [Number(ts[1]), Number(ts[2]), Number(ts[3]), Number(ts[4]), Number(ts[5])];
  const s = ts[6] === undefined ? 0 : Number(ts[6]);
  const ms = ts[7] === undefined ? 0 : Math.floor(Number(`0.${ts[7]}`) * 1000);
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || s > 59) return null;
  let offsetMin = 0;
  if (ts[8] !== 'Z') {
    const [oh, om] = [Number(ts[10]), Number(ts[11])];
    if (oh > 14 || om > 59 || (oh === 14 && om > 0)) return null;
    offsetMin = (ts[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const at = new Date(utc(y, mo, d, h, mi, s, ms).getTime() - offsetMin * 60_000);
  return { at, isDay: false };
}

// ---- values -----------------------------------------------------------------------------------------------------

const HTTP_URL_RE = /^https?:\/\//i;
// eslint-disable-next-line no-control-regex
const URL_FORBIDDEN_RE = /[\u0000-\u0020\u007f]/;

function checkUrl(value: string): string | null {
  if (charLength(value) > MAX_URL_CHARS) return `must be at most ${MAX_URL_CHARS} characters`;
  // The WHATWG parser quietly strips surrounding spaces, tabs and newlines; a stored URL should be what it says.
  if (URL_FORBIDDEN_RE.test(value)) return 'must not contain spaces or control characters';
  if (!HTTP_URL_RE.test(value)) return 'must be an absolute http or https URL (starting with http:// or https://)';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) return 'must be an absolute http or https URL';
  return null;
}

export interface PropertyShape {
  type: CustomPropertyType;
  options: readonly string[];
}

/**
 * Checks a value (never null: null means "clear") against its property. On success returns the value to store and
 * return (exactly what was sent, except -0 which JSON has no way to keep apart from 0) and its indexed copies.
 */
export function checkValue(property: PropertyShape, value: unknown): ValueCheck {
  const fail = (message: string): ValueCheck => ({ ok: false, message });
  switch (property.type) {
    case 'text': {
      if (typeof value !== 'string') return fail('must be a string');
      const bad = unstorableText(value);
      if (bad) return fail(bad);
      if (charLength(value) > MAX_TEXT_CHARS) return fail(`must be at most ${MAX_TEXT_CHARS} characters`);
      return { ok: true, value, indexed: { ...NONE, value_text: value } };
    }
    case 'url': {
      if (typeof value !== 'string') return fail('must be a string holding an absolute http or https URL');
      const bad = unstorableText(value) ?? checkUrl(value);
      if (bad) return fail(bad);
      return { ok: true, value, indexed: { ...NONE, value_text: value } };
    }
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return fail('must be a finite number');
      const n = value === 0 ? 0 : value; // -0 -> 0
      return { ok: true, value: n, indexed: { ...NONE, value_number: n } };
    }
    case 'date': {
      if (typeof value !== 'string') return fail('must be an ISO 8601 date (YYYY-MM-DD) or timestamp with a time zone');
      const parsed = parseIsoDate(value);
      if (!parsed) return fail('must be an ISO 8601 date (YYYY-MM-DD) or timestamp with a time zone, e.g. 2026-11-21T09:30:00Z');
      return { ok: true, value, indexed: { ...NONE, value_date: parsed.at } };
    }
    case 'select': {
      if (typeof value !== 'string') return fail('must be a string, one of the options');
      if (!property.options.includes(value)) return fail('must be one of the options of the property');
      return { ok: true, value, indexed: { ...NONE, value_text: value } };
    }
    case 'multi_select': {
      if (!Array.isArray(value)) return fail('must be an array of options');
      const seen = new Set<string>();
      for (const item of value as unknown[]) {
        if (typeof item !== 'string') return fail('must be an array of strings, each one of the options');
        if (!property.options.includes(item)) return fail('must contain only options of the property');
        if (seen.has(item)) return fail('must not repeat an option');
        seen.add(item);
      }
      const list = value as string[];
      return { ok: true, value: list, indexed: { ...NONE, value_options: list } };
    }
    case 'checkbox': {
      if (typeof value !== 'boolean') return fail('must be a boolean');
      return { ok: true, value, indexed: { ...NONE, value_bool: value } };
    }
  }
}

// ---- definitions ------------------------------------------------------------------------------------------------

export { nameKey } from '../../kernel/names.js';

/** Errors of a definition's options for its type (contract 6): choices for choice types, none for the others. */
export function optionErrors(type: CustomPropertyType, options: readonly string[] | undefined): FieldError[] {
  const list = options ?? [];
  if (!CHOICE_TYPES.has(type)) {
    return list.length ? [{ path: '/options', message: `must be empty for a ${type} property` }] : [];
  }
  if (!list.length) return [{ path: '/options', message: `must list at least one option for a ${type} property` }];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  list.forEach((option, index) => {
    const bad = unstorableText(option);
    if (bad) errors.push({ path: `/options/${index}`, message: bad });
    else if (!option.trim()) errors.push({ path: `/options/${index}`, message: 'must not be empty or blank' });
    else if (charLength(option) > MAX_OPTION_CHARS) errors.push({ path: `/options/${index}`, message: `must be at most ${MAX_OPTION_CHARS} characters` });
    else if (seen.has(option)) errors.push({ path: `/options/${index}`, message: 'repeats an earlier option' });
    seen.add(option);
  });
  return errors;
}

/** Removes `removed` options from a stored value: a select value disappears, a multi_select list shrinks. */
export function stripOptions(type: CustomPropertyType, value: unknown, removed: ReadonlySet<string>): { keep: boolean; value: unknown } {
  if (type === 'select') return typeof value === 'string' && removed.has(value) ? { keep: false, value: null } : { keep: true, value };
  if (type === 'multi_select' && Array.isArray(value)) return { keep: true, value: (value as string[]).filter((v) => !removed.has(v)) };
  return { keep: true, value };
}

/**
 * A choice value after options are renamed or merged (`mapping`: old -> new): a select value follows its option; a
 * multi_select value keeps its order and each option once (the first place it appears). Other values are unchanged.
 */
export function remapOptions(type: CustomPropertyType, value: unknown, mapping: ReadonlyMap<string, string>): unknown {
  if (type === 'select') return typeof value === 'string' ? (mapping.get(value) ?? value) : value;
  if (type === 'multi_select' && Array.isArray(value)) return [...new Set((value as string[]).map((v) => mapping.get(v) ?? v))];
  return value;
}

/** Only select and multi_select properties have options: anything else is a 400 at `path`. */
export function assertChoiceProperty(property: { type: CustomPropertyType }, path: string) {
  if (!CHOICE_TYPES.has(property.type)) throw invalid(path, `only select and multi_select properties have options (this one is ${property.type})`);
}

/** `{"old": "new"}` checked against the property: old names must be options, new names new, non-empty and distinct. */
export function renameMapping(property: { type: CustomPropertyType; options: readonly string[] }, rename: Record<string, string>): Map<string, string> {
  assertChoiceProperty(property, '/rename_options');
  const current = new Set(property.options);
  const mapping = new Map<string, string>();
  const targets = new Set<string>();
  for (const [from, to] of Object.entries(rename)) {
    const path = `/rename_options/${from.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (!current.has(from)) throw invalid(path, `"${from}" is not an option of this property`);
    if (to.trim() === '') throw invalid(path, 'the new name must not be empty');
    if (to === from) continue;
    if (current.has(to) && !(to in rename)) throw invalid(path, `"${to}" is already an option`);
    if (targets.has(to)) throw invalid(path, `"${to}" is the new name of two options`);
    targets.add(to);
    mapping.set(from, to);
  }
  return mapping;
}

// ---- the issue-list filter --------------------------------------------------------------------------------------

export type FilterOp = 'eq' | 'gte' | 'lte';

/** One `custom.<propertyId>[.gte|.lte]=<raw>` query entry. */
export interface RawFilter {
  key: string;
  propertyId: string;
  op: FilterOp;
  raw: string;
}

export type FilterClause =
  | { kind: 'text'; propertyId: string; value: string }
  | { kind: 'option'; propertyId: string; value: string }
  | { kind: 'bool'; propertyId: string; value: boolean }
  /** Equality is gte = lte = the value. */
  | { kind: 'number'; propertyId: string; gte?: number; lte?: number }
  | { kind: 'date'; propertyId: string; gte?: Date; lte?: Date; lt?: Date };

const FILTER_KEY_RE = /^custom\.([^.]*)(?:\.(gte|lte))?$/;
const NUMBER_RE = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** Reads the `custom.*` entries of a raw query object; a repeated key gives one entry per value (they AND). */
export function readFilterQuery(query: Record<string, unknown>): { filters: RawFilter[]; errors: FieldError[] } {
  const filters: RawFilter[] = [];
  const errors: FieldError[] = [];
  for (const [key, raw] of Object.entries(query)) {
    if (!key.startsWith('custom.')) continue;
    const path = `/querystring/${key}`;
    const match = FILTER_KEY_RE.exec(key);
    if (!match || !isUuid(match[1]!)) {
      errors.push({ path, message: 'must be custom.<propertyId>, custom.<propertyId>.gte or custom.<propertyId>.lte' });
      continue;
    }
    const values = Array.isArray(raw) ? raw : [raw];
    for (const value of values) {
      if (typeof value !== 'string') {
        errors.push({ path, message: 'must be a single value' });
        continue;
      }
      filters.push({ key, propertyId: match[1]!.toLowerCase(), op: (match[2] as FilterOp | undefined) ?? 'eq', raw: value });
    }
  }
  return { filters, errors };
}

/** Turns one query entry into a clause for its property's type, or says what is wrong with it. */
export function filterClause(property: PropertyShape & { id: string }, filter: RawFilter): FilterClause | string {
  const { raw, op } = filter;
  const propertyId = property.id;
  const bad = unstorableText(raw);
  if (bad) return bad;
  const ranged = property.type === 'number' || property.type === 'date';
  if (op !== 'eq' && !ranged) return `.${op} works only for number and date properties; this one is ${property.type}`;
  switch (property.type) {
    case 'text':
    case 'url':
      return { kind: 'text', propertyId, value: raw };
    case 'select':
    case 'multi_select':
      if (!property.options.includes(raw)) return 'must be one of the options of the property';
      return property.type === 'select' ? { kind: 'text', propertyId, value: raw } : { kind: 'option', propertyId, value: raw };
    case 'checkbox':
      if (raw !== 'true' && raw !== 'false') return 'must be true or false';
      return { kind: 'bool', propertyId, value: raw === 'true' };
    case 'number': {
      const n = Number(raw);
      if (!NUMBER_RE.test(raw) || !Number.isFinite(n)) return 'must be a finite number, e.g. 42 or -1.5';
      const value = n === 0 ? 0 : n;
      return { kind: 'number', propertyId, ...(op !== 'lte' && { gte: value }), ...(op !== 'gte' && { lte: value }) };
    }
    case 'date': {
      const parsed = parseIsoDate(raw);
      if (!parsed) return 'must be an ISO 8601 date (YYYY-MM-DD) or timestamp with a time zone';
      const gte = op !== 'lte' ? { gte: parsed.at } : {};
      if (!parsed.isDay) return { kind: 'date', propertyId, ...gte, ...(op !== 'gte' && { lte: parsed.at }) };
      // A calendar date names a whole UTC day: `=` and `.lte` include all of it.
      return { kind: 'date', propertyId, ...gte, ...(op !== 'gte' && { lt: new Date(parsed.at.getTime() + 86_400_000) }) };
    }
  }
}
