/**
 * "Being told" (contract 26) as the console reads it: the answers' shapes and the people-readable text of each kind of
 * notification. Shared by the inbox, the settings and the bell.
 */
import type { Answer } from './api.js';

export { NOTICES_CHANGED, noticesChanged } from './notices-event.js';

export const KINDS = [
  'assigned',
  'mentioned',
  'commented',
  'state_changed',
  'priority_changed',
  'due_date_changed',
  'sla_at_risk',
  'sla_breached',
  'invited',
] as const;
export type Kind = (typeof KINDS)[number];
export const isKind = (value: string): value is Kind => (KINDS as readonly string[]).includes(value);

/** What each kind is called in filters and settings. */
export const KIND_LABELS: Record<Kind, string> = {
  assigned: 'Assigned to me',
  mentioned: 'Mentioned',
  commented: 'Comments',
  state_changed: 'State changes',
  priority_changed: 'Priority changes',
  due_date_changed: 'Due date changes',
  sla_at_risk: 'SLA at risk',
  sla_breached: 'SLA breached',
  invited: 'Invitations',
};

export type NotificationPage = Answer<'listNotifications'>;
export type Notification = NotificationPage['results'][number];
export type NotificationSettings = Answer<'getNotificationSettings'>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);

/** A value of `data` that may be a name or an object with one (`{name}`, `{display_name}`). */
function named(v: unknown): string | undefined {
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return str(o.name) ?? str(o.display_name) ?? str(o.label);
  }
  return str(v);
}

/** The before and after of a change in `data`, however the service spells them (`from`/`to`, `before`/`after`, `state: {from, to}`). */
export function change(data: Record<string, unknown>, field: string): [string | undefined, string | undefined] {
  const nested = data[field];
  if (nested && typeof nested === 'object' && !('name' in nested)) {
    const o = nested as Record<string, unknown>;
    return [named(o.from ?? o.before ?? o.old), named(o.to ?? o.after ?? o.new)];
  }
  return [
    named(data[`${field}_from`] ?? data[`from_${field}`] ?? data.from ?? data.before ?? data.old),
    named(data[`${field}_to`] ?? data[`to_${field}`] ?? data.to ?? data.after ?? data.new ?? nested),
  ];
}

const arrow = ([from, to]: [string | undefined, string | undefined]) => (from && to ? `${from} → ${to}` : (to ?? from ?? ''));

function day(v: string | undefined): string | undefined {
  if (!v) return v;
  const d = new Date(/^\d{4}-\d\d-\d\d$/.test(v) ? `${v}T00:00:00` : v);
  return Number.isNaN(d.getTime()) ? v : new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' }).format(d);
}

/**
 * The notification as a sentence: who did what to which issue ("Ada assigned you SD-12 Fix login"), and a detail
 * line (a comment's excerpt, "In Progress → Done").
 */
export function describe(n: Notification): { text: string; detail?: string } {
  const who = n.actor?.display_name ?? 'Someone';
  const issue = n.issue ? `${n.issue.key} ${n.issue.name}` : '';
  const d = n.data ?? {};
  const excerpt = str(d.excerpt) ?? str(d.body) ?? str(d.comment);
  switch (n.kind) {
    case 'assigned':
      return { text: `${who} assigned you ${issue}` };
    case 'mentioned':
      return { text: `${who} mentioned you in ${issue}`, detail: excerpt };
    case 'commented':
      return { text: `${who} commented on ${issue}`, detail: excerpt };
    case 'state_changed':
      return { text: `${who} changed the state of ${issue}`, detail: `State ${arrow(change(d, 'state'))}` };
    case 'priority_changed':
      return { text: `${who} changed the priority of ${issue}`, detail: `Priority ${arrow(change(d, 'priority'))}` };
    case 'due_date_changed': {
      const [from, to] = change(d, 'target_date');
      const due = day(str(d.target_date) ?? to);
      return { text: `${who} changed the due date of ${issue}`, detail: due ? `Due ${from ? `${day(from)} → ` : ''}${due}` : 'Due date removed' };
    }
    case 'sla_at_risk':
      return { text: `${issue} is at risk of missing its ${str(d.target) ?? str(d.metric) ?? 'SLA'} target`, detail: dueLine(d) };
    case 'sla_breached':
      return { text: `${issue} breached its ${str(d.target) ?? str(d.metric) ?? 'SLA'} target`, detail: dueLine(d) };
    case 'invited': {
      const ws = named(d.workspace) ?? str(d.workspace_name) ?? n.workspace_slug;
      const role = str(d.role);
      return { text: `${who} invited you to ${ws}${role ? ` as ${role}` : ''}`, detail: 'Open the link in the invitation mail to join.' };
    }
    default:
      return { text: `${who}: ${String(n.kind).replace(/_/g, ' ')} ${issue}` };
  }
}

function dueLine(d: Record<string, unknown>): string | undefined {
  const due = str(d.due_at) ?? str(d.due);
  return due ? `Due ${new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(due))}` : undefined;
}

/** "5 minutes ago", "in 2 hours", "3 days ago" (Intl). */
export function ago(iso: string, now = Date.now()): string {
  const s = (new Date(iso).getTime() - now) / 1000;
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  const abs = Math.abs(s);
  if (abs < 60) return rtf.format(Math.round(s), 'second');
  if (abs < 3600) return rtf.format(Math.round(s / 60), 'minute');
  if (abs < 86400) return rtf.format(Math.round(s / 3600), 'hour');
  if (abs < 86400 * 30) return rtf.format(Math.round(s / 86400), 'day');
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' }).format(new Date(iso));
}
