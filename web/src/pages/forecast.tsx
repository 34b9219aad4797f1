/** The forecast of a project (contract 18.5): weekly throughput as bars, the finish dates against the planned finish. */
import { type Answer, api, unwrap } from '../api.js';
import { DataTable } from '../components/data-table.js';
import { Facts } from '../components/facts.js';
import { SelectField } from '../components/options.js';
import { navigate } from '../router.js';
import { PageTitle, Show, useLoad } from '../ui.js';

type Forecast = Answer<'getProjectForecast'>;
const WEEK_CHOICES = [4, 8, 12, 26, 52];
const DEFAULT_WEEKS = 12;
const DAY_MS = 86_400_000;

/** A `YYYY-MM-DD` date as words ("Sun, 25 Apr 2027"); dates carry no time zone, so they are read as UTC. */
function day(date: string | null | undefined): string {
  if (!date) return '—';
  const d = new Date(`${date}T00:00:00Z`);
  return Number.isNaN(d.getTime())
    ? date
    : d.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
}

const DateText = ({ date }: { date: string | null | undefined }) => (date ? <time dateTime={date}>{day(date)}</time> : <>—</>);

/** Bars of completed issues per week, oldest left, in plain SVG. */
function ThroughputChart({ weeks }: { weeks: Forecast['throughput'] }) {
  const max = Math.max(1, ...weeks.map((w) => w.completed));
  const width = 640;
  const height = 180;
  const left = 28;
  const bottom = 22;
  const plotH = height - bottom - 12;
  const slot = (width - left - 4) / weeks.length;
  const barW = Math.max(2, slot * 0.7);
  const labelEvery = Math.ceil(weeks.length / 8);
  const total = weeks.reduce((s, w) => s + w.completed, 0);
  return (
    <figure class="chart forecast-chart">
      <figcaption>Throughput: issues completed per week</figcaption>
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={`Issues completed per week over the last ${weeks.length} full weeks, ${total} in all: ${weeks.map((w) => `week of ${w.week_start} ${w.completed}`).join(', ')}`}
      >
        <text x={0} y={12} class="value">
          {max}
        </text>
        <text x={0} y={height - bottom} class="value">
          0
        </text>
        <line x1={left} x2={width} y1={height - bottom} y2={height - bottom} stroke="currentColor" stroke-width={1} />
        {weeks.map((w, i) => {
          const h = (w.completed / max) * plotH;
          const x = left + i * slot + (slot - barW) / 2;
          return (
            <g key={w.week_start}>
              <rect x={x} y={height - bottom - h} width={barW} height={h} class="now">
                <title>{`Week of ${w.week_start}: ${w.completed}`}</title>
              </rect>
              {i % labelEvery === 0 ? (
                <text x={x} y={height - 6} class="label">
                  {w.week_start.slice(5)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

/** The three finish dates and the planned finishes on one time line from today. */
function FinishLine({ f, today }: { f: Forecast; today: string }) {
  const marks: { key: string; label: string; date: string; kind: 'forecast' | 'plan' }[] = [];
  for (const [key, label] of [
    ['finish_p50', '50 %'],
    ['finish_p85', '85 %'],
    ['finish_p95', '95 %'],
  ] as const) {
    if (f[key]) marks.push({ key, label, date: f[key], kind: 'forecast' });
  }
  if (f.planned_finish) marks.push({ key: 'planned', label: 'planned', date: f.planned_finish, kind: 'plan' });
  if (f.baseline_planned_finish) marks.push({ key: 'baseline', label: 'baseline', date: f.baseline_planned_finish, kind: 'plan' });
  if (!marks.length) return null;
  const t = (d: string) => Date.parse(`${d}T00:00:00Z`);
  const start = Math.min(t(today), ...marks.map((m) => t(m.date)));
  const end = Math.max(start + 7 * DAY_MS, ...marks.map((m) => t(m.date)));
  const width = 640;
  const pad = 40;
  const x = (d: string) => pad + ((t(d) - start) / (end - start)) * (width - 2 * pad);
  return (
    <figure class="chart forecast-chart">
      <figcaption>Finish dates against the planned finish</figcaption>
      <svg
        viewBox={`0 0 ${width} 96`}
        role="img"
        aria-label={marks.map((m) => `${m.kind === 'forecast' ? `${m.label} of the runs finish by` : `${m.label} finish`} ${m.date}`).join('; ')}
      >
        <line x1={pad} x2={width - pad} y1={48} y2={48} stroke="currentColor" stroke-width={1} />
        <line x1={x(today)} x2={x(today)} y1={40} y2={56} stroke="currentColor" stroke-width={1} />
        <text x={x(today)} y={70} class="label" text-anchor="middle">
          today
        </text>
        {marks.map((m, i) => (
          <g key={m.key} transform={`translate(${x(m.date)} 0)`}>
            {m.kind === 'forecast' ? <circle cy={48} r={6} class="now" /> : <rect x={-5} y={42} width={10} height={12} class="before" />}
            <text y={m.kind === 'forecast' ? 30 - (i % 2) * 14 : 86 - (i % 2) * 0} class="label" text-anchor="middle">
              {m.label}
            </text>
          </g>
        ))}
      </svg>
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
  // the browser's local date (en-CA writes YYYY-MM-DD)
  const today = new Date().toLocaleDateString('en-CA');
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
                ['Open issues', f.remaining_issues],
                ['Finish, 50 % likely', <DateText date={f.finish_p50} />],
                ['Finish, 85 % likely', <DateText date={f.finish_p85} />],
                ['Finish, 95 % likely', <DateText date={f.finish_p95} />],
                ['Planned finish', <DateText date={f.planned_finish} />],
                ...(baselineId ? [['Baseline planned finish', <DateText date={f.baseline_planned_finish} />] as [string, preact.ComponentChildren]] : []),
                ['Chance to finish by the planned date', f.probability_by_planned_finish === null ? '—' : `${f.probability_by_planned_finish.toFixed(1)} %`],
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
                  { header: 'Completed', cell: (w) => w.completed },
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
