/**
 * Lints the OpenAPI document the service serves (`GET /openapi.json`) with Redocly's recommended rules and the
 * exceptions of `redocly.yaml` (`npm run lint:openapi`; CI runs it after the client check). The document is written
 * to a temporary file first: Redocly reads files, and the document only exists once the routes are built.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { wrapPglite } from '../src/db/database.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

async function liveDocument(): Promise<string> {
  // Building the routes runs no query: a throw-away in-memory database is enough.
  const database = await wrapPglite(new PGlite());
  const config = loadConfig({ LOG_LEVEL: 'silent', PUBLIC_BASE_URL: 'http://127.0.0.1:3000', JOB_INTERVAL_MS: '0' });
  const app = await buildApp({ config, database });
  try {
    const response = await app.inject({ method: 'GET', url: '/openapi.json' });
    if (response.statusCode !== 200) throw new Error(`GET /openapi.json answered ${response.statusCode}`);
    return response.body;
  } finally {
    await app.close();
    await database.close();
  }
}

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'wis-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    // Pretty-printed, so that a problem is reported at a readable line.
    writeFileSync(file, JSON.stringify(JSON.parse(await liveDocument()), null, 2));
    const redocly = join(ROOT, 'node_modules', '.bin', 'redocly');
    const args = ['lint', file, '--config', join(ROOT, 'redocly.yaml'), ...process.argv.slice(2)];
    // Redocly's own banner about Node 20 support goes to stderr; the verdict is the exit code.
    const result = spawnSync(redocly, args, { stdio: 'inherit', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } });
    return result.status ?? 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
