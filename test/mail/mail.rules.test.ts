/** The rules of e-mail as plain functions: routing, the digest time across zones and DST, retries, tokens, rendering. */
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { escapeHtml, renderNotificationMail, type NotificationPayload } from '../../src/modules/mail/mail.render.js';
import {
  classifySmtpError,
  messageIdDomain,
  nextAttemptAt,
  nextDigestAt,
  routeNotification,
  signUnsubscribe,
  verifyUnsubscribe,
} from '../../src/modules/mail/mail.rules.js';
import { NOTIFICATION_KINDS } from '../../src/kernel/notices.js';

const ZONES = [
  'UTC',
  'Europe/Istanbul',
  'Europe/Berlin',
  'America/New_York',
  'America/Sao_Paulo',
  'Australia/Lord_Howe',
  'Asia/Kolkata',
  'Pacific/Chatham',
  'America/St_Johns',
  'Pacific/Kiritimati',
];

describe('routing a notification by the settings', () => {
  it('instant: assigned, mentioned and SLA at once, the rest in the digest; digest: all; off or kind off: none; invited: its own mail', () => {
    const instant = { email: 'instant' as const, digest_hour: 8, kinds_off: [] };
    expect(NOTIFICATION_KINDS.filter((k) => routeNotification(instant, k) === 'instant')).toEqual(['assigned', 'mentioned', 'sla_at_risk', 'sla_breached']);
    // The invitations module mails each invitation (with its link) itself.
    expect(routeNotification(instant, 'invited')).toBeNull();
    expect(NOTIFICATION_KINDS.filter((k) => routeNotification(instant, k) === 'digest')).toEqual([
      'commented',
      'state_changed',
      'priority_changed',
      'due_date_changed',
    ]);
    expect(NOTIFICATION_KINDS.every((k) => k === 'invited' || routeNotification({ ...instant, email: 'digest' }, k) === 'digest')).toBe(true);
    expect(NOTIFICATION_KINDS.every((k) => routeNotification({ ...instant, email: 'off' }, k) === null)).toBe(true);
    expect(routeNotification({ ...instant, kinds_off: ['assigned'] }, 'assigned')).toBeNull();
    expect(routeNotification({ ...instant, kinds_off: ['assigned'] }, 'mentioned')).toBe('instant');
  });
});

describe('the digest time', () => {
  it('is the next time the clock of the zone shows the hour: after now, within 25 hours, at that local hour (or just after a DST gap)', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2035-12-31T00:00:00Z'), noInvalidDate: true }),
        fc.integer({ min: 0, max: 23 }),
        fc.constantFrom(...ZONES),
        (now, hour, zone) => {
          const at = nextDigestAt(now, hour, zone);
          expect(at.getTime()).toBeGreaterThan(now.getTime());
          expect(at.getTime() - now.getTime()).toBeLessThanOrEqual(25 * 3_600_000);
          const local = DateTime.fromJSDate(at, { zone });
          if (local.hour !== hour || local.minute !== 0) {
            // hour:00 does not exist that day (spring forward, by an hour, or by 30 minutes on Lord Howe Island): the
            // first moment after the gap, where the offset changes.
            expect(DateTime.fromMillis(at.getTime() - 60_000, { zone }).offset).not.toBe(local.offset);
            expect(local.minus({ hours: 1 }).hour).not.toBe(hour);
          }
          // Nothing earlier after now is at that hour: the moment an hour before is not a matching time after now.
          // (Fall back: an hour that happens twice is the digest's at its second, standard-time occurrence, by the rule
          // of nextDigestAt; the first occurrence an hour before, at another offset, is skipped on purpose.)
          const before = DateTime.fromJSDate(new Date(at.getTime() - 3_600_000), { zone });
          const repeated = before.offset !== local.offset;
          if (before.toMillis() > now.getTime() && !repeated) expect(before.hour === hour && before.minute === 0).toBe(false);
        },
      ),
      // Lord Howe Island springs forward by 30 minutes: its 02:00 digest comes at 02:30 (a counterexample CI found).
      // Chatham springs forward from 02:45 to 03:45: its 03:00 digest comes at 03:45 (another counterexample CI found).
      {
        numRuns: 3000,
        examples: [
          [new Date('2023-09-29T15:30:00.000Z'), 2, 'Australia/Lord_Howe'],
          [new Date('2021-09-24T14:15:00.000Z'), 3, 'Pacific/Chatham'],
        ],
      },
    );
  });

  it('handles the days of a DST change (Berlin springs forward at 02:00, falls back at 03:00)', () => {
    // 2026-03-29: 02:00 does not exist in Berlin; the 02:00 digest comes at 03:00 CEST (01:00Z).
    expect(nextDigestAt(new Date('2026-03-28T23:00:00Z'), 2, 'Europe/Berlin').toISOString()).toBe('2026-03-29T01:00:00.000Z');
    // The property's counterexample: at 02:00 CEST the day before the fall back, the next 02:00 is the second one.
    expect(nextDigestAt(new Date('2033-10-29T00:00:00Z'), 2, 'Europe/Berlin').toISOString()).toBe('2033-10-30T01:00:00.000Z');
    // 2026-10-25: 02:00 happens twice; the second (CET, 01:00Z) is taken, once, and the next one is a day later.
    const first = nextDigestAt(new Date('2026-10-24T23:30:00Z'), 2, 'Europe/Berlin');
    expect(first.toISOString()).toBe('2026-10-25T01:00:00.000Z');
    expect(nextDigestAt(first, 2, 'Europe/Berlin').toISOString()).toBe('2026-10-26T01:00:00.000Z');
    // Istanbul is UTC+3 all year; 9:00 there is 06:00Z.
    expect(nextDigestAt(new Date('2026-01-15T09:00:00Z'), 9, 'Europe/Istanbul').toISOString()).toBe('2026-01-16T06:00:00.000Z');
    expect(nextDigestAt(new Date('2026-01-15T05:59:59Z'), 9, 'Europe/Istanbul').toISOString()).toBe('2026-01-15T06:00:00.000Z');
    // An unknown zone reads as UTC.
    expect(nextDigestAt(new Date('2026-01-15T09:00:00Z'), 8, 'Mars/Olympus').toISOString()).toBe('2026-01-16T08:00:00.000Z');
  });
});

