/**
 * Delivery of the mail outbox (contract 26.3, as webhooks' 12) against a real SMTP server that the test makes slow,
 * down or refusing: no request fails, a mail is delayed then sent once with its Message-ID, a 5xx or the last retry
 * ends it `failed` with the server's answer, and two instances on one database send each mail once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Config, loadConfig } from '../../src/config/config.js';
import type { Tx } from '../../src/db/database.js';
import { createMailQueue, mailRepository } from '../../src/modules/mail/index.js';
import { buildServices } from '../../src/services.js';
import { createIssue, createProject, createWorkspace, unique } from '../helpers/factories.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let smtp: TestSmtpServer;
let t: TestApp;
let mailConfig: Config['mail'];

beforeAll(async () => {
  smtp = await startSmtpServer();
  mailConfig = { ...loadConfig({}).mail, smtpUrl: smtp.url, retryScheduleS: [10, 60], timeoutMs: 2_000 };
  t = await startTestApp({ mail: mailConfig });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const repo = mailRepository();
const job = (name: string) => t.app.jobs.find((j) => j.name === name)!.run();

/** Queues one mail to a fresh address, as any module does (in a transaction); answers its id and address. */
async function queueMail(subject = 'Hello') {
  const queue = createMailQueue({ repo, clock: t.clock, from: mailConfig.from });
  const to = `${unique('rcpt')}@example.test`;
  const id = await t.database.db.transaction().execute((tx) => queue.enqueue(tx as Tx, { to, subject, text: 'Body', html: '<p>Body</p>', category: 'test' }));
  return { id, to };
}

const row = async (id: string) => (await repo.findMail(t.database.db, id))!;
const received = (to: string) => smtp.messages.filter((m) => m.envelope.to.includes(to));

describe('delivery', () => {
  it('an SMTP outage fails no request and delays the mail, which is sent once when the server is back', async () => {
    const ws = await createWorkspace(t.api);
    const member = await ws.addUser('member', 'Mia');
    const project = await createProject(t.api, ws);
    await smtp.down();
    try {
      const started = Date.now();
      await createIssue(t.api, ws, project.id, { name: 'During the outage', assignee_ids: [member.user.id] });
      expect(Date.now() - started).toBeLessThan(2_000);
      t.clock.advance(120_000);
      await job('mail.notifications');
      await job('mail.deliver');
      const list = await repo.listMails(t.database.db, undefined, 0, 10);
      const mail = list.rows.find((r) => r.to_address === member.user.email)!;
      expect(mail).toMatchObject({ status: 'pending', attempts: 1 });
      expect(mail.last_answer).toMatch(/ECONNREFUSED|connect/i);
      expect(mail.next_attempt_at!.getTime()).toBe(t.clock.now().getTime() + 10_000);
      // Not due yet: nothing is tried.
      await job('mail.deliver');
      expect((await row(mail.id)).attempts).toBe(1);
      await smtp.up();
      t.clock.advance(10_000);
      await job('mail.deliver');
      await job('mail.deliver');
      expect(await row(mail.id)).toMatchObject({ status: 'sent', attempts: 2 });
      const got = received(member.user.email);
      expect(got).toHaveLength(1);
      expect(got[0]!.messageId).toBe(mail.message_id);
    } finally {
      await smtp.up().catch(() => undefined);
    }
  });

  it('a 4xx is retried on the schedule; a 5xx fails the mail at once with the server’s answer', async () => {
    smtp.fail({ code: 451, message: 'Greylisted, come back later', times: 1 });
    const soft = await queueMail('Soft');
    await job('mail.deliver');
    expect(await row(soft.id)).toMatchObject({ status: 'pending', attempts: 1 });
    expect((await row(soft.id)).last_answer).toMatch(/^451 .*Greylisted/);
    t.clock.advance(10_000);
    await job('mail.deliver');
    expect(await row(soft.id)).toMatchObject({ status: 'sent', attempts: 2 });
    expect(received(soft.to)).toHaveLength(1);

    smtp.fail({ code: 550, message: 'No such mailbox', times: 1 });
    const hard = await queueMail('Hard');
    await job('mail.deliver');
    const failed = await row(hard.id);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, next_attempt_at: null });
    expect(failed.last_answer).toMatch(/^550 .*No such mailbox/);
    expect(failed.failed_at).not.toBeNull();
    t.clock.advance(3_600_000);
    await job('mail.deliver');
    expect((await row(hard.id)).attempts).toBe(1);
    expect(received(hard.to)).toHaveLength(0);
  });

  it('after the last retry the mail is failed with the last answer', async () => {
    smtp.fail({ code: 421, message: 'Service not available', times: 3 });
    const m = await queueMail('Unlucky');
    await job('mail.deliver');
    t.clock.advance(10_000);
    await job('mail.deliver');
    expect(await row(m.id)).toMatchObject({ status: 'pending', attempts: 2 });
    t.clock.advance(60_000);
    await job('mail.deliver');
    const last = await row(m.id);
    expect(last).toMatchObject({ status: 'failed', attempts: 3 });
    expect(last.last_answer).toMatch(/^421 /);
    const metrics = await t.api.get('/metrics');
    expect(Number(/^mail_failed_total (\d+)/m.exec(metrics.text)?.[1])).toBeGreaterThanOrEqual(2);
    expect(Number(/^mail_sent_total (\d+)/m.exec(metrics.text)?.[1])).toBeGreaterThanOrEqual(2);
  });

  it('a slow server holds no request', async () => {
    smtp.slow(1_500);
    try {
      const ws = await createWorkspace(t.api);
      const member = await ws.addUser('member', 'Slow');
      const project = await createProject(t.api, ws);
      t.clock.advance(120_000);
      await job('mail.notifications'); // whatever is due from before
      const started = Date.now();
      await createIssue(t.api, ws, project.id, { name: 'Slow mail', assignee_ids: [member.user.id] });
      const m = await queueMail('Slow');
      expect(Date.now() - started).toBeLessThan(1_500);
      await job('mail.deliver');
      expect(await row(m.id)).toMatchObject({ status: 'sent' });
    } finally {
      smtp.succeed();
    }
  });

  it('two instances on one database send each mail once', async () => {
    const other = buildServices({ ...t.config, mail: mailConfig }, t.database, t.clock);
    try {
      const before = smtp.messages.length;
      const ids: string[] = [];
      for (let i = 0; i < 60; i++) ids.push((await queueMail(`Race ${i}`)).id);
      const run = (jobs: { name: string; run(): Promise<unknown> }[]) => jobs.find((j) => j.name === 'mail.deliver')!.run();
      await Promise.all([run(t.app.jobs), run(other.jobs), run(t.app.jobs), run(other.jobs)]);
      await smtp.waitFor(before + 60);
      await new Promise((r) => setTimeout(r, 300));
      const got = smtp.messages.slice(before).map((m) => m.messageId);
      expect(got).toHaveLength(60);
      expect(new Set(got).size).toBe(60);
      for (const id of ids) expect((await row(id)).status).toBe('sent');
    } finally {
      await other.close();
    }
  });
});

