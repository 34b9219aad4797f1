import { createHash, randomBytes } from 'node:crypto';
import { DAY_MS, HOUR_MS } from '../../kernel/clock.js';

/** Rules of invitations (26.4) and password reset (26.5): plain functions, no I/O. */

/** An invitation is valid 7 days from when it was sent (or last re-sent). */
export const INVITATION_TTL_MS = 7 * DAY_MS;
/** A password reset token is valid one hour. */
export const RESET_TTL_MS = HOUR_MS;
/**
 * `POST /api/auth/password-reset/` answers no sooner than this after it started, whether or not the e-mail has an
 * account, so that the answer's time does not tell (the work for a known address is a few milliseconds more).
 */
export const RESET_ANSWER_MS = 200;

/** 32 random bytes, base64url: 43 characters. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** A new token (32 random bytes, base64url) and the sha256 that is stored in its place. */
export function newToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Whether a string could be one of our tokens (anything else is unknown without a database look-up). */
export const isTokenShaped = (token: string): boolean => TOKEN_SHAPE.test(token);

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

export type InvitationState = 'pending' | 'accepted' | 'revoked' | 'expired';

export function invitationState(row: { accepted_at: Date | null; revoked_at: Date | null; expires_at: Date }, now: Date): InvitationState {
  if (row.accepted_at) return 'accepted';
  if (row.revoked_at) return 'revoked';
  return row.expires_at.getTime() > now.getTime() ? 'pending' : 'expired';
}

export const invitationLink = (publicBaseUrl: string, token: string): string => `${publicBaseUrl.replace(/\/+$/, '')}/app/invitations/${token}`;
export const resetLink = (publicBaseUrl: string, token: string): string => `${publicBaseUrl.replace(/\/+$/, '')}/app/password-reset/${token}`;

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

/** A header value without line breaks (a workspace's or person's name in the subject). */
const oneLine = (text: string): string => text.replace(/[\r\n\t]+/g, ' ').trim();

export interface Mail {
  subject: string;
  text: string;
  html: string;
}

export function invitationMail(input: {
  workspace: { name: string; slug: string };
  inviter: string | null;
  role: string;
  link: string;
  expiresAt: Date;
  hasAccount: boolean;
}): Mail {
  const who = input.inviter ? oneLine(input.inviter) : 'An admin';
  const name = oneLine(input.workspace.name);
  const until = input.expiresAt.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
  const next = input.hasAccount ? 'Sign in and accept the invitation:' : 'Accept it and create your account:';
  const text = [
    `${who} invited you to join the workspace "${name}" as ${input.role}.`,
    '',
    next,
    input.link,
    '',
    `The link works once and until ${until}. If you did not expect this invitation, ignore this mail.`,
  ].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family: sans-serif">',
    `<p>${escapeHtml(who)} invited you to join the workspace <strong>${escapeHtml(name)}</strong> as ${escapeHtml(input.role)}.</p>`,
    `<p>${escapeHtml(next)}</p>`,
    `<p><a href="${escapeHtml(input.link)}">${escapeHtml(input.link)}</a></p>`,
    `<p style="color: #666">The link works once and until ${escapeHtml(until)}. If you did not expect this invitation, ignore this mail.</p>`,
    '</body></html>',
  ].join('\n');
  return { subject: `${who} invited you to ${name}`, text, html };
}

export function resetMail(input: { link: string; displayName: string }): Mail {
  const text = [
    `Hello ${oneLine(input.displayName)},`,
    '',
    'Someone (hopefully you) asked to reset the password of your account. Choose a new password here:',
    input.link,
    '',
    'The link works once and for one hour. Setting a new password signs you out everywhere; your API tokens keep working.',
    'If you did not ask for this, ignore this mail: your password stays as it is.',
  ].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family: sans-serif">',
    `<p>Hello ${escapeHtml(oneLine(input.displayName))},</p>`,
    '<p>Someone (hopefully you) asked to reset the password of your account. Choose a new password here:</p>',
    `<p><a href="${escapeHtml(input.link)}">${escapeHtml(input.link)}</a></p>`,
    '<p style="color: #666">The link works once and for one hour. Setting a new password signs you out everywhere; your API tokens keep working. ' +
      'If you did not ask for this, ignore this mail: your password stays as it is.</p>',
    '</body></html>',
  ].join('\n');
  return { subject: 'Reset your password', text, html };
}
