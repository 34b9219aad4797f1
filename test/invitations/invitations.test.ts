/** Invitations (contract 26.4) through HTTP: the mail and its link, accepting and signing up through it, seats, 410s. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createWorkspace, expectProblem, signUp, unique } from '../helpers/factories.js';
import { startTestApp, useTestApp } from '../helpers/test-app.js';
import { linkToken, mailsTo } from './helpers.js';

const ctx = useTestApp({ publicBaseUrl: 'https://work.example.com' });
const DAY = 86_400_000;

const newEmail = (name = 'invitee') => `${unique(name)}@example.com`;
const invitationsOf = (slug: string) => `/api/workspaces/${slug}/invitations/`;

/** Invites an e-mail as the workspace's admin; answers the invitation and the token of the mailed link. */
async function invite(ws: { slug: string; admin: { token: string } }, email: string, role = 'member') {
  const { api, database } = ctx();
  const before = (await mailsTo(database, email.trim().toLowerCase())).length;
  const res = await api.post(invitationsOf(ws.slug), { email, role }, { token: ws.admin.token });
  expect(res.status, res.text).toBe(201);
  const mails = await mailsTo(database, email.trim().toLowerCase());
  expect(mails).toHaveLength(before + 1);
  return { invitation: res.body, token: linkToken(mails.at(-1)!, 'invitations'), mail: mails.at(-1)! };
}

