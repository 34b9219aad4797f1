/** `npm run cli -- mail list | show | test` (contract 26.3): in-process against a test app, and the real process. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliContext, parseFlags, UsageError } from '../../src/cli/cli.js';
import { mailCommands } from '../../src/cli/commands/mail.js';
import { loadConfig } from '../../src/config/config.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let smtp: TestSmtpServer;
let t: TestApp;
const dirs: string[] = [];

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await startTestApp({ mail: { ...loadConfig({}).mail, smtpUrl: smtp.url } });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

function cli() {
  const lines: string[] = [];
  const c: CliContext = {
    config: () => t.config,
    out: (line) => lines.push(line),
    operator: { userId: '00000000-0000-7000-8000-000000000000', tokenId: 'cli', isInstanceAdmin: true, isOperator: true },
    services: async () => t.app.services,
    database: async () => t.database,
  };
  const run = async (name: string, args: string[]) => {
    const command = mailCommands.find((x) => x.name === name)!;
    return command.run(parseFlags(command, args), c);
  };
  return { run, lines, text: () => lines.join('\n') };
}

describe('mail commands', () => {
  it('mail test sends one now and prints the answer; list and show tell its fate; show takes the id bare', async () => {
    const { run, lines, text } = cli();
    expect(await run('mail test', ['--to', 'ops@example.test'])).toBe(0);
    expect(lines.at(-1)).toMatch(/^mail [0-9a-f-]{36}: sent; the server answered: 250 /);
    const id = /^mail ([0-9a-f-]{36})/.exec(lines.at(-1)!)![1]!;
    expect(smtp.messages.at(-1)).toMatchObject({ subject: 'Test mail from the work-item service', envelope: { to: ['ops@example.test'] } });

    smtp.fail({ code: 554, message: 'Rejected for policy reasons', times: 1 });
    expect(await run('mail test', ['--to', 'ops@example.test'])).toBe(1);
    expect(lines.at(-1)).toMatch(/: failed; the server answered: 554 .*policy/);

    await run('mail list', []);
    expect(text()).toMatch(/id\s+created_at\s+category\s+to\s+subject\s+status/);
    expect(text()).toContain('failed');
    await run('mail list', ['--status', 'sent', '--json']);
    expect(JSON.parse(lines.at(-1)!).results.every((r: any) => r.status === 'sent')).toBe(true);
    await run('mail show', [id]);
    expect(text()).toContain(`Id: ${id}`);
    expect(text()).toContain('This is a test mail of the work-item service');
    await expect(run('mail show', ['00000000-0000-7000-8000-000000000001'])).rejects.toMatchObject({ code: 'not_found' });
    await expect(run('mail show', [id, 'extra'])).rejects.toThrow(UsageError);
    await expect(run('mail list', ['--status', 'lost'])).rejects.toThrow(UsageError);
    await expect(run('mail test', ['--to', 'not an address'])).rejects.toMatchObject({ code: 'validation_failed' });
  });
});

// The real process opens the embedded database itself (as the CLI test of test/core does).
describe.skipIf(Boolean(process.env.DATABASE_URL))('the mail commands as a process', () => {
  it('mail test prints the server’s answer; without SMTP_URL the mail is kept and listed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wis-mail-cli-'));
    dirs.push(dir);
    const base = { ...process.env, DATA_DIR: join(dir, 'data'), DATABASE_URL: '', LOG_LEVEL: 'silent' };
    const run = (env: Record<string, string>, ...args: string[]) =>
      promisify(execFile)(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'src/cli/main.ts', ...args], { env: { ...base, ...env }, timeout: 60_000 });
    const sent = await run({ SMTP_URL: smtp.url }, 'mail', 'test', '--to', 'proc@example.test');
    expect(sent.stdout).toMatch(/: sent; the server answered: 250 /);
    await expect(run({ SMTP_URL: '' }, 'mail', 'test', '--to', 'kept@example.test')).rejects.toMatchObject({
      code: 1,
      stdout: expect.stringMatching(/SMTP_URL is not set: mail [0-9a-f-]{36} is kept in the database/),
    });
    const list = await run({ SMTP_URL: '' }, 'mail', 'list');
    expect(list.stdout).toMatch(/kept@example\.test .*pending/);
    expect(list.stdout).toMatch(/proc@example\.test .*sent/);
    await expect(run({ SMTP_URL: 'http://example.test' }, 'mail', 'list')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/SMTP_URL must be/),
    });
  }, 180_000);
});
