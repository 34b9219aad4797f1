/** SLA calendars (section 11.1): working hours and holidays in a time zone; the policies' clocks count only their time. */
import { useState } from 'preact/hooks';
import { type Answer, api, unwrap } from '../api.js';
import { clockTime, count, date, weekday } from '../format.js';
import { Link } from '../router.js';
import { ActionForm } from '../components/action-form.js';
import { EditableCards } from '../components/editable-cards.js';
import { Options } from '../components/options.js';
import { Empty, errorsAt, Field, FieldErrors, PageTitle, ProblemView, useAction, useLoad } from '../ui.js';

type Calendar = Answer<'listSlaCalendars'>[number];
type Hours = Calendar['working_hours'][number];
type Holiday = Calendar['holidays'][number];
type Draft = { name: string; description: string; time_zone: string; working_hours: Hours[]; holidays: Holiday[] };

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const WEEKDAYS: Hours[] = DAYS.slice(0, 5).map((day) => ({ day, start: '09:00', end: '17:00' }));
const localZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
let zones: string[] | undefined;
function timeZones(): string[] {
  zones ??= typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return zones;
}

const DAY_NAMES = DAYS.map((d, i) => [d, weekday(i)] as const);

/** "Mon, Tue, Wed 9:00 AM–5:00 PM · Sat 10:00 AM–2:00 PM": the days of each distinct interval, in week order. */
function hoursText(hours: Hours[]): string {
  const byInterval = new Map<string, number[]>();
  for (const h of [...hours].sort((a, b) => DAYS.indexOf(a.day) - DAYS.indexOf(b.day))) {
    const key = `${clockTime(h.start)}–${clockTime(h.end)}`;
    byInterval.set(key, [...(byInterval.get(key) ?? []), DAYS.indexOf(h.day)]);
  }
  return [...byInterval].map(([interval, days]) => `${days.map((d) => weekday(d, true)).join(', ')} ${interval}`).join(' · ') || 'No working hours';
}

function Summary({ c }: { c: Calendar }) {
  return (
    <>
      <div class="muted">
        {c.time_zone} · {hoursText(c.working_hours)}
      </div>
      {c.holidays.length ? (
        <div class="muted">
          {count(c.holidays.length)} {c.holidays.length === 1 ? 'holiday' : 'holidays'}:{' '}
          {c.holidays.map((h) => `${h.name || 'Holiday'} (${date(h.date)}${h.recurring ? ', every year' : ''})`).join(', ')}
        </div>
      ) : null}
    </>
  );
}

