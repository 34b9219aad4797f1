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
    expect((await cli('migrate')).stdout).toMatch(/Applied: 0001_core/);
    const second = JSON.parse((await cli('create-user', '--email', 'Ops@Example.com', '--password', 'longenough', '--name', 'Ops')).stdout);
    expect(second).toMatchObject({ email: 'ops@example.com', display_name: 'Ops', is_instance_admin: true });
    expect((await cli('revoke-admin', '--email', 'ops@example.com')).stdout).toMatch(/"is_instance_admin": false/);
    await expect(cli('create-user', '--email', 'x@example.com', '--password', 'short')).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/at least 8/) });
    await expect(cli('bogus')).rejects.toMatchObject({ code: 2 });
  }, 120_000);

  it('manages plans and coupons, with one-line errors and exit codes 1 (refused) and 2 (usage)', async () => {
    const cli = await cliOnFreshDatabase();
    expect((await cli('plans', 'list')).stdout).toMatch(/^slug\s+name.*\n.*free/);
    const plan = JSON.parse((await cli('plans', 'create', '--slug', 'team', '--name', 'Team', '--currency', 'TRY', '--price-month', '9900', '--json')).stdout);
    expect(plan).toMatchObject({ slug: 'team', price_month: 9900, max_users: -1, is_active: true });
    expect(JSON.parse((await cli('plans', 'retire', '--slug', 'team')).stdout)).toMatchObject({ is_active: false });
    await expect(cli('plans', 'create', '--slug', 'team', '--name', 'Team', '--currency', 'TRY')).rejects.toMatchObject({
      code: 1,
      stderr: 'error: A plan "team" already exists\n',
    });
    await expect(cli('plans', 'create', '--slug', 'x', '--name', 'X', '--currency', 'try')).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/^error: --currency/) });
    await expect(cli('plans', 'create', '--slug', 'x', '--name', 'X', '--currency', 'TRY', '--price-month', '1.5')).rejects.toMatchObject({ code: 2 });
    await expect(cli('plans', 'list', '--bogus')).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/Unknown option '--bogus'/) });
    await expect(cli('plans')).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/plans list/) });

    expect(JSON.parse((await cli('coupons', 'create', '--code', 'SPRING', '--percent-off', '20')).stdout)).toMatchObject({ code: 'spring', percent_off: 20 });
    await expect(cli('coupons', 'create', '--code', 'X', '--amount-off', '500')).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/currency/) });
    expect((await cli('coupons', 'list')).stdout).toMatch(/spring\s+20/);
    expect((await cli('coupons', 'delete', '--code', 'spring')).stdout).toMatch(/deleted/);
    await expect(cli('coupons', 'delete', '--code', 'spring')).rejects.toMatchObject({ code: 1, stderr: 'error: Coupon not found\n' });
    expect((await cli('coupons', 'create', '--help')).stdout).toMatch(/^Usage: npm run cli -- coupons create --code C/);
  }, 120_000);
});
