/** Mention parsing and the choice of notifications (contract 26.2), as plain functions. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { excerptOf, mentionCandidates, mentionedMembers, selectNotifications } from '../../src/modules/notifications/index.js';
import type { NotificationInput } from '../../src/kernel/notices.js';

const members = new Map([
  ['ana@example.com', 'u-ana'],
  ['bo.b+ops@mail.example.org', 'u-bob'],
  ['cem@example.co', 'u-cem'],
  ['cem@example.com', 'u-cem2'],
]);
const emails = [...members.keys()];

/** Text that cannot glue itself to an address: no address characters next to a mention. */
const SEPARATORS = [' ', '\n', ', ', '; ', '(', ')', '!', '?', ': ', '"', "'", '\t', '. '];
const filler = fc.string({ maxLength: 20 }).map((t) => t.replace(/[A-Za-z0-9._%+\-@]/g, ' '));
const randomCase = (email: string) =>
  fc.array(fc.boolean(), { minLength: email.length, maxLength: email.length }).map((up) => [...email].map((c, i) => (up[i] ? c.toUpperCase() : c)).join(''));

describe('mentions', () => {
  it('finds exactly the members mentioned, in any case, whatever text surrounds them', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            filler,
            fc.constantFrom(...SEPARATORS),
            fc.option(
              fc.constantFrom(...emails).chain((e) => randomCase(e).map((c) => [e, c] as const)),
              { nil: undefined },
            ),
          ),
          {
            maxLength: 8,
          },
        ),
        fc.string({ maxLength: 20 }).map((t) => t.replace(/@/g, '')),
        (parts, tail) => {
          let text = '';
          const expected = new Set<string>();
          for (const [noise, sep, mention] of parts) {
            text += noise + sep;
            if (mention) {
              text += `@${mention[1]}${sep}`;
              expected.add(members.get(mention[0])!);
            }
          }
          text += ` ${tail}`;
          expect(mentionedMembers(text, members)).toEqual(expected);
        },
      ),
    );
  });

  it('never finds a mention in text without @', () => {
    fc.assert(
      fc.property(
        fc.string().map((t) => t.replace(/@/g, '')),
        (text) => {
          expect(mentionCandidates(text).size).toBe(0);
        },
      ),
    );
  });

  it('reads the end of a sentence, and not an address inside another word or a longer address', () => {
    expect(mentionedMembers('Thanks @ana@example.com.', members)).toEqual(new Set(['u-ana']));
    expect(mentionedMembers('mail ana@example.com or x@ana@example.com', members)).toEqual(new Set());
    expect(mentionedMembers('@cem@example.com', members)).toEqual(new Set(['u-cem2']));
    expect(mentionedMembers('@cem@example.co', members)).toEqual(new Set(['u-cem']));
    expect(mentionedMembers('@cem@example.comx', members)).toEqual(new Set());
    expect(mentionedMembers('@nobody@example.com', members)).toEqual(new Set());
  });

  it('quotes the first 200 characters on one line', () => {
    expect(excerptOf('  a\n\nb  ')).toBe('a b');
    const long = excerptOf('y'.repeat(500));
    expect(long.length).toBe(200);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('selectNotifications', () => {
  const n = (userId: string, kind: NotificationInput['kind'], issueId: string | null = 'i1', actorId: string | null = 'actor'): NotificationInput => ({
    workspaceId: 'w',
    userId,
    issueId,
    kind,
    actorId,
    data: { kind },
  });

  it('drops the actor and keeps one per issue and recipient, of the kind listed first', () => {
    const chosen = selectNotifications([
      n('actor', 'assigned'),
      n('u1', 'state_changed'),
      n('u1', 'priority_changed'),
      n('u1', 'assigned'),
      n('u2', 'commented'),
      n('u2', 'mentioned'),
      n('u2', 'commented', 'i2'),
      n('u3', 'sla_breached', 'i1', null),
      n('u3', 'sla_at_risk', 'i1', null),
    ]);
    expect(chosen.map((c) => `${c.userId}:${c.issueId}:${c.kind}`).sort()).toEqual([
      'u1:i1:assigned',
      'u2:i1:mentioned',
      'u2:i2:commented',
      'u3:i1:sla_at_risk',
    ]);
  });
});