describe('retries and SMTP answers', () => {
  it('waits the schedule, then gives up', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(nextAttemptAt(now, 1, [10, 60])?.toISOString()).toBe('2026-01-01T00:00:10.000Z');
    expect(nextAttemptAt(now, 2, [10, 60])?.toISOString()).toBe('2026-01-01T00:01:00.000Z');
    expect(nextAttemptAt(now, 3, [10, 60])).toBeNull();
  });

  it('a 5xx is permanent, a 4xx or a connection error passes, a refused sign-in is retried', () => {
    expect(classifySmtpError({ responseCode: 550, response: '550 5.1.1 No such user' })).toEqual({ permanent: true, answer: '550 5.1.1 No such user' });
    expect(classifySmtpError({ responseCode: 451, response: '451 Try later' })).toEqual({ permanent: false, answer: '451 Try later' });
    expect(classifySmtpError({ code: 'ESOCKET', message: 'connect ECONNREFUSED 127.0.0.1:1' })).toEqual({
      permanent: false,
      answer: 'connect ECONNREFUSED 127.0.0.1:1',
    });
    expect(classifySmtpError({ code: 'EAUTH', responseCode: 535, response: '535 Bad credentials' }).permanent).toBe(false);
  });

  it('names Message-IDs after the domain of MAIL_FROM', () => {
    expect(messageIdDomain('Service <no-reply@mail.example.com>')).toBe('mail.example.com');
    expect(messageIdDomain('a@b.test')).toBe('b.test');
    expect(messageIdDomain('weird')).toBe('localhost');
  });
});

describe('unsubscribe tokens', () => {
  const key = 'k'.repeat(43);
  const user = '01900000-0000-7000-8000-000000000001';
  it('verify what they sign, and nothing tampered with or signed by another key', () => {
    const token = signUnsubscribe(key, user, 'commented');
    expect(verifyUnsubscribe(key, token)).toEqual({ userId: user, scope: 'commented' });
    expect(verifyUnsubscribe(key, signUnsubscribe(key, user, '*'))).toEqual({ userId: user, scope: '*' });
    expect(verifyUnsubscribe('other', token)).toBeNull();
    const [body, sig] = token.split('.') as [string, string];
    expect(token.length).toBeLessThanOrEqual(100);
    expect(signUnsubscribe(key, user, 'priority_changed').length).toBeLessThanOrEqual(87);
    const forged = Buffer.concat([Buffer.from(user.replace(/-/g, ''), 'hex'), Buffer.from('assigned')]).toString('base64url');
    expect(verifyUnsubscribe(key, `${forged}.${sig}`)).toBeNull();
    expect(verifyUnsubscribe(key, `${body}.${sig.slice(0, -2)}AA`)).toBeNull();
    expect(verifyUnsubscribe(key, `${body}`)).toBeNull();
    expect(verifyUnsubscribe(key, `${Buffer.from('x:assigned').toString('base64url')}.${sig}`)).toBeNull();
    expect(
      verifyUnsubscribe(key, `${Buffer.concat([Buffer.from(user.replace(/-/g, ''), 'hex'), Buffer.from('nope')]).toString('base64url')}.${sig}`),
    ).toBeNull();
  });
});

