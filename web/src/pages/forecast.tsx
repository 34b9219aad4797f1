/** The forecast of a project (contract 18.5): weekly throughput as bars, the finish dates against the planned finish. */
import type { ComponentChildren } from 'preact';
import { type Answer, api, unwrap } from '../api.js';
import { DataTable } from '../components/data-table.js';
import { Facts } from '../components/facts.js';
import { SelectField } from '../components/options.js';
import { count, date, dayMonth, percent, today as todayIn } from '../format.js';
import { navigate } from '../router.js';
import { PageTitle, Show, useLoad } from '../ui.js';
import './forecast.css';

type Forecast = Answer<'getProjectForecast'>;
const WEEK_CHOICES = [4, 8, 12, 26, 52];
const DEFAULT_WEEKS = 12;
const DAY_MS = 86_400_000;
/** The most axis labels under the throughput bars (each "Jan 12" at the page's size fits a phone six times). */
const MAX_LABELS = 6;

const DateText = ({ date: value }: { date: string | null | undefined }) => (value ? <time dateTime={value}>{date(value)}</time> : <>—</>);

/** Bars of completed issues per week, oldest left, as HTML (its text keeps the page's size at every width). */
function ThroughputChart({ weeks }: { weeks: Forecast['throughput'] }) {
  const max = Math.max(1, ...weeks.map((w) => w.completed));
  const labelEvery = Math.ceil(weeks.length / MAX_LABELS);
  const total = weeks.reduce((s, w) => s + w.completed, 0);
  return (
    <figure class="forecast-chart">
      <figcaption>Throughput: issues completed per week</figcaption>
      <div
        class="throughput"
        role="img"
        aria-label={`Issues completed per week over the last ${weeks.length} full weeks, ${count(total)} in all: ${weeks.map((w) => `week of ${date(w.week_start)} ${count(w.completed)}`).join(', ')}`}
      >
        <span class="axis-max" aria-hidden="true">
          {count(max)}
        </span>
        <div class="columns" style={{ gridTemplateColumns: `repeat(${weeks.length}, minmax(0, 1fr))` }}>
          {weeks.map((w, i) => (
            <div key={w.week_start} class="column" title={`Week of ${date(w.week_start)}: ${count(w.completed)}`}>
              <span class="bar now" style={{ height: `${(w.completed / max) * 100}%` }} />
              {i % labelEvery === 0 ? <span class="tick">{dayMonth(w.week_start)}</span> : null}
            </div>
          ))}
        </div>
      </div>
    </figure>
  );
}

/** The three finish dates and the planned finishes on one time line from today, as HTML marks placed along it. */
function FinishLine({ f, today }: { f: Forecast; today: string }) {
  const marks: { key: string; label: string; date: string; kind: 'forecast' | 'plan' }[] = [];
  for (const [key, p] of [
    ['finish_p50', 50],
    ['finish_p85', 85],
    ['finish_p95', 95],
  ] as const) {
    if (f[key]) marks.push({ key, label: percent(p, 0), date: f[key], kind: 'forecast' });
  }
  if (f.planned_finish) marks.push({ key: 'planned', label: 'planned', date: f.planned_finish, kind: 'plan' });
  if (f.baseline_planned_finish) marks.push({ key: 'baseline', label: 'baseline', date: f.baseline_planned_finish, kind: 'plan' });
  if (!marks.length) return null;
  const t = (d: string) => Date.parse(`${d}T00:00:00Z`);
  const start = Math.min(t(today), ...marks.map((m) => t(m.date)));
  const end = Math.max(start + 7 * DAY_MS, ...marks.map((m) => t(m.date)));
  const at = (d: string) => ({ left: `${((t(d) - start) / (end - start)) * 100}%` });
  return (
    <figure class="forecast-chart">
      <figcaption>Finish dates against the planned finish</figcaption>
      <div
        class="finish-line"
        role="img"
        aria-label={marks.map((m) => `${m.kind === 'forecast' ? `${m.label} of the runs finish by` : `${m.label} finish`} ${date(m.date)}`).join('; ')}
      >
        <span class="line" />
        <span class="mark today" style={at(today)}>
          <span class="tick">today</span>
        </span>
        {marks.map((m) => (
          <span
            key={m.key}
            class={`mark ${m.kind} row${marks.filter((o) => o.kind === m.kind).indexOf(m) % 2}`}
            style={at(m.date)}
            title={`${m.label}: ${date(m.date)}`}
          >
            <span class="tick">{m.label}</span>
          </span>
        ))}
      </div>
      <p class="legend muted">
        Dots: share of the simulated runs finished; squares: planned finishes. From {date(today)} to {date(new Date(end).toISOString().slice(0, 10))}.
      </p>
    </figure>
  );
}

