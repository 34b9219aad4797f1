import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';
import { expectAccessible, hasChromium, type Harness, recordConsoleErrors, startHarness } from './harness.js';

/**
 * Contract 26.4-26.6 in Chromium, with the links followed from the mails a real SMTP server received: the members page
 * (invite, pending invitations, resend, revoke), the invitation page (sign up through the link, accept as the invited
 * account, another account is told so, a dead link says so), and forgot password → the mailed link → a new password →
 * sign in. axe finds nothing serious on each page, no console error but those asked for, no sideways scrolling at 390 px.
 */
describe.skipIf(!hasChromium)('invitations and password reset in the console, through the mails, in Chromium', () => {
  let h: Harness;
  let smtp: TestSmtpServer;
  const errors: string[] = [];
  // The dead links this suite opens on purpose answer 410 (the page says so).
  const expected = ['/api/invitations/'];
  const stamp = Date.now().toString(36);
  const carol = `carol.${stamp}@example.com`;
  let dan: { token: string; userId: string; email: string };
  let erinFirstLink = '';
  let erinLink = '';

  /** A fresh browser with no one signed in (or `token`'s user), its console errors recorded too. */
  async function browserOf(token?: string): Promise<{ context: BrowserContext; page: Page }> {
    const context = await h.browser.newContext({ viewport: { width: 1280, height: 900 } });
    if (token) await context.addInitScript((t) => localStorage.setItem('wis.console.token', t), token);
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await recordConsoleErrors({ context, page }, errors, expected);
    return { context, page };
  }

  /** The newest mail to `to` whose text has a console link under `/app/<path>/`, after the outbox sent it. */
  async function linkMailedTo(to: string, path: 'invitations' | 'password-reset', after = 0): Promise<{ mail: ReceivedMail; link: string }> {
    const pattern = new RegExp(`https?://\\S+/app/${path}/[A-Za-z0-9_-]+`);
    const deliver = h.ctx.app.jobs.find((j) => j.name === 'mail.deliver');
    for (let i = 0; i < 100; i++) {
      const found = smtp.messages.filter((m) => m.envelope.to.includes(to) && pattern.test(m.text ?? '')).slice(after);
      if (found.length) {
        const mail = found[found.length - 1]!;
        return { mail, link: pattern.exec(mail.text ?? '')![0] };
      }
      await deliver?.run();
      await new Promise((r) => setTimeout(r, 100));
    }
    const seen = smtp.messages.map((m) => `${m.envelope.to.join(',')}: ${m.subject} ${(m.text ?? '').slice(0, 400)}`);
    throw new Error(`no ${path} mail to ${to} among ${JSON.stringify(seen)}`);
  }
  const mailsTo = (to: string) => smtp.messages.filter((m) => m.envelope.to.includes(to)).length;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    const base = loadConfig({});
    h = await startHarness('invite', { mail: { ...base.mail, smtpUrl: smtp.url, from: 'Work Items <no-reply@wis.example.test>' } });
    await recordConsoleErrors(h, errors, expected);
    h.page.on('dialog', (d) => void d.accept());
    dan = await h.signUp('Dan');
  });

  afterAll(async () => {
    await h?.close();
    await smtp?.close();
  });

  it('invites from the members page and lists the pending invitations', async () => {
    const { page } = h;
    await page.goto(h.app(`/w/${h.slug}`));
    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByRole('heading', { name: 'Members' }).waitFor();
    await page.getByRole('region', { name: 'Members' }).getByRole('cell', { name: 'Ada', exact: true }).waitFor();
    for (const [email, role] of [
      [carol, 'member'],
      [dan.email, 'guest'],
      [`erin.${stamp}@example.com`, 'member'],
    ] as const) {
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel('Role', { exact: true }).selectOption(role);
      await page.getByRole('button', { name: 'Send invitation' }).click();
      await page.getByText(`Invitation sent to ${email}.`).waitFor();
    }
    const pending = page.getByRole('region', { name: 'Pending invitations' });
    await expect.poll(() => pending.getByRole('row').count()).toBe(4); // the header and three
    expect(await pending.getByRole('row', { name: new RegExp(dan.email) }).textContent()).toContain('Guest');
    await expectAccessible(page, 'the members page');
    await h.shot('members');

    // An e-mail invited twice: the API's 409, shown as such.
    expected.push(`/api/workspaces/${h.slug}/invitations/`);
    await page.getByLabel('E-mail').fill(carol);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('409');
    await expectAccessible(page, 'the members page with a refused invitation');
    expected.pop();
  });

  it('resends (the old link dies) and revokes', async () => {
    const { page } = h;
    const erin = `erin.${stamp}@example.com`;
    erinFirstLink = (await linkMailedTo(erin, 'invitations')).link;
    const before = mailsTo(erin);
    await page.getByRole('button', { name: `Resend to ${erin}` }).click();
    await page.getByText(`A new invitation was sent to ${erin}.`).waitFor();
    erinLink = (await linkMailedTo(erin, 'invitations', before)).link;
    expect(erinLink).not.toBe(erinFirstLink);

    const { context, page: guest } = await browserOf();
    try {
      await guest.goto(erinFirstLink);
      await guest.getByText('This invitation has expired or was already used.').waitFor();
      await expectAccessible(guest, 'a dead invitation link');
      await guest.goto(erinLink);
      await guest.getByRole('heading', { name: `Join Acme invite` }).waitFor();

      await page.getByRole('button', { name: `Revoke ${erin}` }).click(); // the confirm is accepted
      await page.getByText(`The invitation of ${erin} was revoked.`).waitFor();
      await expect.poll(() => page.getByRole('region', { name: 'Pending invitations' }).getByRole('row').count()).toBe(3);
      await guest.reload();
      await guest.getByText('This invitation has expired or was already used.').waitFor();
      await h.shot('invitation-dead', guest);
    } finally {
      await context.close();
    }
  });

  it('signs up through the mailed link and lands in the workspace', async () => {
    const { mail, link } = await linkMailedTo(carol, 'invitations');
    expect(mail.subject).toContain('Acme invite');
    expect(link.startsWith(`${h.ctx.url}/app/invitations/`)).toBe(true);
    const { context, page } = await browserOf();
    try {
      await page.goto(link);
      await page.getByRole('heading', { name: 'Join Acme invite' }).waitFor();
      expect(await page.locator('main').textContent()).toContain(`${carol} is invited to the workspace Acme invite (${h.slug}) as member`);
      expect(await page.getByLabel('E-mail').inputValue()).toBe(carol);
      await expectAccessible(page, 'the invitation page (sign up)');
      await h.shot('invitation-sign-up', page);
      await page.getByLabel('Name').fill('Carol');
      await page.getByLabel('Password').fill('carol horse battery');
      await page.getByRole('button', { name: 'Create account and join' }).click();
      // The workspace's home (issue 41), its projects section.
      await page.getByRole('region', { name: 'Projects', exact: true }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/app/w/${h.slug}`);
      const token = await page.evaluate(() => localStorage.getItem('wis.console.token'));
      const me = await h.ctx.api.get('/api/users/me/', { token: token! });
      expect(me.body).toMatchObject({ email: carol, display_name: 'Carol' });
      const members = (await h.ctx.api.get(`/api/workspaces/${h.slug}/members/`, { token: h.token })).body as { email: string; role: string }[];
      expect(members.find((m) => m.email === carol)?.role).toBe('member');
      // The link was single use.
      await page.goto(link);
      await page.getByText('This invitation has expired or was already used.').waitFor();
    } finally {
      await context.close();
    }
  });

  it('tells another signed-in account that the invitation is not theirs, and the invited account accepts', async () => {
    const { link } = await linkMailedTo(dan.email, 'invitations');
    await h.page.goto(link); // Ada is signed in
    await h.page.getByText(`but this invitation is for ${dan.email}`).waitFor();
    expect(await h.page.getByRole('button', { name: 'Accept invitation' }).count()).toBe(0);
    await expectAccessible(h.page, 'the invitation page (another account)');

    const { context, page } = await browserOf(dan.token);
    try {
      await page.goto(link);
      await page.getByRole('button', { name: 'Accept invitation' }).waitFor();
      await expectAccessible(page, 'the invitation page (accept)');
      await page.getByRole('button', { name: 'Accept invitation' }).click();
      // The workspace's home (issue 41), its projects section.
      await page.getByRole('region', { name: 'Projects', exact: true }).waitFor();
      const members = (await h.ctx.api.get(`/api/workspaces/${h.slug}/members/`, { token: h.token })).body as { email: string; role: string }[];
      expect(members.find((m) => m.email === dan.email)?.role).toBe('guest');
    } finally {
      await context.close();
    }
    await h.page.goto(h.app(`/w/${h.slug}/members`));
    await h.page.getByText('No pending invitations.').waitFor();
    expect(await h.page.getByRole('region', { name: 'Members' }).getByRole('row').count()).toBe(4); // header, Ada, Carol, Dan
    await expectAccessible(h.page, 'the members page without pending invitations');
    await h.shot('members-after');
  });

  it('signs in from the invitation page (an existing account), comes back to it and accepts', async () => {
    const finn = await h.signUp('Finn');
    const invited = await h.ctx.api.post(`/api/workspaces/${h.slug}/invitations/`, { email: finn.email, role: 'member' }, { token: h.token });
    expect(invited.status, invited.text).toBe(201);
    const { link } = await linkMailedTo(finn.email, 'invitations');
    const { context, page } = await browserOf();
    try {
      await page.goto(link);
      await page.getByRole('link', { name: 'Sign in to accept' }).click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.getByLabel('E-mail').fill(finn.email);
      await page.getByLabel('Password').fill('correct horse battery');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Accept invitation' }).click();
      // The workspace's home (issue 41), its projects section.
      await page.getByRole('region', { name: 'Projects', exact: true }).waitFor();
      const members = (await h.ctx.api.get(`/api/workspaces/${h.slug}/members/`, { token: h.token })).body as { email: string }[];
      expect(members.map((m) => m.email)).toContain(finn.email);
    } finally {
      await context.close();
    }
  });

  it('resets a forgotten password through the mailed link, then signs in with the new one', async () => {
    const { context, page } = await browserOf();
    try {
      await page.goto(h.app('/'));
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.getByRole('link', { name: 'Forgot password?' }).click();
      await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
      await expectAccessible(page, 'the forgot password page');
      await page.getByLabel('E-mail').fill(dan.email);
      await page.getByRole('button', { name: 'Send reset link' }).click();
      await page.getByText(`If an account exists for ${dan.email}, we sent it a link`).waitFor();
      await expectAccessible(page, 'the reset link sent');

      // An unknown address gets the very same answer.
      await page.goto(h.app('/forgot-password'));
      await page.getByLabel('E-mail').fill(`nobody.${stamp}@example.com`);
      await page.getByRole('button', { name: 'Send reset link' }).click();
      await page.getByText(`If an account exists for nobody.${stamp}@example.com, we sent it a link`).waitFor();

      const { link } = await linkMailedTo(dan.email, 'password-reset');
      await page.goto(link);
      await page.getByRole('heading', { name: 'Set a new password' }).waitFor();
      await expectAccessible(page, 'the reset page');
      await page.getByLabel('New password', { exact: true }).fill('a brand new secret');
      await page.getByLabel('Repeat the new password').fill('a different secret');
      await page.getByRole('button', { name: 'Set new password' }).click();
      await page.getByText('The two passwords differ.').waitFor();
      await expectAccessible(page, 'the reset page with differing passwords');
      await page.getByLabel('Repeat the new password').fill('a brand new secret');
      await page.getByRole('button', { name: 'Set new password' }).click();
      await page.getByText('Your password was changed. Sign in with the new one.').waitFor();
      await expectAccessible(page, 'the sign-in page after a reset');
      await h.shot('reset-done', page);
      await page.getByLabel('E-mail').fill(dan.email);
      await page.getByLabel('Password').fill('a brand new secret');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
      // The old session ended with the reset.
      expect((await h.ctx.api.get('/api/users/me/', { token: dan.token })).status).toBe(401);

      // The link was single use.
      await page.goto(link);
      await page.getByLabel('New password', { exact: true }).fill('yet another secret');
      await page.getByLabel('Repeat the new password').fill('yet another secret');
      expected.push('/api/auth/password-reset/confirm/'); // the 400 asked for
      await page.getByRole('button', { name: 'Set new password' }).click();
      await page.getByText('This link has expired or was already used.').waitFor();
      await expectAccessible(page, 'a used reset link');
      expected.pop();
    } finally {
      await context.close();
    }
  });

  it('says a wrong password on the sign-in page, and the sign-up page has nothing axe finds', async () => {
    const { context, page } = await browserOf();
    try {
      expected.push('/api/auth/sign-in/'); // the 401 asked for
      await page.goto(h.app('/sign-in'));
      await page.getByLabel('E-mail').fill(dan.email);
      await page.getByLabel('Password').fill('not the password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      expect(await page.getByRole('alert').textContent()).toContain('E-mail or password is wrong');
      expect(new URL(page.url()).pathname).toBe('/app/sign-in');
      await expectAccessible(page, 'the sign-in page with a wrong password');
      expected.pop();
      await page.getByRole('link', { name: 'Sign up' }).click();
      await page.getByRole('heading', { name: 'Sign up' }).waitFor();
      await expectAccessible(page, 'the sign-up page');
    } finally {
      await context.close();
    }
  });

  it('shows the members read-only to a member who is not an admin', async () => {
    // Dan's first session ended with the password reset above: a new one, with the new password.
    const signedIn = await h.ctx.api.post('/api/auth/sign-in/', { email: dan.email, password: 'a brand new secret' });
    expect(signedIn.status, signedIn.text).toBe(200);
    const { context, page } = await browserOf(signedIn.body.token as string);
    try {
      await page.goto(h.app(`/w/${h.slug}/members`));
      await page.getByRole('region', { name: 'Members' }).getByRole('cell', { name: 'Ada', exact: true }).waitFor();
      expect(await page.getByRole('region', { name: 'Members' }).getByRole('combobox').count()).toBe(0);
      expect(await page.getByRole('region', { name: 'Members' }).getByRole('cell', { name: 'Admin', exact: true }).count()).toBe(1);
      await expectAccessible(page, 'the members page of a guest');
    } finally {
      await context.close();
    }
  });

  it('fits a phone (390 px) on each new page', async () => {
    const phone = (name: string, path: string, ready: (p: Page) => Promise<unknown>) =>
      h.checkPhone(name, path, async (p) => {
        await ready(p);
        await expectAccessible(p, `${name} on a phone`);
      });
    await phone('members', `/w/${h.slug}/members`, (p) => p.getByRole('region', { name: 'Members' }).waitFor());
    await phone('invitation', new URL(erinLink).pathname.replace(/^\/app/, ''), (p) =>
      p.getByText('This invitation has expired or was already used.').waitFor(),
    );
    await phone('forgot-password', '/forgot-password', (p) => p.getByLabel('E-mail').waitFor());
    await phone('password-reset', '/password-reset/some-token', (p) => p.getByLabel('New password', { exact: true }).waitFor());
    await phone('sign-in', '/sign-in', (p) => p.getByLabel('Password').waitFor());
    await phone('sign-up', '/sign-up', (p) => p.getByLabel('Password').waitFor());
  });

  it('had no console errors', () => {
    expect(errors).toEqual([]);
  });
});
