import { invalid } from './errors.js';

// Repeatable query parameters of the lists and of search (contract 23.2): `?p=a&p=b` or `?p=a,b` (or both).

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The values of a repeatable query parameter, trimmed; undefined when absent or empty. */
export const queryValues = (raw: unknown): string[] | undefined => {
  if (raw === undefined || raw === '') return undefined;
  return (Array.isArray(raw) ? raw : [raw]).flatMap((v) => String(v).split(',')).map((v) => v.trim());
};

/** Values out of a fixed set, each once; anything else is a 400 naming the parameter. */
export const parseList = <T extends string>(raw: unknown, allowed: readonly T[], name: string): T[] | undefined => {
  const values = queryValues(raw);
  if (values === undefined) return undefined;
  const bad = values.filter((v) => !allowed.includes(v as T));
  if (bad.length) throw invalid(`/querystring/${name}`, `must be one of ${allowed.join(', ')} (repeat the parameter or separate with commas)`);
  return [...new Set(values)] as T[];
};

/**
 * A query filter of ids (`label_id=a&label_id=b` or `label_id=a,b`): UUIDs (lower case, as the database spells them),
 * `none` where allowed (null), `me` where allowed (the caller's id). Each value once.
 */
export function idList(raw: unknown, name: string, allow: { none?: boolean; me?: string } = {}): (string | null)[] | undefined {
  const values = queryValues(raw);
  if (values === undefined) return undefined;
  const ids = values.map((v) => {
    if (allow.none && v === 'none') return null;
    if (allow.me !== undefined && v === 'me') return allow.me;
    if (!UUID.test(v)) {
      const extra = [...(allow.me !== undefined ? ['me'] : []), ...(allow.none ? ['none'] : [])];
      throw invalid(`/querystring/${name}`, `must be UUIDs${extra.length ? ` or ${extra.join(', ')}` : ''} (repeat the parameter or separate with commas)`);
    }
    return v.toLowerCase();
  });
  return [...new Set(ids)];
}

/** UUIDs (and `me` where given the caller's id). */
export const uuidList = (raw: unknown, name: string, me?: string) => idList(raw, name, me === undefined ? {} : { me }) as string[] | undefined;
