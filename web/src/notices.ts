/**
 * "Being told" (contract 26) as the console reads it: the answers' shapes and the people-readable text of each kind of
 * notification. Shared by the inbox, the settings and the bell.
 */
import type { Answer } from './api.js';
import { codeName, date, dateTime } from './format.js';

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

const day = (v: string | undefined) => (v ? date(v) : v);

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
      return {
        text: `${who} changed the priority of ${issue}`,
        detail: `Priority ${arrow(change(d, 'priority').map((p) => p && codeName(p)) as [string | undefined, string | undefined])}`,
      };
    case 'due_date_changed': {
      const [from, to] = change(d, 'target_date');
      const due = day(str(d.target_date) ?? to);
      return { text: `${who} changed the due date of ${issue}`, detail: due ? `Due ${from ? `${day(from)} → ` : ''}${due}` : 'Due date removed' };
    }
    case 'sla_at_risk':
      return { text: `${issue} is at risk of missing its ${target(d)} target`, detail: dueLine(d) };
    case 'sla_breached':
      return { text: `${issue} breached its ${target(d)} target`, detail: dueLine(d) };
    case 'invited': {
      const ws = named(d.workspace) ?? str(d.workspace_name) ?? n.workspace_slug;
      const role = str(d.role);
      return {
        text: `${who} invited you to ${ws}${role ? ` as ${codeName(role).toLowerCase()}` : ''}`,
        detail: 'Open the link in the invitation mail to join.',
      };
    }
    default:
      return { text: `${who}: ${codeName(String(n.kind)).toLowerCase()} ${issue}` };
  }
}

/** The SLA target a notice is about, named ("response", "resolution"). */
function target(d: Record<string, unknown>): string {
  const t = str(d.target) ?? str(d.metric);
  return t ? codeName(t).toLowerCase() : 'SLA';
}

function dueLine(d: Record<string, unknown>): string | undefined {
  const due = str(d.due_at) ?? str(d.due);
  return due ? `Due ${dateTime(due)}` : undefined;
}
