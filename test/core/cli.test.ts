import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function cliOnFreshDatabase() {
  const dir = await mkdtemp(join(tmpdir(), 'wis-cli-'));
  dirs.push(dir);
  const env = { ...process.env, DATA_DIR: join(dir, 'data'), DATABASE_URL: '', LOG_LEVEL: 'silent' };
  return (...args: string[]) => run(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'src/cli/main.ts', ...args], { env, timeout: 60_000 });
}

// The CLI opens the embedded database itself; the PostgreSQL run covers the same code paths through the API.
describe.skipIf(Boolean(process.env.DATABASE_URL))('CLI', () => {
  it('migrates, creates the first user as instance admin, and revokes it, on an embedded database', async () => {
    const cli = await cliOnFreshDatabase();
    // A new embedded database is a copy of the build's migrated template when `npm run build` made one (contract 21's
    // start-up), else it is created and migrated here: either way `migrate` names the migrations it holds.
    expect((await cli('migrate')).stdout).toMatch(/^(Applied|Created from the migrated template): 0001_core/);
    expect((await cli('migrate')).stdout).toBe('Already up to date\n');
    const second = JSON.parse((await cli('create-user', '--email', 'Ops@Example.com', '--password', 'longenough', '--name', 'Ops')).stdout);
    expect(second).toMatchObject({ email: 'ops@example.com', display_name: 'Ops', is_instance_admin: true });
    expect((await cli('revoke-admin', '--email', 'ops@example.com')).stdout).toMatch(/"is_instance_admin": false/);
    await expect(cli('create-user', '--email', 'x@example.com', '--password', 'short')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/at least 8/),
    });
    await expect(cli('bogus')).rejects.toMatchObject({ code: 2 });
  }, 120_000);
});