describe('rendering', () => {
  const payload = (over: Partial<NotificationPayload> = {}): NotificationPayload => ({
    kind: 'assigned',
    data: { project_id: 'p1' },
    workspace: { id: 'w', slug: 'acme', name: 'Acme' },
    issue: { id: 'i1', key: 'WEB-1', name: '<script>alert(1)</script> & "more"', project_id: 'p1' },
    actor: 'Ada <admin>',
    created_at: '2026-01-01T00:00:00.000Z',
    ...over,
  });
  const ctx = {
    publicBaseUrl: 'https://wis.example.com',
    recipient: { email: 'm@example.com', display_name: 'Mia', time_zone: 'UTC' },
    unsubscribeUrl: (scope: string) => `https://wis.example.com/api/mail/unsubscribe/tok-${scope}/`,
  };

  it('escapes everything user-written in the HTML and links the issue in the console', () => {
    const mail = renderNotificationMail([payload()], 'notification', ctx);
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain(escapeHtml('<script>alert(1)</script> & "more"'));
    expect(mail.html).toContain(escapeHtml('Ada <admin>'));
    expect(mail.text).toContain('Ada <admin> assigned you to WEB-1 <script>alert(1)</script> & "more"');
    expect(mail.text).toContain('https://wis.example.com/app/w/acme/p/p1/issues/i1');
    expect(mail.headers).toEqual({
      'List-Unsubscribe': '<https://wis.example.com/api/mail/unsubscribe/tok-assigned/>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
  });

  it('renders every kind, and unknown kinds or data as a generic line', () => {
    const lines = [
      payload({ kind: 'mentioned', data: { excerpt: 'hey @m' } }),
      payload({ kind: 'commented', data: { excerpt: 'looks good' } }),
      payload({ kind: 'state_changed', data: { from: { name: 'Todo' }, to: { name: 'Done' } } }),
      payload({ kind: 'priority_changed', data: { from: 'low', to: 'urgent' } }),
      payload({ kind: 'due_date_changed', data: { from: null, to: '2026-02-01' } }),
      payload({ kind: 'sla_breached', actor: null, data: { metric: 'resolution', due_at: '2026-01-02T10:00:00.000Z' } }),
      payload({ kind: 'invited', issue: null, data: {} }),
      payload({ kind: 'future_kind', data: { weird: [1, { x: 2 }] } }),
      payload({ kind: 'state_changed', data: { from: [1], to: 42 } }),
    ];
    const mail = renderNotificationMail(lines, 'digest', ctx);
    expect(mail.subject).toBe('Your daily digest: 9 notifications');
    expect(mail.text).toContain('mentioned you in WEB-1');
    expect(mail.text).toContain(': "looks good"');
    expect(mail.text).toContain('from Todo to Done');
    expect(mail.text).toContain('from low to urgent');
    expect(mail.text).toContain('from none to 2026-02-01');
    expect(mail.text).toContain('The resolution target of WEB-1');
    expect(mail.text).toContain('(due 2026-01-02 10:00 (UTC))');
    expect(mail.text).toContain('Ada <admin> invited you to Acme');
    expect(mail.text).toContain('future kind: WEB-1');
    expect(mail.text).toContain('from none to 42');
    expect(mail.text).toContain('https://wis.example.com/app/w/acme\n');
    // Several kinds: the header turns notification mail off; the footer has a link per kind.
    expect(mail.headers!['List-Unsubscribe']).toBe('<https://wis.example.com/api/mail/unsubscribe/tok-*/>');
    expect(mail.text).toContain('Stop e-mails about comments: https://wis.example.com/api/mail/unsubscribe/tok-commented/');
  });
});
