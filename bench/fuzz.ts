/**
 * A by-hand fuzz of the whole API (not a timed test): `npx tsx bench/fuzz.ts [requests]` (default 12000).
 *
 * Starts the service in process on a scratch PGlite folder (or on DATABASE_URL), makes one workspace with fixtures,
 * then sends generated hostile requests to every operation of the OpenAPI document: arbitrary JSON bodies, U+0000 in
 * fields, lone surrogates, bytes that are not UTF-8, bad and over-long path parameters, huge offsets, random query
 * values. Prints the status counts, the 5xx and the errors that were not problem+json; exits 1 if any.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { pathFixtures } from '../test/helpers/factories.js';
import { apiClient } from '../test/helpers/http.js';

const total = Number(process.argv[2] ?? 12_000);
const dir = mkdtempSync(join(tmpdir(), 'wis-fuzz-'));
const config = loadConfig({
  ...process.env,
  DATA_DIR: dir,
  PORT: '0',
  LOG_LEVEL: 'silent',
  JOB_INTERVAL_MS: '0',
  RATE_LIMIT_SIGNUPS: '1000000',
  RATE_LIMIT_SIGNIN_FAILURES: '1000000',
  API_RATE_LIMIT: '100000000',
});
const database = await openDatabase(config);
await migrateToLatest(database.db);
const app = await buildApp({ config, database });
await app.listen({ port: 0, host: '127.0.0.1' });
const { port } = app.server.address() as { port: number };
const url = `http://127.0.0.1:${port}`;
const api = apiClient(url);

const { t, ids } = await pathFixtures(api);

const doc = (await api.get('/openapi.json')).body as { paths: Record<string, Record<string, any>> };
const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(() => !(path.includes('/auth/sign-out') || path === '/api/webhooks/provider/callback/'))
    // Deleting the fixtures would turn later requests into plain 404s: DELETE only gets hostile path parameters.
    .map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      bodyKeys: Object.keys(op.requestBody?.content?.['application/json']?.schema?.properties ?? {}),
      queryKeys: (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name as string),
      params: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
    })),
);

const nasty = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(null, '', '\u0000', 'a\u0000', 'NaN', '1e309', '__proto__', "' OR 1=1 --"),
  fc.constantFrom(-1, 0, 0.5, 1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 31, -(2 ** 63)),
  fc.string({ maxLength: 200, unit: 'binary' }),
);
const badParams = ['%00', 'a%00b', '%FF', '%ED%A0%80', '%C0%AF', 'x'.repeat(2000), '..%2F..', '%E2%80%AE', ' '];
const badOffsets = ['9223372036854775807', '9223372036854775808', '100000000000000000000', '-1', '1.5', '1e3', ''];
const badBytes = [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]];

const rnd = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
const statuses = new Map<number, number>();
const failures: string[] = [];
let errors = 0;
let problems = 0;
const started = Date.now();
for (let i = 0; i < total; i++) {
  const op = rnd(ops);
  const params: Record<string, string> = Object.fromEntries(Object.entries(ids).map(([k, v]) => [k, encodeURIComponent(v)]));
  let query = '';
  let body: string | Buffer | undefined;
  const kind = op.method === 'DELETE' ? 0 : Math.floor(Math.random() * 6);
  const key = op.bodyKeys.length ? rnd(op.bodyKeys) : 'x';
  if (kind === 0 && op.params.length) params[rnd(op.params)] = rnd(badParams);
  else if (kind === 1 && op.queryKeys.length) {
    const k = rnd(op.queryKeys);
    query = `?${k}=${op.queryKeys.includes('offset') && Math.random() < 0.5 ? `&offset=${rnd(badOffsets)}` : encodeURIComponent(String(fc.sample(nasty, 1)[0]))}`;
  } else if (kind === 2) body = JSON.stringify({ [key]: `a\u0000${'b'.repeat(Math.floor(Math.random() * 5))}` });
  else if (kind === 3) body = `{"${key}":"x\\ud${rnd(['800', 'bff', 'c00', 'fff'])}y"}`;
  else if (kind === 4) body = Buffer.concat([Buffer.from(`{"${key}":"`), Buffer.from(rnd(badBytes)), Buffer.from('"}')]);
  else
    body = JSON.stringify(
      fc.sample(fc.oneof(nasty, fc.dictionary(fc.constantFrom(...(op.bodyKeys.length ? op.bodyKeys : ['x'])), nasty, { maxKeys: 4 })), 1)[0],
    );
  if (op.method === 'GET' || op.method === 'DELETE') body = undefined;
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? name);
  const res = await fetch(url + path + query, {
    method: op.method,
    headers: { authorization: `Bearer ${t.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body,
  });
  const text = await res.text();
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  if (res.status >= 400) {
    errors += 1;
    const problem = (res.headers.get('content-type') ?? '').startsWith('application/problem+json');
    if (problem) problems += 1;
    if (res.status >= 500 || !problem) failures.push(`${op.method} ${path}${query} ${String(body).slice(0, 120)} -> ${res.status} ${text.slice(0, 200)}`);
  }
}
const seconds = (Date.now() - started) / 1000;
console.log(`${total} requests over ${ops.length} operations in ${seconds.toFixed(1)} s`);
console.log('statuses:', Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])));
console.log(
  `5xx: ${[...statuses].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0)}; errors ${errors}, problem+json ${problems} (${((100 * problems) / Math.max(errors, 1)).toFixed(2)}%)`,
);
for (const f of failures.slice(0, 20)) console.log('  ', f);
await app.close();
await database.close();
rmSync(dir, { recursive: true, force: true });
process.exit(failures.length ? 1 : 0);
