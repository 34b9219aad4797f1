import { DateTime } from 'luxon';
import type { MailInput } from '../../kernel/notices.js';
import { isTimeZone } from './mail.rules.js';

// What a notification mail says (contract 26.3): plain text and HTML (everything user-written escaped), a link to the
// issue in the console, and the unsubscribe links. Pure functions of the queued items' payloads.

/** What the queue keeps of a notification to render it later (copied when it was written). */
export interface NotificationPayload {
  kind: string;
  data: Record<string, unknown>;
  workspace: { id: string; slug: string | null; name: string | null };
  issue: { id: string; key: string | null; name: string | null; project_id: string | null } | null;
  actor: string | null;
  created_at: string;
}

export interface RenderContext {
  publicBaseUrl: string;
  recipient: { email: string; display_name: string; time_zone: string };
  /** The signed unsubscribe link of a kind (or `*`: every notification mail). */
  unsubscribeUrl: (scope: string) => string;
}

export const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** One line of text, at most `max` characters, no control characters (a subject or an excerpt). */
const oneLine = (text: string, max = 200): string => {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

const KIND_NAMES: Record<string, string> = {
  assigned: 'assignments',
  mentioned: 'mentions',
  commented: 'comments',
  state_changed: 'state changes',
  priority_changed: 'priority changes',
  due_date_changed: 'due date changes',
  sla_at_risk: 'SLA targets at risk',
  sla_breached: 'SLA targets breached',
  invited: 'invitations',
};
export const kindName = (kind: string): string => KIND_NAMES[kind] ?? kind.replace(/_/g, ' ');

/** A value of `data` as text: a string, a number, `{name}` / `{label}` objects; anything else is left out. */
function valueText(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'string') return oneLine(value, 120);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    for (const k of ['name', 'label', 'display_name', 'title']) if (typeof o[k] === 'string') return oneLine(o[k], 120);
  }
  return null;
}

const str = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? oneLine(value, 300) : null);

/** The console's page of the item: the issue, the workspace (an invitation), or the console. */
export function itemUrl(base: string, p: NotificationPayload): string {
  const slug = p.workspace.slug ? encodeURIComponent(p.workspace.slug) : null;
  if (slug && p.issue?.project_id) return `${base}/app/w/${slug}/p/${encodeURIComponent(p.issue.project_id)}/issues/${encodeURIComponent(p.issue.id)}`;
  if (slug) return `${base}/app/w/${slug}`;
  return `${base}/app/`;
}

/** What happened, in one sentence (plain text; the HTML escapes it). Unknown kinds or data: a generic line. */
export function describe(p: NotificationPayload, zone: string): string {
  const who = p.actor ? oneLine(p.actor, 80) : 'Someone';
  const issue = p.issue ? [p.issue.key, p.issue.name ? oneLine(p.issue.name, 120) : null].filter(Boolean).join(' ') || 'an issue' : 'an issue';
  const d = p.data ?? {};
  const fromTo = (none: string) => `from ${valueText(d.from) ?? none} to ${valueText(d.to) ?? none}`;
  const excerpt = str(d.excerpt);
  switch (p.kind) {
    case 'assigned':
      return `${who} assigned you to ${issue}`;
    case 'mentioned':
      return `${who} mentioned you in ${issue}${excerpt ? `: "${excerpt}"` : ''}`;
    case 'commented':
      return `${who} commented on ${issue}${excerpt ? `: "${excerpt}"` : ''}`;
    case 'state_changed':
      return `${who} changed the state of ${issue} ${fromTo('none')}`;
    case 'priority_changed':
      return `${who} changed the priority of ${issue} ${fromTo('none')}`;
    case 'due_date_changed':
      return `${who} changed the due date of ${issue} ${fromTo('none')}`;
    case 'sla_at_risk':
    case 'sla_breached': {
      const metric = valueText(d.metric) ?? valueText(d.target) ?? 'SLA';
      const due = typeof d.due_at === 'string' ? localTime(d.due_at, zone) : null;
      const what = p.kind === 'sla_at_risk' ? 'is at risk' : 'was breached';
      return `The ${metric} target of ${issue} ${what}${due ? ` (due ${due})` : ''}`;
    }
    case 'invited': {
      const workspace = valueText(d.workspace_name) ?? (p.workspace.name ? oneLine(p.workspace.name, 120) : null) ?? p.workspace.slug ?? 'a workspace';
      return `${who} invited you to ${workspace}`;
    }
    default:
      return `${kindName(p.kind)}: ${issue}${p.actor ? ` (${who})` : ''}`;
  }
}