/** The editor of one calendar; every field shows the API's messages for its path (`/working_hours/2/end` ...). */
function CalendarForm({ slug, calendar, onDone }: { slug: string; calendar?: Calendar; onDone: () => void }) {
  const initial = (): Draft =>
    calendar
      ? {
          name: calendar.name,
          description: calendar.description,
          time_zone: calendar.time_zone,
          working_hours: calendar.working_hours,
          holidays: calendar.holidays,
        }
      : { name: '', description: '', time_zone: localZone(), working_hours: WEEKDAYS, holidays: [] };
  const [d, setD] = useState<Draft>(initial);
  const set = (patch: Partial<Draft>) => setD((x) => ({ ...x, ...patch }));
  const setHours = (i: number, patch: Partial<Hours>) => set({ working_hours: d.working_hours.map((h, n) => (n === i ? { ...h, ...patch } : h)) });
  const setHoliday = (i: number, patch: Partial<Holiday>) => set({ holidays: d.holidays.map((h, n) => (n === i ? { ...h, ...patch } : h)) });
  const save = useAction(async () => {
    const body = { ...d, holidays: d.holidays.map((h) => ({ date: h.date, name: h.name, recurring: h.recurring })) };
    if (calendar)
      await unwrap(api().PATCH('/api/workspaces/{slug}/sla-calendars/{calendarId}/', { params: { path: { slug, calendarId: calendar.id } }, body }));
    else {
      await unwrap(api().POST('/api/workspaces/{slug}/sla-calendars/', { params: { path: { slug } }, body }));
      setD(initial());
    }
    onDone();
  });
  const at = (path: string) => errorsAt(save.error, path);
  return (
    <ActionForm class="calendar" action={save} submit={calendar ? 'Save calendar' : 'Create calendar'}>
      <div class="row">
        <Field label="Calendar name" errors={at('/name')}>
          {(id, by) => <input id={id} value={d.name} required maxLength={255} aria-describedby={by} onInput={(e) => set({ name: e.currentTarget.value })} />}
        </Field>
        <Field label="Time zone" hint="IANA name, e.g. Europe/Istanbul" errors={at('/time_zone')}>
          {(id, by) => (
            <input
              id={id}
              value={d.time_zone}
              required
              list="time-zones"
              autocomplete="off"
              aria-describedby={by}
              onInput={(e) => set({ time_zone: e.currentTarget.value })}
            />
          )}
        </Field>
      </div>
      <Field label="Description" errors={at('/description')}>
        {(id, by) => <input id={id} value={d.description} aria-describedby={by} onInput={(e) => set({ description: e.currentTarget.value })} />}
      </Field>
      <fieldset>
        <legend>Working hours (local wall-clock time)</legend>
        <FieldErrors messages={at('/working_hours')} />
        <ol class="rows">
          {d.working_hours.map((h, i) => (
            <li key={i} class="row">
              <Field label={`Day (${i + 1})`} errors={at(`/working_hours/${i}/day`)}>
                {(id, by) => (
                  <select id={id} value={h.day} aria-describedby={by} onChange={(e) => setHours(i, { day: e.currentTarget.value as Hours['day'] })}>
                    <Options items={DAY_NAMES} />
                  </select>
                )}
              </Field>
              <Field label={`Start (${i + 1})`} errors={at(`/working_hours/${i}/start`)}>
                {(id, by) => (
                  <input
                    id={id}
                    class="hhmm"
                    value={h.start}
                    placeholder="09:00"
                    inputMode="numeric"
                    aria-describedby={by}
                    onInput={(e) => setHours(i, { start: e.currentTarget.value })}
                  />
                )}
              </Field>
              <Field label={`End (${i + 1})`} errors={at(`/working_hours/${i}/end`)}>
                {(id, by) => (
                  <input
                    id={id}
                    class="hhmm"
                    value={h.end}
                    placeholder="17:00"
                    inputMode="numeric"
                    aria-describedby={by}
                    onInput={(e) => setHours(i, { end: e.currentTarget.value })}
                  />
                )}
              </Field>
              <button
                type="button"
                class="danger"
                aria-label={`Remove working hours ${i + 1}`}
                onClick={() => set({ working_hours: d.working_hours.filter((_, n) => n !== i) })}
              >
                Remove
              </button>
              <FieldErrors messages={at(`/working_hours/${i}`)} />
            </li>
          ))}
        </ol>
        <div class="actions">
          <button type="button" onClick={() => set({ working_hours: [...d.working_hours, { day: 'mon', start: '09:00', end: '17:00' }] })}>
            Add hours
          </button>
          <button type="button" class="secondary" onClick={() => set({ working_hours: WEEKDAYS })}>
            {`${weekday(0, true)}–${weekday(4, true)} ${clockTime('09:00')}–${clockTime('17:00')}`}
          </button>
        </div>
      </fieldset>
      <fieldset>
        <legend>Holidays (the whole local day is off)</legend>
        <FieldErrors messages={at('/holidays')} />
        {d.holidays.length ? null : <Empty>No holidays.</Empty>}
        <ol class="rows">
          {d.holidays.map((h, i) => (
            <li key={i} class="row">
              <Field label={`Date (${i + 1})`} errors={at(`/holidays/${i}/date`)}>
                {(id, by) => (
                  <input id={id} type="date" value={h.date} required aria-describedby={by} onInput={(e) => setHoliday(i, { date: e.currentTarget.value })} />
                )}
              </Field>
              <Field label={`Holiday name (${i + 1})`} errors={at(`/holidays/${i}/name`)}>
                {(id, by) => <input id={id} value={h.name} aria-describedby={by} onInput={(e) => setHoliday(i, { name: e.currentTarget.value })} />}
              </Field>
              <Field label={`Every year (${i + 1})`} errors={at(`/holidays/${i}/recurring`)}>
                {(id) => <input id={id} type="checkbox" checked={h.recurring} onChange={(e) => setHoliday(i, { recurring: e.currentTarget.checked })} />}
              </Field>
              <button
                type="button"
                class="danger"
                aria-label={`Remove holiday ${i + 1}`}
                onClick={() => set({ holidays: d.holidays.filter((_, n) => n !== i) })}
              >
                Remove
              </button>
              <FieldErrors messages={at(`/holidays/${i}`)} />
            </li>
          ))}
        </ol>
        <div class="actions">
          <button type="button" onClick={() => set({ holidays: [...d.holidays, { date: '', name: '', recurring: false }] })}>
            Add holiday
          </button>
        </div>
      </fieldset>
    </ActionForm>
  );
}

export function Calendars({ slug }: { slug: string }) {
  const list = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/sla-calendars/', { params: { path: { slug } } })), [slug]);
  const remove = useAction(async (c: Calendar) => {
    await unwrap(api().DELETE('/api/workspaces/{slug}/sla-calendars/{calendarId}/', { params: { path: { slug, calendarId: c.id } } }));
    await list.reload();
  });
  return (
    <section>
      <PageTitle
        actions={
          <Link class="button" to={`/w/${slug}/sla/policies`}>
            Policies
          </Link>
        }
      >
        SLA calendars
      </PageTitle>
      <p class="muted">A policy that names a calendar counts only its working hours, minus its holidays, in its time zone.</p>
      <datalist id="time-zones">
        {timeZones().map((z) => (
          <option key={z} value={z} />
        ))}
      </datalist>
      <ProblemView error={remove.error} />
      <EditableCards
        state={list}
        empty="No calendars yet: policies count all time (24/7) until they name one."
        noun="calendar"
        remove={remove}
        form={(c, done) => <CalendarForm slug={slug} calendar={c} onDone={done} />}
      >
        {(c) => (
          <>
            <strong>{c.name}</strong>
            <Summary c={c} />
            {c.description ? <div>{c.description}</div> : null}
          </>
        )}
      </EditableCards>
      <h2>New calendar</h2>
      <CalendarForm slug={slug} onDone={() => void list.reload()} />
    </section>
  );
}
