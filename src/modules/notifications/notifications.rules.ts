import { NOTIFICATION_KINDS, type NotificationInput } from '../../kernel/notices.js';

/** The characters of an e-mail address as a mention reads it (RFC 5322's common subset). */
const EMAIL_CHAR = /[A-Za-z0-9._%+\-@]/;

/**
 * The addresses a text could mention: each `@` that does not follow an address character (so `a@b.c` itself is no
 * mention of `b.c`), followed by the longest run of address characters, less trailing dots (`@ana@x.com.` at the end
 * of a sentence mentions `ana@x.com`). Lower case; a run that is no member's e-mail mentions no one.
 */
export function mentionCandidates(text: string): Set<string> {
  const found = new Set<string>();
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    if (at > 0 && EMAIL_CHAR.test(text[at - 1]!)) continue;
    let end = at + 1;
    while (end < text.length && EMAIL_CHAR.test(text[end]!)) end++;
    const run = text.slice(at + 1, end).replace(/\.+$/, '');
    if (/^[^@]+@[^@]+$/.test(run)) found.add(run.toLowerCase());
  }
  return found;
}

/** The members (`email` → user id, e-mails lower case) a text mentions: `@` followed by a member's e-mail, any case. */
export function mentionedMembers(text: string, members: ReadonlyMap<string, string>): Set<string> {
  const ids = new Set<string>();
  for (const email of mentionCandidates(text)) {
    const id = members.get(email);
    if (id !== undefined) ids.add(id);
  }
  return ids;
}

/** What the inbox and the mails quote of a comment or description: its first ~200 characters, on one line. */
export function excerptOf(text: string, max = 200): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}

const RANK = new Map<string, number>(NOTIFICATION_KINDS.map((kind, i) => [kind, i]));

/**
 * Who is told of one change (contract 26.2): never its actor, and exactly one notification per change and recipient,
 * of the kind listed first in NOTIFICATION_KINDS when several apply. A change is an issue (or, without one, a
 * workspace): the notifications of one call with the same recipient and issue are one change.
 */
export function selectNotifications(inputs: NotificationInput[]): NotificationInput[] {
  const chosen = new Map<string, NotificationInput>();
  for (const input of inputs) {
    if (input.actorId !== null && input.actorId === input.userId) continue;
    const key = `${input.workspaceId}|${input.userId}|${input.issueId ?? ''}`;
    const held = chosen.get(key);
    if (!held || RANK.get(input.kind)! < RANK.get(held.kind)!) chosen.set(key, input);
  }
  return [...chosen.values()];
}
