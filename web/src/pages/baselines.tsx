import { api, PRIORITIES, STATE_GROUPS, unwrap, when } from '../api.js';
import { Link, navigate } from '../router.js';
import type { ComponentChildren } from 'preact';
import { ActionForm } from '../components/action-form.js';
import { Facts } from '../components/facts.js';
import { CardList } from '../components/list-view.js';
import { Empty, Field, formValues, PageTitle, Show, useAction, useLoad } from '../ui.js';

export function Baselines({ slug, projectId }: { slug: string; projectId: string }) {
  const list = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/baselines/', { params: { path: { slug, projectId } } })),
    [projectId],
  );
  const take = useAction(async (form: HTMLFormElement) => {
    const b = await unwrap(
      api().POST('/api/workspaces/{slug}/projects/{projectId}/baselines/', {
        params: { path: { slug, projectId } },
        body: { name: formValues(form).name ?? '' },
      }),
    );
    navigate(`/w/${slug}/p/${projectId}/baselines/${b.id}`);
  });
  return (
    <section>
      <PageTitle>Baselines</PageTitle>
      <ActionForm class="inline" action={take} submit="Take baseline" problem="outside">
        <Field label="Baseline name">{(id) => <input id={id} name="name" required />}</Field>
      </ActionForm>
      <CardList state={list} empty="No baselines yet: take one to compare the project against later.">
        {(b) => (
          <>
            <Link to={`/w/${slug}/p/${projectId}/baselines/${b.id}`}>{b.name}</Link>{' '}
            <span class="muted">
              {when(b.snapshot_at)} · {b.total_issues} issues, {b.completed_issues} completed
            </span>
          </>
        )}
      </CardList>
    </section>
  );
}