/** A timestamp as the recipient reads it: `2026-11-21 12:30 (Europe/Istanbul)`. */
export function localTime(iso: string, zone: string): string | null {
  const at = DateTime.fromISO(iso, { zone: isTimeZone(zone) ? zone : 'UTC' });
  return at.isValid ? `${at.toFormat('yyyy-LL-dd HH:mm')} (${at.zoneName})` : null;
}

/**
 * One mail for a user's notifications: `notification` (an instant batch) or `digest`. Its subject names the one item,
 * or counts them; the body lists them oldest first, each with its link; the footer has the unsubscribe links (one per
 * kind the mail holds) and `List-Unsubscribe` names one kind when the mail holds one, else every notification mail.
 */
export function renderNotificationMail(
  items: NotificationPayload[],
  category: 'notification' | 'digest',
  ctx: RenderContext,
): Pick<MailInput, 'subject' | 'text' | 'html' | 'headers' | 'category'> {
  const zone = ctx.recipient.time_zone;
  const lines = items.map((p) => ({ text: describe(p, zone), url: itemUrl(ctx.publicBaseUrl, p), workspace: p.workspace.slug }));
  const kinds = [...new Set(items.map((p) => p.kind))];
  const first = lines[0]!;
  const subject =
    category === 'digest'
      ? `Your daily digest: ${items.length} notification${items.length === 1 ? '' : 's'}`
      : items.length === 1
        ? oneLine(first.text, 150)
        : `${items.length} new notifications: ${oneLine(first.text, 100)}`;
  const scope = kinds.length === 1 ? kinds[0]! : '*';
  const oneClick = ctx.unsubscribeUrl(scope);
  const settingsUrl = `${ctx.publicBaseUrl}/app/settings/notifications`;
  const greeting = `Hello ${oneLine(ctx.recipient.display_name, 80)},`;
  const intro =
    category === 'digest'
      ? 'here is what happened since your last digest:'
      : items.length === 1
        ? 'you have a new notification:'
        : 'you have new notifications:';

  const text = [
    greeting,
    '',
    intro,
    '',
    ...lines.flatMap((l) => [`- ${l.text}${l.workspace ? ` [${l.workspace}]` : ''}`, `  ${l.url}`]),
    '',
    '--',
    `Notification settings: ${settingsUrl}`,
    ...kinds.map((k) => `Stop e-mails about ${kindName(k)}: ${ctx.unsubscribeUrl(k)}`),
    '',
  ].join('\n');

  const e = escapeHtml;
  const html = [
    '<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>',
    '<body style="font-family: system-ui, sans-serif; color: #1f2328; line-height: 1.5">',
    `<p>${e(greeting)}</p><p>${e(intro)}</p><ul>`,
    ...lines.map((l) => `<li><a href="${e(l.url)}">${e(l.text)}</a>${l.workspace ? ` <span style="color:#656d76">[${e(l.workspace)}]</span>` : ''}</li>`),
    '</ul><hr><p style="font-size: 12px; color: #656d76">',
    `<a href="${e(settingsUrl)}">Notification settings</a>`,
    ...kinds.map((k) => ` · <a href="${e(ctx.unsubscribeUrl(k))}">Stop e-mails about ${e(kindName(k))}</a>`),
    '</p></body></html>',
  ].join('\n');

  return {
    category,
    subject,
    text,
    html,
    headers: { 'List-Unsubscribe': `<${oneClick}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
}