describe('retention', () => {
  it('deletes sent and failed mails older than MAIL_RETENTION_DAYS, never pending ones', async () => {
    const sent = await queueMail('Old sent');
    await job('mail.deliver');
    expect((await row(sent.id)).status).toBe('sent');
    smtp.fail({ code: 550, times: 1 });
    const failed = await queueMail('Old failed');
    await job('mail.deliver');
    expect((await row(failed.id)).status).toBe('failed');
    await smtp.down();
    const pending = await queueMail('Still pending');
    await job('mail.deliver');
    await smtp.up();
    expect((await row(pending.id)).status).toBe('pending');
    t.clock.advance(89 * 86_400_000);
    await job('mail.cleanup');
    expect(await repo.findMail(t.database.db, sent.id)).toBeDefined();
    t.clock.advance(2 * 86_400_000);
    await job('mail.cleanup');
    expect(await repo.findMail(t.database.db, sent.id)).toBeUndefined();
    expect(await repo.findMail(t.database.db, failed.id)).toBeUndefined();
    expect(await repo.findMail(t.database.db, pending.id)).toBeDefined();
  });
});

describe('without SMTP_URL', () => {
  it('keeps mails pending in the database and sends nothing', async () => {
    const app = await startTestApp({ mail: { ...mailConfig, smtpUrl: null } }, t.database);
    try {
      expect(app.app.jobs.some((j) => j.name === 'mail.deliver')).toBe(false);
      const before = smtp.messages.length;
      const queue = createMailQueue({ repo, clock: app.clock, from: mailConfig.from });
      const id = await app.database.db
        .transaction()
        .execute((tx) => queue.enqueue(tx as Tx, { to: 'kept@example.test', subject: 'Kept', text: 't', html: 'h', category: 'test' }));
      await new Promise((r) => setTimeout(r, 300));
      expect(await row(id)).toMatchObject({ status: 'pending', attempts: 0 });
      expect(smtp.messages.length).toBe(before);
    } finally {
      await app.close();
    }
  });
});