export function ForecastPage({ slug, projectId, query }: { slug: string; projectId: string; query: URLSearchParams }) {
  const asked = Number(query.get('weeks'));
  const weeks = WEEK_CHOICES.includes(asked) ? asked : DEFAULT_WEEKS;
  const baselineId = query.get('baseline_id') ?? '';
  const setQuery = (next: { weeks?: number; baseline_id?: string }) => {
    const q = new URLSearchParams();
    const w = next.weeks ?? weeks;
    const b = next.baseline_id ?? baselineId;
    if (w !== DEFAULT_WEEKS) q.set('weeks', String(w));
    if (b) q.set('baseline_id', b);
    navigate(`/w/${slug}/p/${projectId}/forecast${q.size ? `?${q}` : ''}`, true);
  };
  const baselines = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/baselines/', { params: { path: { slug, projectId } } })),
    [projectId],
  );
  const forecast = useLoad(
    () =>
      unwrap(
        api().GET('/api/workspaces/{slug}/projects/{projectId}/forecast/', {
          params: { path: { slug, projectId }, query: { weeks, ...(baselineId ? { baseline_id: baselineId } : {}) } },
        }),
      ),
    [projectId, weeks, baselineId],
  );
  const today = todayIn();
  return (
    <section>
      <PageTitle>Forecast</PageTitle>
      <p class="muted">
        When will the open issues be done? 10,000 simulated futures draw each week's completions from the weeks below; a finish date is the Sunday of the week
        by which that share of them is done.
      </p>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <SelectField
          label="Weeks of history"
          items={WEEK_CHOICES.map((w) => [String(w), `Last ${w} full weeks`] as const)}
          value={String(weeks)}
          onChange={(v) => setQuery({ weeks: Number(v) })}
        />
        <SelectField
          label="Compare with baseline"
          items={(baselines.data ?? []).map((b) => [b.id, b.name] as const)}
          all="None"
          value={baselineId}
          onChange={(v) => setQuery({ baseline_id: v })}
        />
      </form>
      <Show state={forecast}>
        {(f) => (
          <>
            {f.reason ? (
              <p class="empty" role="status">
                {f.reason}
              </p>
            ) : null}
            <Facts
              items={[
                ['Open issues', count(f.remaining_issues)],
                ['Finish, 50% likely', <DateText date={f.finish_p50} />],
                ['Finish, 85% likely', <DateText date={f.finish_p85} />],
                ['Finish, 95% likely', <DateText date={f.finish_p95} />],
                ['Planned finish', <DateText date={f.planned_finish} />],
                ...(baselineId ? [['Baseline planned finish', <DateText date={f.baseline_planned_finish} />] as [string, ComponentChildren]] : []),
                ['Chance to finish by the planned date', percent(f.probability_by_planned_finish)],
              ]}
            />
            <div class="grid2">
              <ThroughputChart weeks={f.throughput} />
              <FinishLine f={f} today={today} />
            </div>
            <details>
              <summary>Throughput by week</summary>
              <DataTable
                label="Throughput by week"
                columns={[
                  { header: 'Week of', cell: (w) => <DateText date={w.week_start} /> },
                  { header: 'Completed', cell: (w) => count(w.completed) },
                ]}
                rows={f.throughput}
                rowKey={(w) => w.week_start}
              />
            </details>
          </>
        )}
      </Show>
    </section>
  );
}