describe('invitations', () => {
  it('invites an e-mail: 201 with the invitation, 7 days, and a mail (text and HTML, the name escaped) whose link opens and signs up', async () => {
    const { api, clock, database } = ctx();
    const admin = await signUp(api, 'Admin');
    const slug = unique('ws');
    const created = await api.post('/api/workspaces/', { name: 'Acme <b>& "Co"</b>', slug }, { token: admin.token });
    expect(created.status, created.text).toBe(201);
    const ws = { slug, admin };
    const email = newEmail();

    const res = await api.post(invitationsOf(slug), { email: email.toUpperCase(), role: 'guest' }, { token: admin.token });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'email', 'expires_at', 'id', 'invited_by', 'role']);
    expect(res.body).toMatchObject({ email, role: 'guest', invited_by: admin.user.id, created_at: clock.now().toISOString() });
    expect(new Date(res.body.expires_at).getTime() - clock.now().getTime()).toBe(7 * DAY);
    expect(res.text).not.toMatch(/token/i);

    const [mail, ...more] = await mailsTo(database, email);
    expect(more).toEqual([]);
    expect(mail).toMatchObject({ category: 'invitation', workspace_id: created.body.id, user_id: null });
    expect(mail!.text_body).toContain('https://work.example.com/app/invitations/');
    expect(mail!.text_body).toContain('Acme <b>& "Co"</b>');
    expect(mail!.html_body).toContain('Acme &lt;b&gt;&amp; &quot;Co&quot;&lt;/b&gt;');
    expect(mail!.html_body).not.toContain('<b>&');
    const token = linkToken(mail!, 'invitations');

    const listed = await api.get(invitationsOf(slug), { token: admin.token });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([res.body]);

    // The link's preview needs no sign-in.
    const preview = await api.get(`/api/invitations/${token}/`);
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body).toEqual({ workspace: { name: 'Acme <b>& "Co"</b>', slug }, email, role: 'guest', expires_at: res.body.expires_at });

    // Not signed in and without {password, display_name}: 401; half of it: 400.
    expectProblem(await api.post(`/api/invitations/${token}/accept/`), 401, 'unauthenticated');
    expectProblem(await api.post(`/api/invitations/${token}/accept/`, {}), 401, 'unauthenticated');
    expectProblem(await api.post(`/api/invitations/${token}/accept/`, { password: 'correct horse battery' }), 400, 'validation_failed');
    expectProblem(await api.post(`/api/invitations/${token}/accept/`, { password: 'short', display_name: 'New' }), 400, 'validation_failed');

    const accepted = await api.post(`/api/invitations/${token}/accept/`, { password: 'correct horse battery', display_name: ' New Person ' });
    expect(accepted.status, accepted.text).toBe(201);
    expect(accepted.body).toMatchObject({
      user: { email, display_name: 'New Person', is_instance_admin: false },
      token: expect.any(String),
      membership: { email, role: 'guest', display_name: 'New Person' },
    });
    expect(accepted.body.membership.user_id).toBe(accepted.body.user.id);
    const me = await api.get('/api/users/me/', { token: accepted.body.token });
    expect(me.body).toMatchObject({ id: accepted.body.user.id, email });
    const members = await api.get(`/api/workspaces/${slug}/members/`, { token: accepted.body.token });
    expect(members.status).toBe(200);
    expect(members.body.map((m: { email: string }) => m.email)).toContain(email);
    const signIn = await api.post('/api/auth/sign-in/', { email, password: 'correct horse battery' });
    expect(signIn.status).toBe(200);

    // Single use: the link is gone (410), the list is empty.
    expectProblem(await api.get(`/api/invitations/${token}/`), 410, 'invitation_expired');
    expectProblem(await api.post(`/api/invitations/${token}/accept/`, { password: 'correct horse battery', display_name: 'Again' }), 410, 'invitation_expired');
    expectProblem(await api.post(`/api/invitations/${token}/accept/`, undefined, { token: accepted.body.token }), 410, 'invitation_expired');
    expect((await api.get(invitationsOf(slug), { token: admin.token })).body).toEqual([]);
    // Now a member: inviting the e-mail again is 409.
    expectProblem(await api.post(invitationsOf(slug), { email, role: 'member' }, { token: admin.token }), 409, 'conflict');
    void ws;
  });

  it('an existing account (e-mail in any case) is told in its inbox, accepts signed in (200, the membership); another account: 403', async () => {
    const { api, database } = ctx();
    const ws = await createWorkspace(api);
    const invitee = await signUp(api, 'Invitee');
    const other = await signUp(api, 'Other');
    const { invitation, token, mail } = await invite(ws, invitee.user.email.toUpperCase(), 'admin');
    expect(invitation.email).toBe(invitee.user.email);
    expect(mail.user_id).toBe(invitee.user.id);

    const inbox = await api.get('/api/users/me/notifications/', { token: invitee.token });
    expect(inbox.status, inbox.text).toBe(200);
    const invited = inbox.body.results.find((n: { kind: string }) => n.kind === 'invited');
    expect(invited, inbox.text).toBeDefined();
    expect(invited).toMatchObject({
      workspace_slug: ws.slug,
      issue: null,
      actor: { id: ws.admin.user.id },
      data: { workspace: { name: 'Test workspace', slug: ws.slug }, role: 'admin', invitation_id: invitation.id },
    });

    // Another account: 403; not signed in while the account exists: 409 (sign in instead); a bad token: 401.
    expectProblem(await api.post(`/api/invitations/${token}/accept/`, undefined, { token: other.token }), 403, 'forbidden');
    expectProblem(await api.post(`/api/invitations/${token}/accept/`, { password: 'correct horse battery', display_name: 'X' }), 409, 'conflict');
    expectProblem(await api.post(`/api/invitations/${token}/accept/`, undefined, { token: 'wis_nope' }), 401, 'unauthenticated');
    // Still pending after those.
    expect((await api.get(`/api/invitations/${token}/`)).status).toBe(200);

    const accepted = await api.post(`/api/invitations/${token}/accept/`, undefined, { token: invitee.token });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body).toMatchObject({ user_id: invitee.user.id, email: invitee.user.email, role: 'admin', display_name: 'Invitee' });
    const members = await api.get(`/api/workspaces/${ws.slug}/members/`, { token: invitee.token });
    expect(members.body).toContainEqual(accepted.body);
    expectProblem(await api.post(`/api/invitations/${token}/accept/`, undefined, { token: invitee.token }), 410, 'invitation_expired');
    expect(await mailsTo(database, other.user.email)).toEqual([]);
  });

  it('checks its input: a malformed or 1,000-character e-mail, an unknown role: 400 and no mail; unknown tokens: 404', async () => {
    const { api, database } = ctx();
    const ws = await createWorkspace(api);
    const long = `${'a'.repeat(988)}@example.com`;
    for (const body of [
      { email: 'not-an-email', role: 'member' },
      { email: long, role: 'member' },
      { email: 'a@b@example.com', role: 'member' },
      { email: newEmail(), role: 'owner' },
      { email: newEmail() },
      { role: 'member' },
      { email: ` ${newEmail()}`, role: 'member' },
    ]) {
      const res = await api.post(invitationsOf(ws.slug), body, { token: ws.admin.token });
      expectProblem(res, 400, 'validation_failed');
    }
    expect(await mailsTo(database, long)).toEqual([]);
    expect(await mailsTo(database, 'not-an-email')).toEqual([]);
    expect((await api.get(invitationsOf(ws.slug), { token: ws.admin.token })).body).toEqual([]);

    const unknown = randomBytes(32).toString('base64url');
    expectProblem(await api.get(`/api/invitations/${unknown}/`), 404, 'not_found');
    expectProblem(await api.post(`/api/invitations/${unknown}/accept/`, { password: 'correct horse battery', display_name: 'X' }), 404, 'not_found');
    expectProblem(await api.get('/api/invitations/short/'), 404, 'not_found');
    expectProblem(await api.get(`/api/invitations/${'x'.repeat(129)}/`), 414, 'uri_too_long');
    expectProblem(await api.get('/api/invitations/a%20b/'), 400, 'validation_failed');
  });

  it("is for admins: members and guests get 403, non-members 404, and another workspace's invitation is 404", async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const member = await ws.addUser('member');
    const guest = await ws.addUser('guest');
    const stranger = await signUp(api, 'Stranger');
    const { invitation } = await invite(ws, newEmail());
    const one = `${invitationsOf(ws.slug)}${invitation.id}/`;
    for (const who of [member, guest]) {
      expectProblem(await api.post(invitationsOf(ws.slug), { email: newEmail(), role: 'member' }, { token: who.token }), 403, 'forbidden');
      expectProblem(await api.get(invitationsOf(ws.slug), { token: who.token }), 403, 'forbidden');
      expectProblem(await api.delete(one, { token: who.token }), 403, 'forbidden');
      expectProblem(await api.post(`${one}resend/`, undefined, { token: who.token }), 403, 'forbidden');
    }
    expectProblem(await api.post(invitationsOf(ws.slug), { email: newEmail(), role: 'member' }, { token: stranger.token }), 404, 'not_found');
    expectProblem(await api.get(invitationsOf(ws.slug), { token: stranger.token }), 404, 'not_found');
    expectProblem(await api.post(invitationsOf(ws.slug), { email: newEmail(), role: 'member' }), 401, 'unauthenticated');

    // Tenant isolation: the admin of another workspace cannot reach this invitation through theirs.
    const otherWs = await createWorkspace(api);
    expectProblem(await api.delete(`${invitationsOf(otherWs.slug)}${invitation.id}/`, { token: otherWs.admin.token }), 404, 'not_found');
    expectProblem(await api.post(`${invitationsOf(otherWs.slug)}${invitation.id}/resend/`, undefined, { token: otherWs.admin.token }), 404, 'not_found');
    expectProblem(await api.delete(`${invitationsOf(ws.slug)}${invitation.id}/`, { token: otherWs.admin.token }), 404, 'not_found');
    expect((await api.get(invitationsOf(otherWs.slug), { token: otherWs.admin.token })).body).toEqual([]);
    expect((await api.get(invitationsOf(ws.slug), { token: ws.admin.token })).body).toHaveLength(1);
    expectProblem(await api.delete(`${invitationsOf(ws.slug)}not-a-uuid/`, { token: ws.admin.token }), 400, 'validation_failed');
  });

  it('refuses a second invitation of an e-mail while one is pending (409); revoke makes its link 410 and frees the e-mail', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const email = newEmail();
    const { invitation, token } = await invite(ws, email);
    expectProblem(await api.post(invitationsOf(ws.slug), { email: email.toUpperCase(), role: 'admin' }, { token: ws.admin.token }), 409, 'conflict');

    expect((await api.delete(`${invitationsOf(ws.slug)}${invitation.id}/`, { token: ws.admin.token })).status).toBe(204);
    expectProblem(await api.delete(`${invitationsOf(ws.slug)}${invitation.id}/`, { token: ws.admin.token }), 404, 'not_found');
    expectProblem(await api.post(`${invitationsOf(ws.slug)}${invitation.id}/resend/`, undefined, { token: ws.admin.token }), 404, 'not_found');
    expectProblem(await api.get(`/api/invitations/${token}/`), 410, 'invitation_expired');
    expectProblem(await api.post(`/api/invitations/${token}/accept/`, { password: 'correct horse battery', display_name: 'X' }), 410, 'invitation_expired');
    expect((await api.get(invitationsOf(ws.slug), { token: ws.admin.token })).body).toEqual([]);

    const again = await invite(ws, email, 'guest');
    expect(again.invitation.id).not.toBe(invitation.id);
    expect((await api.get(`/api/invitations/${again.token}/`)).body.role).toBe('guest');
  });

  it('resend: a new token and mail, the old link 410, the 7 days start again; after 7 days the link is 410 and the e-mail can be invited again', async () => {
    const { api, clock, database } = ctx();
    const start = clock.now();
    try {
      const ws = await createWorkspace(api);
      const email = newEmail();
      const { invitation, token } = await invite(ws, email);
      clock.advanceDays(6);
      const resent = await api.post(`${invitationsOf(ws.slug)}${invitation.id}/resend/`, undefined, { token: ws.admin.token });
      expect(resent.status, resent.text).toBe(200);
      expect(resent.body).toMatchObject({ id: invitation.id, email, created_at: invitation.created_at });
      expect(new Date(resent.body.expires_at).getTime()).toBe(clock.now().getTime() + 7 * DAY);
      const mails = await mailsTo(database, email);
      expect(mails).toHaveLength(2);
      const fresh = linkToken(mails[1]!, 'invitations');
      expect(fresh).not.toBe(token);
      expectProblem(await api.get(`/api/invitations/${token}/`), 410, 'invitation_expired');
      expectProblem(await api.post(`/api/invitations/${token}/accept/`, { password: 'correct horse battery', display_name: 'X' }), 410, 'invitation_expired');

      // Two days later the first link's 7 days are over, the new link's are not.
      clock.advanceDays(2);
      expect((await api.get(`/api/invitations/${fresh}/`)).status).toBe(200);
      expect((await api.get(invitationsOf(ws.slug), { token: ws.admin.token })).body).toHaveLength(1);

      // Past its 7 days: 410, no longer listed, no longer holding a seat; the e-mail can be invited again.
      clock.advanceDays(5);
      clock.advance(1);
      expectProblem(await api.get(`/api/invitations/${fresh}/`), 410, 'invitation_expired');
      expectProblem(await api.post(`/api/invitations/${fresh}/accept/`, { password: 'correct horse battery', display_name: 'X' }), 410, 'invitation_expired');
      expect((await api.get(invitationsOf(ws.slug), { token: ws.admin.token })).body).toEqual([]);
      const again = await invite(ws, email);
      expect(again.invitation.id).not.toBe(invitation.id);
      expectProblem(await api.get(`/api/invitations/${fresh}/`), 410, 'invitation_expired');
      const accepted = await api.post(`/api/invitations/${again.token}/accept/`, { password: 'correct horse battery', display_name: 'Late' });
      expect(accepted.status, accepted.text).toBe(201);
    } finally {
      clock.set(start);
    }
  });

  it("counts members plus pending invitations against the plan's max_users (402), and never refuses the accept of a counted one", async () => {
    const { api, clock } = ctx();
    const start = clock.now();
    try {
      // Free: 5 members. The admin, 3 members and 1 pending invitation fill it.
      const ws = await createWorkspace(api);
      for (let i = 0; i < 3; i++) await ws.addUser('member');
      const pending = await invite(ws, newEmail());
      expectProblem(await api.post(invitationsOf(ws.slug), { email: newEmail(), role: 'member' }, { token: ws.admin.token }), 402, 'plan_limit_reached');
      const outsider = await signUp(api, 'Outsider');
      expectProblem(
        await api.post(`/api/workspaces/${ws.slug}/members/`, { email: outsider.user.email, role: 'member' }, { token: ws.admin.token }),
        402,
        'plan_limit_reached',
      );

      // The pending one was counted: its accept is not refused, and the workspace is then full with 5 members.
      const accepted = await api.post(`/api/invitations/${pending.token}/accept/`, { password: 'correct horse battery', display_name: 'Fifth' });
      expect(accepted.status, accepted.text).toBe(201);
      expect((await api.get(`/api/workspaces/${ws.slug}/members/`, { token: ws.admin.token })).body).toHaveLength(5);
      expectProblem(await api.post(invitationsOf(ws.slug), { email: newEmail(), role: 'member' }, { token: ws.admin.token }), 402, 'plan_limit_reached');

      // A revoked or expired invitation frees its seat; resending an expired one takes a seat again.
      const ws2 = await createWorkspace(api);
      for (let i = 0; i < 3; i++) await ws2.addUser('member');
      const first = await invite(ws2, newEmail());
      expect((await api.delete(`${invitationsOf(ws2.slug)}${first.invitation.id}/`, { token: ws2.admin.token })).status).toBe(204);
      const second = await invite(ws2, newEmail());
      clock.advanceDays(8);
      const third = await invite(ws2, newEmail());
      expectProblem(
        await api.post(`${invitationsOf(ws2.slug)}${second.invitation.id}/resend/`, undefined, { token: ws2.admin.token }),
        402,
        'plan_limit_reached',
      );
      expect((await api.delete(`${invitationsOf(ws2.slug)}${third.invitation.id}/`, { token: ws2.admin.token })).status).toBe(204);
      const resent = await api.post(`${invitationsOf(ws2.slug)}${second.invitation.id}/resend/`, undefined, { token: ws2.admin.token });
      expect(resent.status, resent.text).toBe(200);
    } finally {
      clock.set(start);
    }
  });

  it('two concurrent accepts of one token make exactly one membership', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const email = newEmail();
    const { token } = await invite(ws, email);
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, i) => api.post(`/api/invitations/${token}/accept/`, { password: 'correct horse battery', display_name: `Racer ${i}` })),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses, answers.map((a) => a.text).join('\n')).toEqual([201, 410, 410, 410]);
    const members = (await api.get(`/api/workspaces/${ws.slug}/members/`, { token: ws.admin.token })).body as { email: string }[];
    expect(members.filter((m) => m.email === email)).toHaveLength(1);

    // The same for an existing account accepting twice at once.
    const invitee = await signUp(api, 'Twice');
    const second = await invite(ws, invitee.user.email);
    const both = await Promise.all([0, 1].map(() => api.post(`/api/invitations/${second.token}/accept/`, undefined, { token: invitee.token })));
    expect(both.map((a) => a.status).sort()).toEqual([200, 410]);
  });

  it('signs up through the link when public sign-up is off', async () => {
    const { api, database } = ctx();
    const ws = await createWorkspace(api);
    const email = newEmail();
    const { token } = await invite(ws, email, 'member');
    // A second instance of the service on the same database, with sign-up turned off.
    const closed = await startTestApp({ allowSignup: false }, database);
    try {
      expectProblem(await closed.api.post('/api/auth/sign-up/', { email: newEmail(), password: 'correct horse battery', display_name: 'X' }), 403, 'forbidden');
      const accepted = await closed.api.post(`/api/invitations/${token}/accept/`, { password: 'correct horse battery', display_name: 'Invited' });
      expect(accepted.status, accepted.text).toBe(201);
      expect(accepted.body.membership).toMatchObject({ email, role: 'member' });
      expect((await closed.api.get(`/api/workspaces/${ws.slug}/members/`, { token: accepted.body.token })).status).toBe(200);
    } finally {
      await closed.close();
    }
  });

  it('an account added by hand while invited: accepting uses the invitation up and keeps the membership as it is', async () => {
    const { api } = ctx();
    const ws = await createWorkspace(api);
    const invitee = await signUp(api, 'Both');
    const { token } = await invite(ws, invitee.user.email, 'admin');
    expect((await api.post(`/api/workspaces/${ws.slug}/members/`, { email: invitee.user.email, role: 'guest' }, { token: ws.admin.token })).status).toBe(201);
    const accepted = await api.post(`/api/invitations/${token}/accept/`, undefined, { token: invitee.token });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body).toMatchObject({ user_id: invitee.user.id, role: 'guest' });
    expect((await api.get(invitationsOf(ws.slug), { token: ws.admin.token })).body).toEqual([]);
  });
});
