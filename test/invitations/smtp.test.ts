/** Invitations and password reset end to end through a real SMTP server: the link is read from the mail received. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createWorkspace, signUp, unique } from '../helpers/factories.js';
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let smtp: TestSmtpServer;
let t: TestApp;

beforeAll(async () => {
  smtp = await startSmtpServer();
  const base = loadConfig({});
  t = await startTestApp({
    publicBaseUrl: 'https://work.example.com',
    mail: { ...base.mail, smtpUrl: smtp.url, from: 'Work Items <no-reply@wis.example.test>' },
  });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

/** Sends what is due (the worker also wakes by itself after the commit) and answers the one mail received for `to`. */
async function received(to: string): Promise<ReceivedMail> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    await t.app.jobs.find((j) => j.name === 'mail.deliver')!.run();
    const mails = smtp.messages.filter((m) => m.envelope.to.includes(to));
    if (mails.length > 0 || Date.now() > deadline) {
      expect(mails).toHaveLength(1);
      return mails[0]!;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const tokenIn = (mail: ReceivedMail, kind: string) => {
  const found = new RegExp(`https://work\\.example\\.com/app/${kind}/([A-Za-z0-9_-]{43})`).exec(mail.text ?? '');
  expect(found, mail.text).not.toBeNull();
  expect(mail.html).toContain(found![0]);
  return found![1]!;
};

describe('mailed links', () => {
  it('an invitation arrives by SMTP (text and HTML) and its link signs the invitee up', async () => {
    const ws = await createWorkspace(t.api);
    const email = `${unique('smtp-invitee')}@example.com`;
    expect((await t.api.post(`/api/workspaces/${ws.slug}/invitations/`, { email, role: 'member' }, { token: ws.admin.token })).status).toBe(201);
    const mail = await received(email);
    expect(mail.subject).toContain('Test workspace');
    const token = tokenIn(mail, 'invitations');
    const accepted = await t.api.post(`/api/invitations/${token}/accept/`, { password: 'correct horse battery', display_name: 'By mail' });
    expect(accepted.status, accepted.text).toBe(201);
    expect(accepted.body.membership).toMatchObject({ email, role: 'member' });
  });

  it('a password reset arrives by SMTP and its link sets the password', async () => {
    const user = await signUp(t.api, 'Smtp');
    expect((await t.api.post('/api/auth/password-reset/', { email: user.user.email })).status).toBe(202);
    const token = tokenIn(await received(user.user.email), 'password-reset');
    expect((await t.api.post('/api/auth/password-reset/confirm/', { token, password: 'reset by mail' })).status).toBe(204);
    expect((await t.api.post('/api/auth/sign-in/', { email: user.user.email, password: 'reset by mail' })).status).toBe(200);
  });
});
