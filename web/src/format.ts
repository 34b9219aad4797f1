/**
 * The console's one way of showing dates, times, durations and codes (issue 41): everything goes through `Intl` in the
 * browser's locale and the user's time zone (the profile's `time_zone` once known, else the browser's). Pages never
 * format a date or a duration by hand and never show a raw code (`past_due`, `multi_select`) to a person.
 */

let userZone: string | null = null;

/** The time zone the console shows times in: the user's profile zone once the shell has read it, else the browser's. */
export function timeZone(): string {
  return userZone ?? (Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
}

/** Set by the shell after reading `GET /api/users/me/` (null: follow the browser). */
export function setTimeZone(zone: string | null | undefined): void {
  userZone = zone || null;
}

const cache = new Map<string, Intl.DateTimeFormat>();
function dtf(key: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const k = `${key}|${timeZone()}`;
  let f = cache.get(k);
  if (!f) {
    f = new Intl.DateTimeFormat(undefined, { timeZone: options.timeZone ?? timeZone(), ...options });
    cache.set(k, f);
  }
  return f;
}

const valid = (d: Date) => !Number.isNaN(d.getTime());

/** An instant ("Nov 21, 2026, 2:40 PM" in en-US), in the user's zone. `—` for none. */
export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return valid(d) ? dtf('dt', { dateStyle: 'medium', timeStyle: 'short' }).format(d) : iso;
}

/** An instant with the weekday and zone, for a title attribute (hover) next to a relative time. */
export function dateTimeLong(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return valid(d) ? dtf('dtl', { dateStyle: 'full', timeStyle: 'long' }).format(d) : iso;
}

/** A calendar date (`YYYY-MM-DD`, no zone: the date itself) as "Nov 22, 2026"; an instant's date in the user's zone. */
export function date(value: string | null | undefined): string {
  if (!value) return '—';
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const d = new Date(`${value}T00:00:00Z`);
    return valid(d) ? dtf('dUTC', { dateStyle: 'medium', timeZone: 'UTC' }).format(d) : value;
  }
  const d = new Date(value);
  return valid(d) ? dtf('d', { dateStyle: 'medium' }).format(d) : value;
}

/** A calendar date (`YYYY-MM-DD`) short, for chart axes and table headers: "Jan 12"; with `weekday`, "Mon, Jan 12". */
export function dayMonth(value: string, weekday = false): string {
  const d = new Date(`${value}T00:00:00Z`);
  if (!valid(d)) return value;
  const options: Intl.DateTimeFormatOptions = { month: 'short', day: 'numeric', timeZone: 'UTC', ...(weekday ? { weekday: 'short' } : {}) };
  return dtf(weekday ? 'dmwUTC' : 'dmUTC', options).format(d);
}

/** A calendar date (`YYYY-MM-DD`) in its short form without the year ("Nov 3"), for chart axes. */
export function shortDate(value: string): string {
  const d = new Date(`${value}T00:00:00Z`);
  return valid(d) ? dtf('sdUTC', { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(d) : value;
}

/** A weekday by its index from Monday (0) to Sunday (6): "Monday", or "Mon" when `short`. */
export function weekday(index: number, short = false): string {
  // 2024-01-01 was a Monday.
  return dtf(short ? 'wdS' : 'wdL', { weekday: short ? 'short' : 'long', timeZone: 'UTC' }).format(new Date(Date.UTC(2024, 0, 1 + index)));
}

/** A wall-clock time `HH:MM` (no date, no zone) as the locale writes it ("9:00 AM"); "24:00" stays the end of the day. */
export function clockTime(hhmm: string): string {
  if (!/^\d{2}:\d{2}$/.test(hhmm) || hhmm === '24:00') return hhmm;
  const at = new Date(Date.UTC(1970, 0, 1, Number(hhmm.slice(0, 2)), Number(hhmm.slice(3))));
  return dtf('ctUTC', { hour: 'numeric', minute: '2-digit', timeZone: 'UTC' }).format(at);
}

/** A clock time of an instant ("2:40 PM"), in the user's zone. */
export function time(iso: string | Date): string {
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  return valid(d) ? dtf('t', { timeStyle: 'short' }).format(d) : String(iso);
}

/** The wall-clock value of an instant in the user's zone, as `<input type="datetime-local">` takes it (`2026-11-28T09:00`). */
export function localInput(at: Date): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: timeZone(),
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  }).formatToParts(at);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')}T${get('hour')}:${get('minute')}`;
}

/** The instant a wall-clock value (`2026-11-28T09:00`, a datetime-local input's) names in the user's zone. */
export function fromLocalInput(value: string): Date {
  const wall = Date.parse(`${value.length === 16 ? `${value}:00` : value}Z`);
  if (Number.isNaN(wall)) return new Date(NaN);
  const offsetAt = (t: number) => Date.parse(`${localInput(new Date(t))}:00Z`) - t;
  const first = wall - offsetAt(wall);
  return new Date(wall - offsetAt(first));
}

/** An hour of any day as a clock reads it ("7:00 AM", "19:00"): a digest hour, opening hours. */
export function clockHour(hour: number): string {
  return dtf('hUTC', { hour: 'numeric', minute: '2-digit', timeZone: 'UTC' }).format(Date.UTC(2000, 0, 1, hour));
}

