/**
 * SLA reports (contract 20.3): the weekly achievement of the last 12 weeks as a chart (met and breached as bars,
 * achievement as a line), the per-priority table of a date range, and that table as CSV. The chart is drawn at the
 * width it is shown (one SVG unit a CSS pixel), so its labels stay 12 px at every width.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { type Answer, api, unwrap } from '../api.js';
import { count, duration, percent, shortDate } from '../format.js';
import { Field, PageTitle, ProblemView, Show, useAction, useLoad } from '../ui.js';
import './sla-reports.css';

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

/** The JSON report (its 200 also has a text/csv form, which this call does not ask for). */
const loadReport = (slug: string, query: { from: string; to: string; group_by: 'week' | 'priority' }) =>
  unwrap(api().GET('/api/workspaces/{slug}/sla-reports/', { params: { path: { slug }, query } })) as Promise<Report>;

/** The width of an element's content box, followed as it changes (the chart's drawing width). */
function useWidth(initial: number) {
  const ref = useRef<HTMLElement>(null);
  const [width, setWidth] = useState(initial);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(([entry]) => setWidth(Math.floor(entry!.contentRect.width)));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return { ref, width };
}

const LABEL_PX = 56;

/** Met and breached per week as bars, the achievement as a line (right axis, 0-100 %), in plain SVG. */
function WeeklyChart({ report, target }: { report: Report; target: Target }) {
  const { ref, width: measured } = useWidth(640);
  const rows = report.rows;
  const width = Math.max(240, Math.min(measured, 768));
  const height = 240;
  const left = 40;
  const right = 48;
  const top = 14;
  const bottom = 26;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const max = Math.max(1, ...rows.map((r) => Math.max(r[target].met, r[target].breached)));
  const slot = plotW / Math.max(1, rows.length);
  const barW = Math.max(2, slot / 2 - 4);
  const every = Math.max(1, Math.ceil(LABEL_PX / slot));
  const y = (n: number) => top + plotH - (n / max) * plotH;
  const yPct = (p: number) => top + plotH - (p / 100) * plotH;
  const points = rows
    .map((r, i) => (r[target].achievement_percent === null ? null : `${left + i * slot + slot / 2},${yPct(r[target].achievement_percent!)}`))
    .filter((p): p is string => p !== null);
  const name = target === 'response' ? 'response' : 'resolution';
  const summary = rows
    .map((r) => `${r.label}: ${count(r[target].met)} met, ${count(r[target].breached)} breached, achievement ${percent(r[target].achievement_percent)}`)
    .join('; ');
  return (
    <figure class="chart sla-report-chart" ref={ref}>
      <figcaption>Weekly {name} achievement, last 12 weeks</figcaption>
      <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`Weekly ${name} achievement. ${summary}`}>
        <line x1={left} x2={left + plotW} y1={top + plotH} y2={top + plotH} stroke="#5b6474" />
        <text x={left - 6} y={top + 4} text-anchor="end" class="value">
          {count(max)}
        </text>
        <text x={left - 6} y={top + plotH} text-anchor="end" class="value">
          0
        </text>
        <text x={left + plotW + 6} y={top + 4} class="value">
          {percent(100)}
        </text>
        <text x={left + plotW + 6} y={top + plotH} class="value">
          {percent(0)}
        </text>
        {rows.map((r, i) => {
          const x = left + i * slot + slot / 2;
          const b = r[target];
          return (
            <g key={r.key} data-week={r.key}>
              <rect x={x - barW - 1} y={y(b.met)} width={barW} height={top + plotH - y(b.met)} fill={MET} class="met">
                <title>{`${r.label}: ${count(b.met)} met`}</title>
              </rect>
              <rect x={x + 1} y={y(b.breached)} width={barW} height={top + plotH - y(b.breached)} fill={BREACHED} class="breached">
                <title>{`${r.label}: ${count(b.breached)} breached`}</title>
              </rect>
              {i % every === 0 ? (
                <text x={x} y={top + plotH + 18} text-anchor="middle" class="label">
                  {shortDate(r.key)}
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
      </svg>
      <ul class="legend" aria-hidden="true">
        <li>
          <span class="swatch" style={{ background: MET }} /> Met
        </li>
        <li>
          <span class="swatch" style={{ background: BREACHED }} /> Breached
        </li>
        <li>
          <span class="swatch line" style={{ background: LINE }} /> Achievement (right axis)
        </li>
      </ul>
    </figure>
  );
}

function BlockCells({ block }: { block: Block }) {
  return (
    <>
      <td>{count(block.met)}</td>
      <td>{count(block.breached)}</td>
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
      <th scope="col">{t} breached</th>
      <th scope="col">{t} achievement</th>
      <th scope="col">{t} median time</th>
      <th scope="col">{t} 90th percentile</th>
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
