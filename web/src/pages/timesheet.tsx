/**
 * The timesheet (contract 18.3): a week, Monday to Sunday in the workspace's time zone, minutes per user or project
 * and day, with the totals and the same rows as a CSV download. The week and the grouping live in the URL.
 */
import { type Answer, api, getToken, unwrap } from '../api.js';
import { codeName, date, dayMonth, minutes, today } from '../format.js';
import { navigate } from '../router.js';
import { PageTitle, ProblemView, Show, useAction, useLoad } from '../ui.js';
import './timesheet.css';

const GROUPS = ['user', 'project'] as const;
type Group = (typeof GROUPS)[number];
const DAY = 86_400_000;

/** Calendar arithmetic on `YYYY-MM-DD` (UTC noon: no clock change can move the date). */
const dateAt = (iso: string) => new Date(`${iso}T12:00:00Z`);
const isoOf = (d: Date) => d.toISOString().slice(0, 10);
const plusDays = (iso: string, n: number) => isoOf(new Date(dateAt(iso).getTime() + n * DAY));
const mondayOf = (iso: string) => plusDays(iso, -((dateAt(iso).getUTCDay() + 6) % 7));
const isDate = (v: string | null): v is string => v !== null && /^\d{4}-\d\d-\d\d$/.test(v) && !Number.isNaN(dateAt(v).getTime());

export function Timesheet({ slug, query }: { slug: string; query: URLSearchParams }) {
  const workspace = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/', { params: { path: { slug } } })), [slug]);
  return (
    <section>
      <PageTitle>Timesheet</PageTitle>
      <Show state={workspace}>{(w) => <Week slug={slug} query={query} timeZone={w.time_zone} />}</Show>
    </section>
  );
}

type Sheet = Answer<'getTimesheet'>;

function Week({ slug, query, timeZone }: { slug: string; query: URLSearchParams; timeZone: string }) {
  const groupBy: Group = query.get('group_by') === 'project' ? 'project' : 'user';
  const asked = query.get('week');
  const from = mondayOf(isDate(asked) ? asked : today(new Date(), timeZone));
  const to = plusDays(from, 6);
  const sheet = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/timesheet/', { params: { path: { slug }, query: { from, to, group_by: groupBy } } })) as Promise<Sheet>,
    [slug, from, groupBy],
  );
  const go = (week: string, group: Group) => navigate(`/w/${slug}/timesheet?week=${week}&group_by=${group}`);
  const download = useAction(async () => {
    const params = new URLSearchParams({ from, to, group_by: groupBy, format: 'csv' });
    const res = await fetch(`/api/workspaces/${encodeURIComponent(slug)}/timesheet/?${params}`, { headers: { authorization: `Bearer ${getToken() ?? ''}` } });
    // A refusal is shown as the API states it (the JSON request answers the same problem).
    if (!res.ok) await unwrap(api().GET('/api/workspaces/{slug}/timesheet/', { params: { path: { slug }, query: { from, to, group_by: groupBy } } }));
    const url = URL.createObjectURL(await res.blob());
    const a = document.createElement('a');
    a.href = url;
    a.download = `timesheet-${from}-${to}.csv`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  });
  return (
    <>
      <div class="week-bar">
        <strong class="week-name" aria-live="polite">
          Week of <time dateTime={from}>{date(from)}</time> to <time dateTime={to}>{date(to)}</time> <span class="muted">({timeZone.replace(/_/g, ' ')})</span>
        </strong>
        <div class="week-moves">
          <button type="button" onClick={() => go(plusDays(from, -7), groupBy)}>
            Previous week
          </button>
          <button type="button" onClick={() => go(plusDays(from, 7), groupBy)}>
            Next week
          </button>
        </div>
        <label>
          Group by{' '}
          <select value={groupBy} onChange={(e) => go(from, e.currentTarget.value as Group)}>
            {GROUPS.map((g) => (
              <option key={g} value={g}>
                {g === 'user' ? 'Member' : codeName(g)}
              </option>
            ))}
          </select>
        </label>
        <button type="button" class="secondary" disabled={download.busy} onClick={() => void download.run()}>
          Download CSV
        </button>
      </div>
      <ProblemView error={download.error} />
      <Show state={sheet}>
        {(s) => {
          const dayTotal = (d: string) => s.rows.reduce((sum, r) => sum + (r.by_day[d] ?? 0), 0);
          return (
            <div class="table-wrap" role="region" aria-label="Timesheet" tabIndex={0}>
              <table class="timesheet">
                <caption>
                  {minutes(s.total_minutes)} logged, by {s.group_by === 'user' ? 'member' : 'project'}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">{groupBy === 'user' ? 'Member' : 'Project'}</th>
                    {s.days.map((d) => (
                      <th scope="col" key={d} title={date(d)}>
                        {dayMonth(d, true)}
                      </th>
                    ))}
                    <th scope="col">Total</th>
                  </tr>
                </thead>
                <tbody>
                  {s.rows.length ? (
                    s.rows.map((r) => (
                      <tr key={r.key}>
                        <th scope="row">{r.label}</th>
                        {s.days.map((d) => (
                          <td key={d}>{r.by_day[d] ? minutes(r.by_day[d]) : ''}</td>
                        ))}
                        <td>{minutes(r.minutes)}</td>
                      </tr>
                    ))
                  ) : (
                    <tr>
                      <td colSpan={s.days.length + 2}>No time logged this week.</td>
                    </tr>
                  )}
                </tbody>
                <tfoot>
                  <tr>
                    <th scope="row">Total</th>
                    {s.days.map((d) => (
                      <td key={d}>{minutes(dayTotal(d))}</td>
                    ))}
                    <td>{minutes(s.total_minutes)}</td>
                  </tr>
                </tfoot>
              </table>
            </div>
          );
        }}
      </Show>
    </>
  );
}
