/**
 * E-mail (contract 26.3) through HTTP against a real SMTP server the test starts: settings, time zones, notification
 * mails (instant batches and digests), their headers and links, one-click unsubscribe, the outbox's admin view and
 * metrics.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { createIssue, createProject, createWorkspace, expectProblem, type Session, signUp } from '../helpers/factories.js';
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let smtp: TestSmtpServer;
let t: TestApp;
let admin: Session;

beforeAll(async () => {
  smtp = await startSmtpServer();
  const base = loadConfig({});
  t = await startTestApp({ mail: { ...base.mail, smtpUrl: smtp.url, from: 'Work Items <no-reply@wis.example.test>', retryScheduleS: [10, 60] } });
  // The first account of the instance is its admin.
  admin = await signUp(t.api, 'Instance admin');
  await sql`UPDATE users SET is_instance_admin = true WHERE id = ${admin.user.id}`.execute(t.database.db);
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const job = (name: string) => t.app.jobs.find((j) => j.name === name)!.run();
const MIN = 60_000;

/** Composes due notification mails and sends every mail due. */
async function deliver() {
  await job('mail.notifications');
  await job('mail.deliver');
}

const mailsTo = (email: string) => smtp.messages.filter((m) => m.envelope.to.includes(email));
/** A header as sent (unfolded from the raw message). */
const header = (m: ReceivedMail, name: string) => {
  const head = m.raw.slice(0, m.raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
  return new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1] ?? '';
};
const unsubscribeUrl = (m: ReceivedMail) => /<([^>]+)>/.exec(header(m, 'list-unsubscribe'))![1]!;

async function setup() {
  const ws = await createWorkspace(t.api);
  const member = await ws.addUser('member', 'Mia');
  const project = await createProject(t.api, ws);
  return { ws, member, project };
}

async function settings(who: Session) {
  const res = await t.api.get('/api/users/me/notification-settings/', { token: who.token });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe('settings and time zones', () => {
  it('defaults to instant, a digest at 8 and every kind; PUT changes what it is given and checks it', async () => {
    const user = await signUp(t.api, 'Settings');
    expect(await settings(user)).toEqual({
      email: 'instant',
      digest_hour: 8,
      kinds: {
        assigned: true,
        mentioned: true,
        commented: true,
        state_changed: true,
        priority_changed: true,
        due_date_changed: true,
        sla_at_risk: true,
        sla_breached: true,
        invited: true,
      },
    });
    const put = await t.api.put(
      '/api/users/me/notification-settings/',
      { email: 'digest', digest_hour: 18, kinds: { commented: false } },
      { token: user.token },
    );
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ email: 'digest', digest_hour: 18, kinds: { commented: false, assigned: true } });
    const again = await t.api.put('/api/users/me/notification-settings/', { kinds: { assigned: false } }, { token: user.token });
    expect(again.body).toMatchObject({ email: 'digest', digest_hour: 18, kinds: { commented: false, assigned: false, mentioned: true } });
    expect(await settings(user)).toEqual(again.body);

    for (const bad of [
      { digest_hour: 24 },
      { digest_hour: -1 },
      { digest_hour: 1.5 },
      { email: 'weekly' },
      { kinds: { nope: true } },
      { kinds: { assigned: 'yes' } },
      { other: 1 },
    ]) {
      const res = await t.api.put('/api/users/me/notification-settings/', bad, { token: user.token });
      expectProblem(res, 400, 'validation_failed');
    }
    expect(await settings(user)).toEqual(again.body);
    expectProblem(await t.api.get('/api/users/me/notification-settings/'), 401, 'unauthenticated');
  });

  it('PATCH /api/users/me/ sets the time zone and the display name; an unknown zone is a 400', async () => {
    const user = await signUp(t.api, 'Zoned');
    expect((await t.api.get('/api/users/me/', { token: user.token })).body.time_zone).toBe('UTC');
    const res = await t.api.patch('/api/users/me/', { time_zone: 'Europe/Istanbul', display_name: '  Zed  ' }, { token: user.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: user.user.id, time_zone: 'Europe/Istanbul', display_name: 'Zed' });
    expect((await t.api.get('/api/users/me/', { token: user.token })).body).toMatchObject({ time_zone: 'Europe/Istanbul', display_name: 'Zed' });
    const bad = await t.api.patch('/api/users/me/', { time_zone: 'Mars/Olympus' }, { token: user.token });
    expectProblem(bad, 400, 'validation_failed');
    expect(bad.body.errors[0].path).toBe('/time_zone');
    expectProblem(await t.api.patch('/api/users/me/', {}, { token: user.token }), 400, 'validation_failed');
    expectProblem(await t.api.patch('/api/users/me/', { display_name: '   ' }, { token: user.token }), 400, 'validation_failed');
    expect((await t.api.get('/api/users/me/', { token: user.token })).body.time_zone).toBe('Europe/Istanbul');
  });
});

