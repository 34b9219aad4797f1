/**
 * Baselines of a project (contract 18.4): the list with "take a baseline", and one baseline's deviation: counts then
 * and now, the schedule and effort variance, state groups and priorities as bars, and the added, removed and changed
 * issues by key.
 */
import type { ComponentChildren } from 'preact';
import { api, PRIORITIES, STATE_GROUPS, unwrap } from '../api.js';
import { ActionForm } from '../components/action-form.js';
import { Facts } from '../components/facts.js';
import { issueKey, PriorityIcon, useProjectMeta } from '../components/issue-bits.js';
import { CardList } from '../components/list-view.js';
import { codeName, count, date, dateTime, minutes } from '../format.js';
import { Link, navigate } from '../router.js';
import { Empty, Field, formValues, PageTitle, Show, useAction, useLoad } from '../ui.js';
import './baselines.css';

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
              {dateTime(b.snapshot_at)} · {count(b.total_issues)} issues, {count(b.completed_issues)} completed
            </span>
          </>
        )}
      </CardList>
    </section>
  );
}

/** Grouped bars, baseline against now, as HTML (its text keeps the page's size at every width). */
function BarChart({ title, keys, before, now }: { title: string; keys: readonly string[]; before: Record<string, number>; now: Record<string, number> }) {
  const max = Math.max(1, ...keys.map((k) => Math.max(before[k] ?? 0, now[k] ?? 0)));
  const width = (n: number) => ({ width: `${(n / max) * 100}%` });
  return (
    <figure class="bar-chart">
      <figcaption>{title}</figcaption>
      <p class="bar-legend" aria-hidden="true">
        <span class="swatch before" /> baseline <span class="swatch now" /> now
      </p>
      <ul>
        {keys.map((k) => {
          const b = before[k] ?? 0;
          const n = now[k] ?? 0;
          return (
            <li key={k}>
              <span class="bar-label">{codeName(k)}</span>
              <span class="bar-line">
                <span class="bar before" style={width(b)} aria-hidden="true" />
                <span class="bar-value">
                  <span class="sr-only">baseline </span>
                  {count(b)}
                </span>
              </span>
              <span class="bar-line">
                <span class="bar now" style={width(n)} aria-hidden="true" />
                <span class="bar-value">
                  <span class="sr-only">now </span>
                  {count(n)}
                </span>
              </span>
            </li>
          );
        })}
      </ul>
    </figure>
  );
}

/** One column of the deviation: its count, and the first items (or None). */
function Change<T extends { id: string }>({
  title,
  count: n,
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
        {title} ({count(n)})
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

/** A change of minutes in words: "1 hr 45 min more", "30 min less", "no change". */
const signedMinutes = (m: number | null) => (m === null ? 'not recorded' : m === 0 ? 'no change' : `${minutes(m)} ${m > 0 ? 'more' : 'less'}`);
const days = (n: number) => `${count(n)} day${Math.abs(n) === 1 ? '' : 's'}`;
/** A date that may be missing: the date, or why it is missing. */
const dateOr = (value: string | null, missing: string) => (value ? date(value) : missing);

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
          ['Planned finish', `${dateOr(s.planned_finish_baseline, recorded ? 'none' : 'not recorded')} → ${dateOr(s.planned_finish_now, 'none')}`],
          ['Finish variance', variance],
          ['Slipped issues', `${count(s.slipped_issues)} (${days(s.total_slip_days)} of slip)`],
          ['Pulled-in issues', count(s.pulled_in_issues)],
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
  if (fields.target_date) parts.push(`target ${dateOr(fields.target_date.from, 'none')} → ${dateOr(fields.target_date.to, 'none')}`);
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
  const meta = useProjectMeta(slug, projectId);
  const key = (i: { sequence_id: number }) => issueKey(meta.data?.project.identifier, i.sequence_id);
  const issueLink = (i: { id: string; sequence_id: number; name: string }) => (
    <Link to={`/w/${slug}/p/${projectId}/issues/${i.id}`}>
      {key(i)} {i.name}
    </Link>
  );
  const signed = (n: number) => (n > 0 ? `+${count(n)}` : n < 0 ? `−${count(-n)}` : 'no change');
  const where = (i: { state_group: string; priority: string }) => (
    <span class="muted">
      {codeName(i.state_group)} · <PriorityIcon priority={i.priority} withText />
    </span>
  );
  const move = (from: { state_group: string; priority: string }, to: { state_group: string; priority: string }) =>
    `${codeName(from.state_group)}, ${codeName(from.priority)} → ${codeName(to.state_group)}, ${codeName(to.priority)}`;
  return (
    <section class="baseline">
      <Show state={dev}>
        {(d) => (
          <>
            <PageTitle>{`Baseline: ${d.baseline.name}`}</PageTitle>
            <p class="muted">
              Taken {dateTime(d.baseline.snapshot_at)} · issues {count(d.baseline.total_issues)} → {count(d.current_total)} ({signed(d.issues_delta)}) ·
              completed {count(d.baseline.completed_issues)} → {count(d.current_completed)} ({signed(d.completion_delta)})
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
                    {issueLink(i)} {where(i)}
                  </>
                )}
              </Change>
              <Change title="Removed" count={d.removed.count} items={d.removed.items}>
                {(i) => (
                  <>
                    {key(i)} {i.name} {where(i)}
                  </>
                )}
              </Change>
              <Change title="Changed" count={d.changed.count} items={d.changed.items}>
                {(i) => (
                  <>
                    {issueLink(i)}{' '}
                    <span class="muted">
                      {[...(i.fields.state_group || i.fields.priority ? [move(i.from, i.to)] : []), ...planningChanges(i.fields)].join(' · ')}
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