/** Grouped bars, baseline against now, in plain SVG. */
function BarChart({ title, keys, before, now }: { title: string; keys: readonly string[]; before: Record<string, number>; now: Record<string, number> }) {
  const max = Math.max(1, ...keys.map((k) => Math.max(before[k] ?? 0, now[k] ?? 0)));
  const rowH = 34;
  const labelW = 84;
  const width = 320;
  const barW = width - labelW - 36;
  const height = keys.length * rowH + 24;
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${title}: ${keys.map((k) => `${k} ${before[k] ?? 0} then ${now[k] ?? 0}`).join(', ')}`}>
        {keys.map((k, i) => {
          const y = i * rowH;
          const b = before[k] ?? 0;
          const n = now[k] ?? 0;
          return (
            <g key={k} transform={`translate(0 ${y})`}>
              <text x={0} y={18} class="label">
                {k}
              </text>
              <rect x={labelW} y={4} height={11} width={(b / max) * barW} class="before" />
              <text x={labelW + (b / max) * barW + 4} y={14} class="value">
                {b}
              </text>
              <rect x={labelW} y={17} height={11} width={(n / max) * barW} class="now" />
              <text x={labelW + (n / max) * barW + 4} y={27} class="value">
                {n}
              </text>
            </g>
          );
        })}
        <g transform={`translate(${labelW} ${height - 12})`}>
          <rect width={10} height={10} class="before" />
          <text x={14} y={9} class="value">
            baseline
          </text>
          <rect x={80} width={10} height={10} class="now" />
          <text x={94} y={9} class="value">
            now
          </text>
        </g>
      </svg>
    </figure>
  );
}

/** One column of the deviation: its count, and the first items (or None). */
function Change<T extends { id: string }>({
  title,
  count,
  items,
  children,
}: {
  title: string;
  count: number;
  items: T[];
  children: (item: T) => ComponentChildren;
}) {
  return (
    <div>
      <h2>
        {title} ({count})
      </h2>
      {items.length ? (
        <ul>
          {items.map((i) => (
            <li key={i.id}>{children(i)}</li>
          ))}
        </ul>
      ) : (
        <Empty>None.</Empty>
      )}
    </div>
  );
}

/** Minutes as hours and minutes: 90 -> "1h 30m", 0 -> "0m". */
function minutes(m: number): string {
  const sign = m < 0 ? '−' : '';
  const a = Math.abs(m);
  const h = Math.floor(a / 60);
  const r = a % 60;
  return sign + (h ? `${h}h${r ? ` ${r}m` : ''}` : `${r}m`);
}
const signedMinutes = (m: number | null) => (m === null ? 'not recorded' : m > 0 ? `+${minutes(m)}` : minutes(m));
const days = (n: number) => `${n} day${Math.abs(n) === 1 ? '' : 's'}`;

type Schedule = {
  planned_finish_baseline: string | null;
  planned_finish_now: string | null;
  finish_variance_days: number | null;
  slipped_issues: number;
  pulled_in_issues: number;
  total_slip_days: number;
  added_estimate_minutes: number | null;
  removed_estimate_minutes: number | null;
  estimate_delta_minutes: number | null;
  time_spent_delta_minutes: number | null;
};

/** The schedule variance (contract 18.4): planned finish then and now, slips and pull-ins, effort deltas. */
function ScheduleVariance({ s, recorded }: { s: Schedule; recorded: boolean }) {
  const variance =
    s.finish_variance_days === null
      ? 'n/a'
      : s.finish_variance_days > 0
        ? `${days(s.finish_variance_days)} later`
        : s.finish_variance_days < 0
          ? `${days(-s.finish_variance_days)} earlier`
          : 'on plan';
  return (
    <section aria-labelledby="schedule-variance">
      <h2 id="schedule-variance">Schedule and effort</h2>
      {recorded ? null : <p class="muted">This baseline was taken before dates and estimates were recorded: what needs them reads "not recorded".</p>}
      <Facts
        items={[
          ['Planned finish', `${s.planned_finish_baseline ?? (recorded ? 'none' : 'not recorded')} → ${s.planned_finish_now ?? 'none'}`],
          ['Finish variance', variance],
          ['Slipped issues', `${s.slipped_issues} (${days(s.total_slip_days)} of slip)`],
          ['Pulled-in issues', String(s.pulled_in_issues)],
          ['Estimate change', signedMinutes(s.estimate_delta_minutes)],
          [
            'Estimate of added / removed issues',
            `${s.added_estimate_minutes === null ? 'not recorded' : minutes(s.added_estimate_minutes)} / ${
              s.removed_estimate_minutes === null ? 'not recorded' : minutes(s.removed_estimate_minutes)
            }`,
          ],
          ['Time spent since', signedMinutes(s.time_spent_delta_minutes)],
        ]}
      />
    </section>
  );
}

/** The planning fields that differ on a changed issue, as text. */
function planningChanges(fields: { target_date?: { from: string | null; to: string | null }; estimate_minutes?: { from: number | null; to: number | null } }) {
  const parts: string[] = [];
  if (fields.target_date) parts.push(`target ${fields.target_date.from ?? 'none'} → ${fields.target_date.to ?? 'none'}`);
  if (fields.estimate_minutes) {
    const e = fields.estimate_minutes;
    parts.push(`estimate ${e.from === null ? 'none' : minutes(e.from)} → ${e.to === null ? 'none' : minutes(e.to)}`);
  }
  return parts;
}

export function Deviation({ slug, projectId, baselineId }: { slug: string; projectId: string; baselineId: string }) {
  const dev = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/baselines/{baselineId}/deviation/', { params: { path: { slug, baselineId }, query: { items_limit: 50 } } })),
    [baselineId],
  );
  const issueLink = (i: { id: string; sequence_id: number; name: string }) => (
    <Link to={`/w/${slug}/p/${projectId}/issues/${i.id}`}>
      #{i.sequence_id} {i.name}
    </Link>
  );
  const signed = (n: number) => (n > 0 ? `+${n}` : String(n));
  return (
    <section>
      <Show state={dev}>
        {(d) => (
          <>
            <PageTitle>{`Baseline: ${d.baseline.name}`}</PageTitle>
            <p class="muted">
              Taken {when(d.baseline.snapshot_at)} · issues {d.baseline.total_issues} → {d.current_total} ({signed(d.issues_delta)}) · completed{' '}
              {d.baseline.completed_issues} → {d.current_completed} ({signed(d.completion_delta)})
            </p>
            <ScheduleVariance s={d.schedule} recorded={d.baseline.total_estimate_minutes !== null} />
            <div class="grid2">
              <BarChart title="State groups" keys={STATE_GROUPS} before={d.baseline.state_breakdown} now={d.current_state_breakdown} />
              <BarChart title="Priorities" keys={PRIORITIES} before={d.baseline.priority_breakdown} now={d.current_priority_breakdown} />
            </div>
            <div class="grid3">
              <Change title="Added" count={d.added.count} items={d.added.items}>
                {(i) => (
                  <>
                    {issueLink(i)}{' '}
                    <span class="muted">
                      {i.state_group}, {i.priority}
                    </span>
                  </>
                )}
              </Change>
              <Change title="Removed" count={d.removed.count} items={d.removed.items}>
                {(i) => (
                  <>
                    #{i.sequence_id} {i.name}{' '}
                    <span class="muted">
                      {i.state_group}, {i.priority}
                    </span>
                  </>
                )}
              </Change>
              <Change title="Changed" count={d.changed.count} items={d.changed.items}>
                {(i) => (
                  <>
                    {issueLink(i)}{' '}
                    <span class="muted">
                      {[
                        ...(i.fields.state_group || i.fields.priority
                          ? [`${i.from.state_group}/${i.from.priority} → ${i.to.state_group}/${i.to.priority}`]
                          : []),
                        ...planningChanges(i.fields),
                      ].join(' · ')}
                    </span>
                  </>
                )}
              </Change>
            </div>
          </>
        )}
      </Show>
    </section>
  );
}
