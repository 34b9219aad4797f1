import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pathFixtures } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

interface Operation {
  method: string;
  path: string;
  bodyKeys: string[];
  queryKeys: string[];
  pathParams: string[];
}

/** Every operation of the OpenAPI document, with the names of its body and query fields. */
function operations(doc: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      ops.push({
        method: method.toUpperCase(),
        path,
        bodyKeys: Object.keys(schema?.properties ?? {}),
        queryKeys: (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name),
        pathParams: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
      });
    }
  }
  return ops;
}

const isProblem = (h: Headers) => (h.get('content-type') ?? '').startsWith('application/problem+json');
// The payment provider's callback speaks the provider's wire protocol (form in, plain text out), not the API's.
const PROVIDER_CALLBACK = '/api/webhooks/provider/callback/';

// Values that have broken services elsewhere: wrong types, huge and tiny numbers, odd strings, deep nesting.
const nasty = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(null, '', ' ', '\u0000', '\ud800', 'NaN', '-1', '1e309', '__proto__', '../../etc', "' OR 1=1 --"),
  fc.constantFrom(-1, 0, 0.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 31, -(2 ** 63)),
  fc.string({ maxLength: 300 }),
);

describe('robustness', () => {
  it('answers arbitrary bodies and query values on every route with a 2xx or 4xx, never a 5xx', async () => {
    const { api } = ctx();
    const { t, ids } = await pathFixtures(api);
    const doc = (await api.get('/openapi.json')).body;
    // Destructive routes would remove the fixtures the other routes need: they are exercised by their own tests.
    const ops = operations(doc).filter((op) => op.method !== 'DELETE' && !op.path.includes('/auth/sign-out'));
    expect(ops.length).toBeGreaterThan(40);
    const failures: string[] = [];
    for (const op of ops) {
      const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? name);
      await fc
        .assert(
          fc.asyncProperty(
            fc.oneof(nasty, fc.dictionary(fc.constantFrom(...(op.bodyKeys.length ? op.bodyKeys : ['x'])), nasty, { maxKeys: 4 })),
            fc.dictionary(fc.constantFrom(...(op.queryKeys.length ? op.queryKeys : ['q'])), fc.string({ maxLength: 20 }), { maxKeys: 3 }),
            async (body, query) => {
              const qs = new URLSearchParams(query).toString();
              const res = await api.request(op.method, `${path}${qs ? `?${qs}` : ''}`, {
                ...t,
                ...(op.method === 'GET' ? {} : { body }),
              });
              const bad = res.status >= 500 || (res.status >= 400 && op.path !== PROVIDER_CALLBACK && !isProblem(res.headers));
              if (bad) failures.push(`${op.method} ${op.path} ${JSON.stringify(body)} ?${qs} -> ${res.status} ${res.text}`);
              return !bad;
            },
          ),
          { numRuns: 12, seed: 42, endOnFailure: true },
        )
        .catch(() => undefined);
    }
    expect(failures).toEqual([]);
  }, 240_000);

  it('answers the hostile classes (U+0000, lone surrogates, huge offsets, bad path encodings, bad UTF-8) with a 4xx problem, never a 5xx', async () => {
    const { api, url } = ctx();
    const { t, ids } = await pathFixtures(api);
    const doc = (await api.get('/openapi.json')).body;
    // Sign-out would revoke the token the other requests use.
    const ops = operations(doc).filter((op) => !op.path.includes('/auth/sign-out') && op.path !== PROVIDER_CALLBACK);
    const fill = (op: Operation, overrides: Record<string, string> = {}) =>
      op.path.replace(
        /\{(\w+)\}/g,
        (_, name: string) => overrides[name] ?? encodeURIComponent(ids[name] ?? (name.endsWith('Id') ? '00000000-0000-7000-8000-000000000000' : name)),
      );
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let sent = 0;
    const send = async (op: Operation, path: string, body?: Buffer | string) => {
      sent += 1;
      const res = await fetch(url + path, {
        method: op.method,
        headers: { authorization: `Bearer ${t.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body,
      });
      const text = await res.text();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status >= 500 || (res.status >= 400 && !isProblem(res.headers))) {
        failures.push(`${op.method} ${path} ${typeof body === 'string' ? body : body ? body.toString('hex') : ''} -> ${res.status} ${text}`);
      }
      return { status: res.status, body: text ? (JSON.parse(text) as any) : undefined };
    };
    const nulNamed: string[] = [];
    for (const op of ops) {
      const withBody = op.method !== 'GET' && op.method !== 'DELETE';
      // Path parameters: NUL, bad percent-encoding, an encoded lone surrogate, an over-long value.
      for (const param of op.pathParams) {
        for (const bad of ['%00', 'a%00b', '%FF', '%ED%A0%80', 'x'.repeat(2000)]) {
          await send(op, fill(op, { [param]: bad }), withBody ? '{}' : undefined);
        }
      }
      // Query: NUL in every parameter, offsets beyond any table.
      for (const key of op.queryKeys) {
        await send(op, `${fill(op)}?${key}=a%00b`, withBody ? '{}' : undefined);
      }
      if (op.queryKeys.includes('offset')) {
        for (const offset of ['9223372036854775807', '9223372036854775808', '100000000000000000000', '2147483648', '-1']) {
          const res = await send(op, `${fill(op)}?offset=${offset}`);
          if (res.status !== 400) failures.push(`${op.method} ${op.path}?offset=${offset} -> ${res.status}, not 400`);
        }
      }
      if (!withBody) continue;
      // Bodies: U+0000 in every field (must name it), lone surrogates, bytes that are not UTF-8.
      for (const key of op.bodyKeys) {
        const res = await send(op, fill(op), JSON.stringify({ [key]: 'a\u0000b' }));
        if (res.status === 400 && res.body?.errors?.some((e: any) => e.path === `/${key}`)) nulNamed.push(key);
        else if (res.status < 400) failures.push(`${op.method} ${op.path} {${key}: NUL} -> ${res.status}`);
      }
      const key = op.bodyKeys[0] ?? 'x';
      for (const body of [`{"${key}":"\\ud800"}`, `{"${key}":"a\\udfffb"}`]) {
        const res = await send(op, fill(op), body);
        // Valid JSON, but not Unicode text: refused by the same rule as U+0000, naming the field.
        const named = res.status === 400 && res.body?.code === 'validation_failed' && res.body.errors?.some((e: any) => e.path === `/${key}`);
        if (op.bodyKeys.length && !named) failures.push(`${op.method} ${op.path} ${body} -> ${res.status}`);
      }
      for (const bytes of [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80]]) {
        const body = Buffer.concat([Buffer.from(`{"${key}":"`), Buffer.from(bytes), Buffer.from('"}')]);
        const res = await send(op, fill(op), body);
        if (res.status !== 400 || res.body?.code !== 'invalid_json') failures.push(`${op.method} ${op.path} ${body.toString('hex')} -> ${res.status}`);
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(500);
    expect(nulNamed.length).toBeGreaterThan(20);
    expect([...statuses.keys()].every((s) => s < 500)).toBe(true);
  }, 240_000);
});