describe('notification mails', () => {
  it('an assignment is mailed once, after the batching window, with text and HTML, the issue link and one-click unsubscribe', async () => {
    const { ws, member, project } = await setup();
    const issue = await createIssue(t.api, ws, project.id, { name: 'Fix <b>printer</b> & "scanner"', assignee_ids: [member.user.id] });
    await deliver();
    expect(mailsTo(member.user.email)).toEqual([]); // inside the 2-minute window
    t.clock.advance(2 * MIN);
    await deliver();
    await smtp.waitFor(1);
    const [mail] = mailsTo(member.user.email);
    expect(mail).toBeDefined();
    expect(mail!.subject).toBe(`Admin assigned you to ${project.identifier}-1 Fix <b>printer</b> & "scanner"`);
    expect(mail!.from).toBe('"Work Items" <no-reply@wis.example.test>');
    const link = `${t.url}/app/w/${ws.slug}/p/${project.id}/issues/${issue.id}`;
    expect(mail!.text).toContain(link);
    expect(mail!.html).toContain(`href="${link}"`);
    expect(mail!.html).toContain('Fix &lt;b&gt;printer&lt;/b&gt; &amp; &quot;scanner&quot;');
    expect(mail!.html).not.toContain('<b>printer</b>');
    expect(header(mail!, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    expect(unsubscribeUrl(mail!)).toMatch(new RegExp(`^${t.url}/api/mail/unsubscribe/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+/$`));

    // The Message-ID is the one made at enqueue, and the admin sees the mail sent with the server's answer.
    const list = await t.api.get('/api/admin/mail/?status=sent&per_page=100', { token: admin.token });
    expect(list.status, list.text).toBe(200);
    const row = list.body.results.find((r: any) => r.to === member.user.email);
    expect(row).toMatchObject({ category: 'notification', status: 'sent', attempts: 1, message_id: mail!.messageId, next_attempt_at: null });
    expect(row.last_answer).toMatch(/^250/);
    expect(row).not.toHaveProperty('text_body');

    // Nothing more is sent later.
    t.clock.advance(10 * MIN);
    await deliver();
    expect(mailsTo(member.user.email)).toHaveLength(1);
  });

  it('many instant notifications to one user within the window are one mail', async () => {
    const { ws, member, project } = await setup();
    for (let i = 0; i < 30; i++) await createIssue(t.api, ws, project.id, { name: `Bulk ${i}`, assignee_ids: [member.user.id] });
    t.clock.advance(2 * MIN);
    await deliver();
    await new Promise((r) => setTimeout(r, 300));
    const mails = mailsTo(member.user.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toMatch(/^30 new notifications: /);
    for (let i = 0; i < 30; i++) expect(mails[0]!.text).toContain(`Bulk ${i} [${ws.slug}]`);
  });

  it('a bulk edit assigning 50 issues sends one mail, not 50', async () => {
    const { ws, member, project } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) ids.push((await createIssue(t.api, ws, project.id, { name: `Edited ${i}` })).id);
    const bulk = await t.api.post(
      `/api/workspaces/${ws.slug}/projects/${project.id}/issues/bulk/`,
      { issue_ids: ids, set: { assignee_ids: [member.user.id] } },
      { token: ws.admin.token },
    );
    expect(bulk.status, bulk.text).toBe(200);
    t.clock.advance(2 * MIN);
    await deliver();
    await new Promise((r) => setTimeout(r, 300));
    const mails = mailsTo(member.user.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toMatch(/^50 new notifications: Admin assigned you to /);
    expect(mails[0]!.text!.match(/assigned you to/g)).toHaveLength(50);
  });

  it('the other kinds wait for the digest at the hour of the user’s time zone; kinds off and email off send nothing', async () => {
    const { ws, member, project } = await setup();
    const issue = await createIssue(t.api, ws, project.id, { name: 'Digest me' });
    await t.api.patch('/api/users/me/', { time_zone: 'Pacific/Chatham' }, { token: member.token });
    const put = await t.api.put('/api/users/me/notification-settings/', { digest_hour: 7 }, { token: member.token });
    expect(put.status).toBe(200);
    const comment = await t.api.post(
      `/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/comments/`,
      { body: `Hi @${member.user.email}` },
      { token: ws.admin.token },
    );
    expect(comment.status, comment.text).toBe(201);
    // A mention is instant; commenting follows it in the digest only when it is a separate notification (one per change).
    const patch = await t.api.patch(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/`, { priority: 'urgent' }, { token: ws.admin.token });
    expect(patch.status, patch.text).toBe(200);
    const now = t.clock.now();
    t.clock.advance(2 * MIN);
    await deliver();
    expect(mailsTo(member.user.email).map((m) => m.subject)).toEqual([expect.stringMatching(/^Admin mentioned you in /)]);
    // 07:00 in Chatham (UTC+13:45 in January): the next such moment after now.
    const { nextDigestAt } = await import('../../src/modules/mail/mail.rules.js');
    const due = nextDigestAt(now, 7, 'Pacific/Chatham');
    t.clock.set(new Date(due.getTime() - 1000));
    await deliver();
    expect(mailsTo(member.user.email)).toHaveLength(1);
    t.clock.set(due);
    await deliver();
    await smtp.waitFor(smtp.messages.length);
    const digest = mailsTo(member.user.email)[1];
    expect(digest?.subject).toBe('Your daily digest: 1 notification');
    expect(digest?.text).toContain('changed the priority of');
    expect(digest?.text).toContain('to urgent');

    // Priority changes off: inbox only; email off: nothing at all.
    await t.api.put('/api/users/me/notification-settings/', { kinds: { priority_changed: false } }, { token: member.token });
    await t.api.patch(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/`, { priority: 'low' }, { token: ws.admin.token });
    await t.api.put('/api/users/me/notification-settings/', { email: 'off' }, { token: member.token });
    await createIssue(t.api, ws, project.id, { name: 'Silent', assignee_ids: [member.user.id] });
    const inbox = await t.api.get('/api/users/me/notifications/', { token: member.token });
    expect(inbox.body.results.map((n: any) => n.kind)).toEqual(expect.arrayContaining(['assigned', 'priority_changed']));
    t.clock.advance(2 * 86_400_000);
    await deliver();
    expect(mailsTo(member.user.email)).toHaveLength(2);
  });

  it('a digest waits for the hour in the time zone the user has when it is due', async () => {
    const { ws, member, project } = await setup();
    const issue = await createIssue(t.api, ws, project.id, { name: 'Moving user' });
    await t.api.patch('/api/users/me/', { time_zone: 'Europe/Istanbul' }, { token: member.token });
    await t.api.put('/api/users/me/notification-settings/', { email: 'digest', digest_hour: 9 }, { token: member.token });
    const watch = await t.api.post(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/watch/`, {}, { token: member.token });
    expect(watch.status, watch.text).toBeLessThan(300);
    await t.api.patch(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/`, { priority: 'high' }, { token: ws.admin.token });
    const { nextDigestAt } = await import('../../src/modules/mail/mail.rules.js');
    const queuedAt = t.clock.now();
    const istanbul = nextDigestAt(queuedAt, 9, 'Europe/Istanbul');
    // The user moves to New York before the digest is due: at 9:00 in Istanbul nothing is sent, at 9:00 in New York it is.
    await t.api.patch('/api/users/me/', { time_zone: 'America/New_York' }, { token: member.token });
    const newYork = nextDigestAt(queuedAt, 9, 'America/New_York');
    expect(newYork.getTime()).toBeGreaterThan(istanbul.getTime());
    t.clock.set(istanbul);
    await deliver();
    expect(mailsTo(member.user.email)).toHaveLength(0);
    t.clock.set(newYork);
    await deliver();
    await new Promise((r) => setTimeout(r, 300));
    const mails = mailsTo(member.user.email);
    expect(mails.map((m) => m.subject)).toEqual(['Your daily digest: 1 notification']);
    expect(mails[0]!.text).toContain('changed the priority of');
  });

  it('a signed link turns its kind off with a one-click POST; GET asks first; a tampered or foreign token changes nothing', async () => {
    const { ws, member, project } = await setup();
    await createIssue(t.api, ws, project.id, { name: 'Unsubscribe me', assignee_ids: [member.user.id] });
    t.clock.advance(2 * MIN);
    await deliver();
    await smtp.waitFor(smtp.messages.length);
    const [mail] = mailsTo(member.user.email);
    const url = unsubscribeUrl(mail!);

    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('e-mails about assignments');
    expect((await settings(member)).kinds.assigned).toBe(true);

    const token = url.split('/').at(-2)!;
    const [body, sig] = token.split('.') as [string, string];
    const forged = `${Buffer.concat([Buffer.from(ws.admin.user.id.replace(/-/g, ''), 'hex'), Buffer.from('assigned')]).toString('base64url')}.${sig}`;
    for (const bad of [`${body}.${sig.slice(0, -3)}abc`, forged, 'garbage', `${body}.`]) {
      const res = await fetch(`${t.url}/api/mail/unsubscribe/${bad}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      });
      expect(res.status).toBe(404);
    }
    expect((await settings(member)).kinds.assigned).toBe(true);
    expect((await settings(ws.admin)).kinds.assigned).toBe(true);

    const wrongBody = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'foo=bar' });
    expect(wrongBody.status).toBe(400);
    expect((await settings(member)).kinds.assigned).toBe(true);

    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(res.status).toBe(200);
    expect(await settings(member)).toMatchObject({ email: 'instant', kinds: { assigned: false, mentioned: true } });
    const twice = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      body: '--x\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--x--\r\n',
    });
    expect(twice.status).toBe(200);
    expect((await settings(member)).kinds.assigned).toBe(false);
  });
});

describe('the outbox', () => {
  it('is for the instance admin: 403 for others, filtered by state, newest first', async () => {
    const user = await signUp(t.api, 'Nobody');
    expectProblem(await t.api.get('/api/admin/mail/', { token: user.token }), 403, 'forbidden');
    expectProblem(await t.api.get('/api/admin/mail/?status=lost', { token: admin.token }), 400, 'validation_failed');
    const all = await t.api.get('/api/admin/mail/?per_page=100', { token: admin.token });
    expect(all.status).toBe(200);
    expect(all.body.total).toBeGreaterThan(0);
    const times = all.body.results.map((r: any) => r.created_at);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('shows one mail to the instance admin with the tokens of its links redacted', async () => {
    const { createMailQueue, mailRepository } = await import('../../src/modules/mail/index.js');
    const token = 'A'.repeat(43);
    const queue = createMailQueue({ repo: mailRepository(), clock: t.clock, from: 'x@example.test' });
    const id = await t.database.db.transaction().execute((tx) =>
      queue.enqueue(tx, {
        to: 'invitee@example.test',
        subject: 'You are invited',
        text: `Accept: ${t.url}/app/invitations/${token}\nReset: ${t.url}/app/password-reset/${token}\nIssue: ${t.url}/app/w/acme/p/01900000-0000-7000-8000-000000000001/issues/01900000-0000-7000-8000-000000000002`,
        html: `<a href="${t.url}/app/invitations/${token}">Accept</a>`,
        category: 'invitation',
        headers: { 'List-Unsubscribe': `<${t.url}/api/mail/unsubscribe/${token}.${token}/>` },
      }),
    );
    const res = await t.api.get(`/api/admin/mail/${id}/`, { token: admin.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id, category: 'invitation', to: 'invitee@example.test', subject: 'You are invited', status: expect.any(String) });
    expect(res.body.text).toContain(`${t.url}/app/invitations/[redacted]`);
    expect(res.body.text).toContain(`${t.url}/app/password-reset/[redacted]`);
    expect(res.body.text).toContain('/issues/01900000-0000-7000-8000-000000000002');
    expect(res.body.headers['List-Unsubscribe']).toBe(`<${t.url}/api/mail/unsubscribe/[redacted]/>`);
    expect(JSON.stringify(res.body)).not.toContain(token);
    expect(res.body).not.toHaveProperty('html');
    const user = await signUp(t.api, 'Curious');
    expectProblem(await t.api.get(`/api/admin/mail/${id}/`, { token: user.token }), 403, 'forbidden');
    expectProblem(await t.api.get('/api/admin/mail/01900000-0000-7000-8000-000000000009/', { token: admin.token }), 404, 'not_found');
    expectProblem(await t.api.get('/api/admin/mail/nope/', { token: admin.token }), 400, 'validation_failed');
  });

  it('exposes mail_sent_total and mail_failed_total', async () => {
    const res = await t.api.get('/metrics');
    expect(res.text).toMatch(/^mail_sent_total \d+/m);
    expect(res.text).toMatch(/^mail_failed_total \d+/m);
    expect(Number(/^mail_sent_total (\d+)/m.exec(res.text)![1])).toBeGreaterThan(0);
  });
});
