import { createHmac, timingSafeEqual } from 'node:crypto';
import { DateTime, IANAZone } from 'luxon';
import { isUuid } from '../../kernel/ids.js';
import { NOTIFICATION_KINDS, type NotificationKind } from '../../kernel/notices.js';
import type { EmailMode } from '../../db/tables/mail.js';

// The rules of e-mail (contract 26.3) as plain functions: who gets what when, retries, the unsubscribe tokens.

/** Kinds that go at once with `email: instant`; the others wait for the daily digest. */
export const INSTANT_KINDS: ReadonlySet<string> = new Set<NotificationKind>(['assigned', 'mentioned', 'sla_at_risk', 'sla_breached', 'invited']);

export interface EmailSettings {
  email: EmailMode;
  digest_hour: number;
  kinds_off: readonly string[];
}

/**
 * Kinds whose mail another module sends itself: `invited` (the invitations module mails every invitation, with its
 * accept link, whatever the settings; a second, notification mail about it would say less, twice).
 */
export const SELF_MAILED_KINDS: ReadonlySet<string> = new Set<NotificationKind>(['invited']);

/** How a notification of `kind` is mailed to a user with these settings: at once (batched), in the digest, or not. */
export function routeNotification(settings: EmailSettings, kind: string): 'instant' | 'digest' | null {
  if (SELF_MAILED_KINDS.has(kind) || settings.email === 'off' || settings.kinds_off.includes(kind)) return null;
  if (settings.email === 'digest') return 'digest';
  return INSTANT_KINDS.has(kind) ? 'instant' : 'digest';
}

export const isTimeZone = (zone: string): boolean => zone.length <= 64 && IANAZone.isValidZone(zone);

/**
 * The first moment strictly after `now` when the clock in `zone` shows `hour`:00. On a day when that hour does not
 * exist (the spring-forward gap) it is the first moment after the gap; when it happens twice (fall back), the second
 * (standard time, as luxon resolves it): one digest that day either way.
 */
export function nextDigestAt(now: Date, hour: number, zone: string): Date {
  const local = DateTime.fromJSDate(now, { zone: isTimeZone(zone) ? zone : 'UTC' });
  for (let days = 0; days <= 2; days++) {
    const day = local.plus({ days });
    let at = DateTime.fromObject({ year: day.year, month: day.month, day: day.day, hour, minute: 0, second: 0, millisecond: 0 }, { zone: local.zone });
    // hour:00 fell in a gap (spring forward): Luxon moves it on by the gap's length, which overshoots a gap that does
    // not end on the hour (Chatham's 02:45 to 03:45 made the 03:00 digest 04:00). The digest is at the gap's end.
    if (at.hour !== hour) at = gapEnd(at);
    if (at.toMillis() > now.getTime()) return at.toJSDate();
  }
  /* c8 ignore next */
  throw new Error('unreachable: an hour of the next two days is after now');
}

/** The first minute at `at`'s offset after a change of offset in the two hours before it (a DST gap's end). */
function gapEnd<T extends DateTime>(at: T): T {
  let end = at;
  for (let minutes = 1; minutes <= 120; minutes++) {
    const earlier = at.minus({ minutes }) as T;
    if (earlier.offset !== at.offset) break;
    end = earlier;
  }
  return end;
}

/** When to try again after the `attempts`-th attempt failed for a passing reason; null: no retry left. */
export function nextAttemptAt(now: Date, attempts: number, scheduleS: readonly number[]): Date | null {
  const wait = scheduleS[attempts - 1];
  return wait === undefined ? null : new Date(now.getTime() + wait * 1000);
}

/** What an SMTP failure means: `permanent` (a 5xx answer to the message) ends the mail; anything else is retried. */
export function classifySmtpError(err: unknown): { permanent: boolean; answer: string } {
  const e = (err ?? {}) as { responseCode?: unknown; response?: unknown; code?: unknown; message?: unknown };
  const code = typeof e.responseCode === 'number' ? e.responseCode : null;
  const response = typeof e.response === 'string' && e.response ? e.response : null;
  const answer = (response ?? (typeof e.message === 'string' ? e.message : String(err))).slice(0, 1000);
  // A refused sign-in (EAUTH) is the instance's configuration, not the mail's fault: retried until it is fixed.
  const permanent = code !== null && code >= 500 && code < 600 && e.code !== 'EAUTH';
  return { permanent, answer: code !== null && response === null ? `${code} ${answer}` : answer };
}

/** The domain of MAIL_FROM's address, for Message-IDs (`<id@domain>`). */
export function messageIdDomain(from: string): string {
  const address = /<([^<>]+)>\s*$/.exec(from)?.[1] ?? from;
  const at = address.lastIndexOf('@');
  const domain = at < 0 ? '' : address.slice(at + 1).trim();
  return /^[A-Za-z0-9.-]+$/.test(domain) ? domain : 'localhost';
}

// ---- unsubscribe tokens ----

/** What an unsubscribe link turns off: one kind, or (`*`) every notification mail. */
export type UnsubscribeScope = NotificationKind | '*';

const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64url');
const mac = (key: string, userId: string, scope: string) => createHmac('sha256', key).update(`mail-unsubscribe:v1:${userId}:${scope}`).digest();

const uuidBytes = (id: string) => Buffer.from(id.replace(/-/g, ''), 'hex');
const uuidText = (b: Buffer) => {
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

/**
 * A token naming the user and what to turn off, signed with HMAC-SHA256 under the instance's key: base64url of the
 * user id's 16 bytes and the scope, a dot, base64url of the MAC (at most 87 characters: a path segment of Fastify's
 * router holds 100).
 */
export function signUnsubscribe(key: string, userId: string, scope: UnsubscribeScope): string {
  return `${b64(Buffer.concat([uuidBytes(userId), Buffer.from(scope)]))}.${b64(mac(key, userId, scope))}`;
}

/** The user and scope of a token, or null when it is malformed, tampered with or signed by another key. */
export function verifyUnsubscribe(key: string, token: string): { userId: string; scope: UnsubscribeScope } | null {
  if (token.length > 300) return null;
  const [body, signature, extra] = token.split('.');
  if (!body || !signature || extra !== undefined) return null;
  const bytes = Buffer.from(body, 'base64url');
  if (bytes.length < 17) return null;
  const userId = uuidText(bytes.subarray(0, 16));
  const scope = bytes.subarray(16).toString('utf8');
  if (!isUuid(userId) || (scope !== '*' && !(NOTIFICATION_KINDS as readonly string[]).includes(scope))) return null;
  const expected = mac(key, userId, scope);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return { userId, scope: scope as UnsubscribeScope };
}
