import { useState } from 'preact/hooks';
import { type Answer, api, unwrap } from '../api.js';
import { Field, PageTitle, ProblemView, Show, useAction, useLoad } from '../ui.js';

/**
 * SLA reports (contract 20.3): the weekly achievement of the last 12 weeks as a chart (met and breached as bars,
 * achievement as a line), the per-priority table of a date range, and that table as CSV.
 */

type Report = Exclude<Answer<'listSlaReports'>, string>;
type Block = Report['totals']['response'];
type Target = 'response' | 'resolution';

const MET = '#16a34a';
const BREACHED = '#dc2626';
const LINE = '#1d4ed8';

/** Today in a time zone, `YYYY-MM-DD` (the platform's time-zone data; 'en-CA' writes ISO dates). */
function todayIn(timeZone: string): string {
  try {
    return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
  } catch {
    return new Date().toISOString().slice(0, 10);
  }
}

/** Calendar arithmetic on local dates (no time zone involved: a date plus days is a date). */
function plusDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
const mondayOf = (date: string) => plusDays(date, -((new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7));

/** Seconds as people read a duration: 45s, 12m, 3h 20m, 2d 4h. */
export function duration(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 60) return `${seconds}s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 ? `${h}h ${m % 60}m` : `${h}h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d}d ${h % 24}h` : `${d}d`;
}

const percent = (p: number | null) => (p === null ? '—' : `${p}%`);

/** The JSON report (its 200 also has a text/csv form, which this call does not ask for). */
const loadReport = (slug: string, query: { from: string; to: string; group_by: 'week' | 'priority' }) =>
  unwrap(api().GET('/api/workspaces/{slug}/sla-reports/', { params: { path: { slug }, query } })) as Promise<Report>;

/** Met and breached per week as bars, the achievement as a line (right axis, 0-100 %), in plain SVG. */
function WeeklyChart({ report, target }: { report: Report; target: Target }) {
  const rows = report.rows;
  const width = 640;
  const height = 240;
  const left = 36;
  const right = 40;
  const top = 12;
  const bottom = 40;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const max = Math.max(1, ...rows.map((r) => Math.max(r[target].met, r[target].breached)));
  const slot = plotW / Math.max(1, rows.length);
  const barW = Math.max(2, slot / 2 - 4);
  const y = (n: number) => top + plotH - (n / max) * plotH;
  const yPct = (p: number) => top + plotH - (p / 100) * plotH;
  const points = rows
    .map((r, i) => (r[target].achievement_percent === null ? null : `${left + i * slot + slot / 2},${yPct(r[target].achievement_percent!)}`))
    .filter((p): p is string => p !== null);
  const summary = rows
    .map((r) => `${r.label}: ${r[target].met} met, ${r[target].breached} breached, achievement ${percent(r[target].achievement_percent)}`)
    .join('; ');
  return (
    <figure class="chart sla-report-chart">
      <figcaption>Weekly {target} achievement, last 12 weeks</figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`Weekly ${target} achievement. ${summary}`}>
        <line x1={left} x2={left + plotW} y1={top + plotH} y2={top + plotH} stroke="#9aa6b8" />
        <text x={left - 4} y={top + 8} text-anchor="end" class="value">
          {max}
        </text>
        <text x={left - 4} y={top + plotH} text-anchor="end" class="value">
          0
        </text>
        <text x={left + plotW + 4} y={top + 8} class="value">
          100%
        </text>
        <text x={left + plotW + 4} y={top + plotH} class="value">
          0%
        </text>
        {rows.map((r, i) => {
          const x = left + i * slot + slot / 2;
          const b = r[target];
          return (
            <g key={r.key} data-week={r.key}>
              <rect x={x - barW - 1} y={y(b.met)} width={barW} height={top + plotH - y(b.met)} fill={MET} class="met">
                <title>{`${r.label}: ${b.met} met`}</title>
              </rect>
              <rect x={x + 1} y={y(b.breached)} width={barW} height={top + plotH - y(b.breached)} fill={BREACHED} class="breached">
                <title>{`${r.label}: ${b.breached} breached`}</title>
              </rect>
              {i % 2 === 0 ? (
                <text x={x} y={top + plotH + 14} text-anchor="middle" class="label">
                  {r.key.slice(5)}
                </text>
              ) : null}
            </g>
          );
        })}
        {points.length > 1 ? <polyline points={points.join(' ')} fill="none" stroke={LINE} stroke-width={2} class="achievement" /> : null}
        {points.map((p) => {
          const [cx, cy] = p.split(',');
          return <circle key={p} cx={cx} cy={cy} r={3} fill={LINE} />;
        })}
        <g transform={`translate(${left} ${height - 12})`}>
          <rect width={10} height={10} fill={MET} />
          <text x={14} y={9} class="value">
            met
          </text>
          <rect x={60} width={10} height={10} fill={BREACHED} />
          <text x={74} y={9} class="value">
            breached
          </text>
          <line x1={150} x2={166} y1={5} y2={5} stroke={LINE} stroke-width={2} />
          <text x={170} y={9} class="value">
            achievement %
          </text>
        </g>
      </svg>
    </figure>
  );
}

function BlockCells({ block }: { block: Block }) {
  return (
    <>
      <td>{block.met}</td>
      <td>{block.breached}</td>
      <td>{percent(block.achievement_percent)}</td>
      <td>{duration(block.median_seconds)}</td>
      <td>{duration(block.p90_seconds)}</td>
    </>
  );
}

function PriorityTable({ report }: { report: Report }) {
  const head = (t: string) => (
    <>
      <th scope="col">{t} met</th>
      <th scope="col">breached</th>
      <th scope="col">achievement</th>
      <th scope="col">median</th>
      <th scope="col">p90</th>
    </>
  );
  return (
    <div class="table-wrap" role="region" aria-label="SLA achievement per priority" tabIndex={0}>
      <table aria-label="SLA achievement per priority">
        <thead>
          <tr>
            <th scope="col">Priority</th>
            {head('Response')}
            {head('Resolution')}
          </tr>
        </thead>
        <tbody>
          {report.rows.length === 0 ? (
            <tr>
              <td colSpan={11}>No met or breached targets in this range.</td>
            </tr>
          ) : (
            report.rows.map((r) => (
              <tr key={r.key}>
                <th scope="row">{r.label}</th>
                <BlockCells block={r.response} />
                <BlockCells block={r.resolution} />
              </tr>
            ))
          )}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">All</th>
            <BlockCells block={report.totals.response} />
            <BlockCells block={report.totals.resolution} />
          </tr>
        </tfoot>
      </table>
    </div>
  );
}

/** Saves a text as a file through a temporary link (the API needs the token, so a plain link would not do). */
function saveFile(name: string, text: string, type: string) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function SlaReports({ slug }: { slug: string }) {
  const workspace = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/', { params: { path: { slug } } })), [slug]);
  return (
    <section>
      <PageTitle>SLA reports</PageTitle>
      <Show state={workspace}>{(ws) => <Reports slug={slug} today={todayIn(ws.time_zone)} timeZone={ws.time_zone} />}</Show>
    </section>
  );
}

function Reports({ slug, today, timeZone }: { slug: string; today: string; timeZone: string }) {
  const [target, setTarget] = useState<Target>('resolution');
  const [range, setRange] = useState({ from: plusDays(today, -29), to: today });
  const weekly = useLoad(() => loadReport(slug, { from: plusDays(mondayOf(today), -77), to: today, group_by: 'week' }), [slug, today]);
  const byPriority = useLoad(() => loadReport(slug, { ...range, group_by: 'priority' }), [slug, range.from, range.to]);
  const download = useAction(async () => {
    const { data, error, response } = await api().GET('/api/workspaces/{slug}/sla-reports/', {
      params: { path: { slug }, query: { ...range, group_by: 'priority', format: 'csv' } },
      parseAs: 'text',
    });
    if (!response.ok) await unwrap(Promise.resolve({ error, response }));
    saveFile(`sla-report-${range.from}-${range.to}-priority.csv`, String(data), 'text/csv');
  });
  return (
    <>
      <p class="muted">Dates are those of the workspace time zone, {timeZone}. Weeks start on Monday.</p>
      <Field label="Target">
        {(id) => (
          <select id={id} value={target} onChange={(e) => setTarget((e.currentTarget as HTMLSelectElement).value as Target)}>
            <option value="response">Response</option>
            <option value="resolution">Resolution</option>
          </select>
        )}
      </Field>
      <Show state={weekly}>{(report) => <WeeklyChart report={report} target={target} />}</Show>

      <h2>By priority</h2>
      <form
        class="inline"
        aria-label="Date range"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget as HTMLFormElement);
          setRange({ from: String(form.get('from')), to: String(form.get('to')) });
        }}
      >
        <Field label="From">{(id) => <input id={id} name="from" type="date" value={range.from} required />}</Field>
        <Field label="To">{(id) => <input id={id} name="to" type="date" value={range.to} required />}</Field>
        <button type="submit">Show</button>
        <button type="button" class="secondary" disabled={download.busy} onClick={() => void download.run()}>
          Download CSV
        </button>
      </form>
      <ProblemView error={download.error} />
      <Show state={byPriority}>{(report) => <PriorityTable report={report} />}</Show>
    </>
  );
}