/** Today's date in the user's zone (or `zone`, e.g. a workspace's), `YYYY-MM-DD` (for date inputs and API dates). */
export function today(now: Date = new Date(), zone: string = timeZone()): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(now);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')}`;
}

const units = new Map<string, Intl.NumberFormat>();
function unit(u: 'day' | 'hour' | 'minute' | 'second', n: number): string {
  let f = units.get(u);
  if (!f) {
    f = new Intl.NumberFormat(undefined, { style: 'unit', unit: u, unitDisplay: 'short', maximumFractionDigits: 0 });
    units.set(u, f);
  }
  return f.format(n);
}

/**
 * A length of time as people read it, the two largest units: "2 hr 10 min", "3 days 4 hr", "45 min", "20 sec".
 * The sign is dropped (the caller says "left" or "ago"). `—` for null.
 */
export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—';
  let s = Math.round(Math.abs(seconds));
  const d = Math.floor(s / 86_400);
  s -= d * 86_400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (d) return h ? `${unit('day', d)} ${unit('hour', h)}` : unit('day', d);
  if (h) return m ? `${unit('hour', h)} ${unit('minute', m)}` : unit('hour', h);
  if (m) return unit('minute', m);
  return unit('second', s);
}

/** A short time measured in milliseconds (a request's): "120 ms", "1.5 sec", longer ones as a `duration`. */
export function milliseconds(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms >= 60_000) return duration(ms / 1000);
  const [u, n] = ms < 1000 ? (['millisecond', ms] as const) : (['second', ms / 1000] as const);
  return new Intl.NumberFormat(undefined, { style: 'unit', unit: u, unitDisplay: 'short', maximumFractionDigits: u === 'second' ? 1 : 0 }).format(n);
}

/** Minutes (estimates, time spent) as a duration; `—` for null. */
export function minutes(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return Math.round(Math.abs(value)) === 0 ? unit('minute', 0) : duration(value * 60);
}

const rtf = () => new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
/** An instant relative to `now` in words: "3 hours ago", "in 2 days", "now". */
export function relative(iso: string | null | undefined, now: Date = new Date()): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (!valid(d)) return iso;
  const secs = Math.round((d.getTime() - now.getTime()) / 1000);
  const abs = Math.abs(secs);
  const f = rtf();
  if (abs < 45) return f.format(0, 'second');
  if (abs < 2700) return f.format(Math.round(secs / 60), 'minute');
  if (abs < 86_400) return f.format(Math.round(secs / 3600), 'hour');
  if (abs < 86_400 * 30) return f.format(Math.round(secs / 86_400), 'day');
  if (abs < 86_400 * 365) return f.format(Math.round(secs / (86_400 * 30)), 'month');
  return f.format(Math.round(secs / (86_400 * 365)), 'year');
}

/** A count in the user's locale ("1,234"). */
export function count(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : new Intl.NumberFormat().format(n);
}

/** A percentage given as 0..100 ("97.5%"). */
export function percent(p: number | null | undefined, digits = 1): string {
  return p === null || p === undefined ? '—' : new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: digits }).format(p / 100);
}

/** Names people read for the codes the API sends. Unknown codes fall back to "Words with spaces". */
const NAMES: Record<string, string> = {
  // priorities
  urgent: 'Urgent',
  high: 'High',
  medium: 'Medium',
  low: 'Low',
  none: 'No priority',
  // state groups
  backlog: 'Backlog',
  unstarted: 'To do',
  started: 'In progress',
  completed: 'Done',
  cancelled: 'Cancelled',
  // custom property types
  text: 'Text',
  number: 'Number',
  date: 'Date',
  datetime: 'Date and time',
  boolean: 'Yes / no',
  select: 'Single select',
  multi_select: 'Multi-select',
  url: 'Link',
  user: 'Member',
  // subscriptions, payments, invoices
  trialing: 'Trial',
  active: 'Active',
  past_due: 'Past due',
  canceled: 'Canceled',
  unpaid: 'Unpaid',
  incomplete: 'Incomplete',
  paused: 'Paused',
  free: 'Free',
  pro: 'Pro',
  business: 'Business',
  enterprise: 'Enterprise',
  monthly: 'Monthly',
  yearly: 'Yearly',
  succeeded: 'Succeeded',
  failed: 'Failed',
  pending: 'Pending',
  refunded: 'Refunded',
  draft: 'Draft',
  open: 'Open',
  paid: 'Paid',
  void: 'Void',
  uncollectible: 'Uncollectible',
  insufficient_funds: 'Insufficient funds',
  card_declined: 'Card declined',
  expired_card: 'Card expired',
  do_not_honor: 'Declined by the bank',
  // roles
  owner: 'Owner',
  admin: 'Admin',
  member: 'Member',
  guest: 'Guest',
  // SLA
  response: 'Response',
  resolution: 'Resolution',
  met: 'Met',
  breached: 'Breached',
};

export function codeName(code: string | null | undefined): string {
  if (!code) return '—';
  const known = NAMES[code];
  if (known) return known;
  const words = code.replace(/[_.-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
