import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';

const INTEGER = /^-?\d+$/;
const NUMBER = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/**
 * Query strings and path parameters are text on the wire. Convert a value only when the text is exactly a value of
 * the schema's type ("1.5" stays text for an integer, so the check refuses it instead of truncating it).
 */
function convertText(schema: TSchema, value: unknown): unknown {
  const s = schema as { type?: string; properties?: Record<string, TSchema> };
  if (s.type === 'object' && s.properties && value && typeof value === 'object' && !Array.isArray(value)) {
    const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    for (const [key, sub] of Object.entries(s.properties)) {
      if (key in out) out[key] = convertText(sub, out[key]);
    }
    return out;
  }
  if (typeof value !== 'string') return value;
  if (s.type === 'integer' && INTEGER.test(value)) return Number(value);
  if (s.type === 'number' && NUMBER.test(value)) return Number(value);
  if (s.type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

const pointer = (path: string[]): string => path.map((p) => `/${p.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

// In a `u` regex a valid surrogate pair is one astral code point; only a lone surrogate is of category Cs.
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what this rule refuses
const NOT_TEXT = /\u0000|\p{Cs}/u;

/**
 * The JSON pointer of the first string (or key) that holds U+0000 or a lone UTF-16 surrogate, or null. PostgreSQL
 * text cannot store the first, and the second is not Unicode text (it would be stored as U+FFFD). Refused for every
 * body, query and path parameter here, in one rule, rather than failing or corrupting at the database.
 */
export function findBadText(value: unknown, path: string[] = []): string | null {
  if (typeof value === 'string') return NOT_TEXT.test(value) ? pointer(path) : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findBadText(value[i], [...path, String(i)]);
      if (found !== null) return found;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (NOT_TEXT.test(key)) return pointer([...path, key]);
      const found = findBadText(v, [...path, key]);
      if (found !== null) return found;
    }
  }
  return null;
}

/**
 * Text never holds U+0000 (refused first, naming the field). Bodies are checked as sent (no coercion: "12" is not a number). Query strings and path parameters are converted
 * strictly to the schema's types and given its defaults before the check.
 */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = Compile(schema);
  const convert = httpPart !== 'body';
  return (value: unknown) => {
    const nul = findBadText(value);
    if (nul !== null) {
      return { error: [{ instancePath: nul, keyword: 'nul', params: {}, message: 'must be Unicode text without U+0000 or lone surrogates' }] as never };
    }
    const candidate = convert ? Value.Default(schema, convertText(schema, value)) : value;
    if (check.Check(candidate)) return { value: candidate };
    return { error: check.Errors(candidate) as never };
  };
};
