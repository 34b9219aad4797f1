import { api, PRIORITIES, STATE_GROUPS, unwrap, when } from '../api.js';
import { Link, navigate } from '../router.js';
import type { ComponentChildren } from 'preact';
import { ActionForm } from '../components/action-form.js';
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
                      {i.from.state_group}/{i.from.priority} → {i.to.state_group}/{i.to.priority}
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
