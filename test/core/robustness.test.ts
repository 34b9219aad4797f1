import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createWorkspace, pathFixtures } from '../helpers/factories.js';
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

/** `depth` arrays inside each other: `[[[...]]]`. */
const nested = (depth: number): unknown => {
  let value: unknown = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
};
/** The same as JSON text, built without a recursive JSON.stringify (which overflows the test's own stack). */
const nestedText = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

// Values that have broken services elsewhere: wrong types, huge and tiny numbers, odd strings, deep nesting.
const nasty = fc.oneof(
  fc.integer({ min: 33, max: 1000 }).map(nested),
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

  it('answers the hostile classes (U+0000, lone surrogates, huge offsets, bad path encodings, bad UTF-8, nesting deeper than 32 levels) with a 4xx problem, never a 5xx', async () => {
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
      // Nesting deeper than 32 levels, in a field and as the whole body: refused before parsing, whatever the schema.
      for (const body of [`{"${key}":${nestedText(33)}}`, nestedText(5000), `{"${key}":${'{"a":'.repeat(1000)}1${'}'.repeat(1000)}}`]) {
        const res = await send(op, fill(op), body);
        if (res.status !== 400 || res.body?.code !== 'validation_failed') failures.push(`${op.method} ${op.path} nested ${body.length} B -> ${res.status}`);
      }
      // 32 levels is still a body like any other (the schema decides).
      const res32 = await send(op, fill(op), `{"${key}":${nestedText(31)}}`);
      if (res32.status === 400 && /deeper than/.test(res32.body?.detail ?? '')) failures.push(`${op.method} ${op.path} 32 levels refused as too deep`);
      for (const bytes of [[0xff], [0xfe, 0xff], [0xc0, 0xaf], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80]]) {
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

  it('answers provider callbacks that are not UTF-8 text, or nest too deep, with a plain-text 400 that changes nothing', async () => {
    const { api, url, config } = ctx();
    const ws = await createWorkspace(api);
    const checkout = await api.post(`/api/workspaces/${ws.slug}/billing/checkout/`, { plan_slug: 'pro', billing_interval: 'month' }, { token: ws.admin.token });
    expect(checkout.status, checkout.text).toBe(201);
    const { merchant_oid: oid, amount } = checkout.body as { merchant_oid: string; amount: number };
    // Signed as the provider signs (the hash covers merchant_oid, status and total_amount): each body below would
    // take effect if its bad bytes got through.
    const hash = createHmac('sha256', config.paytr.merchantKey).update(`${oid}${config.paytr.merchantSalt}success${amount}`).digest('base64');
    const form = (extra: string) =>
      Buffer.concat([
        Buffer.from(`merchant_oid=${oid}&status=success&total_amount=${amount}&hash=${encodeURIComponent(hash)}&payment_type=`),
        Buffer.from(extra, 'latin1'),
      ]);
    const json = (extra: string) =>
      Buffer.concat([
        Buffer.from(`{"merchant_oid":"${oid}","status":"success","total_amount":"${amount}","hash":"${hash}","payment_type":"`),
        Buffer.from(extra, 'latin1'),
        Buffer.from('"}'),
      ]);
    const badBytes = ['\xff', '\xfe\xff', '\xc0\xaf', '\xed\xa0\x80', '\xf4\x90\x80\x80', 'a\xc3'];
    const bodies: [string, Buffer][] = [
      ...badBytes.map((b): [string, Buffer] => ['application/x-www-form-urlencoded', form(b)]),
      ...['%FF', '%FE%FF', '%C0%AF', '%ED%A0%80', '%00', 'a%'].map((b): [string, Buffer] => ['application/x-www-form-urlencoded', form(b)]),
      ...badBytes.map((b): [string, Buffer] => ['application/json', json(b)]),
      ...['\\ud800', 'a\\udfffb', '\\u0000'].map((b): [string, Buffer] => ['application/json', json(b)]),
      ['application/json', Buffer.from(`{"merchant_oid":"${oid}","status":"success","total_amount":"${amount}","hash":"${hash}","x":${nestedText(33)}}`)],
      ['application/json', Buffer.from(nestedText(5000))],
    ];
    for (const [type, body] of bodies) {
      const res = await fetch(`${url}/api/webhooks/provider/callback/`, { method: 'POST', headers: { 'content-type': type }, body });
      expect(res.status, `${type} ${body.toString('hex')}`).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await res.text()).not.toBe('OK');
    }
    const payments = await api.get(`/api/workspaces/${ws.slug}/billing/payments/`, { token: ws.admin.token });
    expect(payments.body.results[0].status).toBe('pending');
    // The same notification as clean UTF-8 takes effect: the 400s above were for the bytes alone.
    const clean = await fetch(`${url}/api/webhooks/provider/callback/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form('card'),
    });
    expect(await clean.text()).toBe('OK');
    const after = await api.get(`/api/workspaces/${ws.slug}/billing/payments/`, { token: ws.admin.token });
    expect(after.body.results[0].status).toBe('success');
  });
});
