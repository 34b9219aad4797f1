/**
 * The SLA boards (issue 41): the breached board (open breaches first, then the resolved ones, each paged) and the
 * at-risk board (the time left), both with a count, a project filter kept in the URL, and a live refresh every 10 s that
 * announces changed counts politely and never moves the focus.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, unwrap } from '../../api.js';
import { Link, navigate, useLocation } from '../../router.js';
import { count, time } from '../../format.js';
import { Empty, Field, type Loaded, PageTitle, Pager, ProblemView, Show, useLoad } from '../../ui.js';
import { type Project, type Tracker, TrackerTable } from './board-rows.js';
import './sla.css';

const REFRESH_MS = 10_000;
const PER_PAGE = 20;

type Page = { results: Tracker[]; total: number; offset: number; per_page: number };
type Query = { offset: number; per_page: number; project_id?: string; status?: 'open' | 'resolved' };

const loadBreached = (slug: string, query: Query) => unwrap(api().GET('/api/workspaces/{slug}/sla-breached/', { params: { path: { slug }, query } }));
const loadAtRisk = (slug: string, query: Query) => unwrap(api().GET('/api/workspaces/{slug}/sla-at-risk/', { params: { path: { slug }, query } }));

/** Reloads the lists every 10 s while the tab is visible; answers the instant of the last check (the "now" of the times). */
function useLive(reloads: (() => Promise<void>)[]): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const t = setInterval(() => {
      if (document.visibilityState === 'visible') void Promise.all(reloads.map((r) => r())).then(() => setNow(new Date()));
    }, REFRESH_MS);
    return () => clearInterval(t);
  }, reloads);
  return now;
}

/** The filter and offsets of a board, read from and written to the URL (so a link or a reload keeps them). */
function useBoardUrl(path: string) {
  const { query } = useLocation();
  const projectId = query.get('project_id') ?? '';
  const offset = (name: string) => Math.max(0, Number(query.get(name)) || 0);
  const set = (changes: Record<string, string | number>) => {
    const next = new URLSearchParams(query);
    for (const [k, v] of Object.entries(changes)) {
      if (v === '' || v === 0) next.delete(k);
      else next.set(k, String(v));
    }
    const qs = next.toString();
    navigate(qs ? `${path}?${qs}` : path, true);
  };
  return { projectId, offset, set };
}

function useProjects(slug: string) {
  return useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/projects/', { params: { path: { slug } } })), [slug]);
}

function ProjectFilter({ projects, value, onChange }: { projects: Project[]; value: string; onChange: (id: string) => void }) {
  return (
    <Field label="Project">
      {(id) => (
        <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
          <option value="">All projects</option>
          {projects.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name} ({p.identifier})
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** The filter and when the board was last checked (not a live region: it changes every 10 s). */
function BoardBar({ projects, projectId, onProject, now }: { projects: Project[]; projectId: string; onProject: (id: string) => void; now: Date }) {
  return (
    <div class="board-bar">
      <ProjectFilter projects={projects} value={projectId} onChange={onProject} />
      <p class="muted live-note">
        Updates every 10 seconds · checked at <time dateTime={now.toISOString()}>{time(now)}</time>
      </p>
    </div>
  );
}

/** One paged list of trackers under its heading with its count. */
function TrackerSection({
  slug,
  title,
  state,
  projects,
  now,
  offset,
  onPage,
  empty,
}: {
  slug: string;
  title: string;
  state: Loaded<Page>;
  projects: ReadonlyMap<string, Project>;
  now: Date;
  offset: number;
  onPage: (offset: number) => void;
  empty: string;
}) {
  const id = `${title.toLowerCase().replace(/\W+/g, '-')}-heading`;
  return (
    <section aria-labelledby={id} class="board-section">
      <h2 id={id}>
        {title} <span class="count">{state.data ? count(state.data.total) : ''}</span>
      </h2>
      <Show state={state}>
        {(page) =>
          page.results.length ? (
            <>
              <TrackerTable slug={slug} rows={page.results} projects={projects} now={now} label={title} />
              <Pager offset={offset} perPage={PER_PAGE} shown={page.results.length} total={page.total} onPage={onPage} label={`${title}: pages`} />
            </>
          ) : (
            <Empty>{empty}</Empty>
          )
        }
      </Show>
    </section>
  );
}

const byId = (projects: Project[] | undefined) => new Map((projects ?? []).map((p) => [p.id, p]));

/** Breached trackers: the open breaches (the issue not resolved), then the resolved ones, each most overdue first. */
export function BreachedBoard({ slug }: { slug: string }) {
  const url = useBoardUrl(`/w/${slug}/sla/breached`);
  const projects = useProjects(slug);
  const filter = url.projectId ? { project_id: url.projectId } : {};
  const [openAt, resolvedAt] = [url.offset('open_offset'), url.offset('resolved_offset')];
  const open = useLoad(() => loadBreached(slug, { ...filter, status: 'open', offset: openAt, per_page: PER_PAGE }), [slug, url.projectId, openAt]);
  const resolved = useLoad(
    () => loadBreached(slug, { ...filter, status: 'resolved', offset: resolvedAt, per_page: PER_PAGE }),
    [slug, url.projectId, resolvedAt],
  );
  const now = useLive([open.reload, resolved.reload]);
  const map = byId(projects.data);
  const total = open.data && resolved.data ? open.data.total + resolved.data.total : null;
  return (
    <section class="board sla-board">
      <PageTitle actions={<Link to={`/w/${slug}/sla/at-risk`}>At-risk trackers</Link>}>SLA breached</PageTitle>
      <ProblemView error={projects.error} />
      <BoardBar
        projects={projects.data ?? []}
        projectId={url.projectId}
        onProject={(id) => url.set({ project_id: id, open_offset: 0, resolved_offset: 0 })}
        now={now}
      />
      <p class="board-count" role="status">
        {total === null
          ? ''
          : total === 0
            ? 'Nothing is breached. Well done.'
            : `${count(total)} breached: ${count(open.data!.total)} open, ${count(resolved.data!.total)} resolved`}
      </p>
      <TrackerSection
        slug={slug}
        title="Open breaches"
        state={open}
        projects={map}
        now={now}
        offset={openAt}
        onPage={(o) => url.set({ open_offset: o })}
        empty="No open breaches."
      />
      <TrackerSection
        slug={slug}
        title="Resolved breaches"
        state={resolved}
        projects={map}
        now={now}
        offset={resolvedAt}
        onPage={(o) => url.set({ resolved_offset: o })}
        empty="No resolved breaches."
      />
    </section>
  );
}

/** Trackers at risk (an open target has counted its policy's at-risk share), the soonest due first, with the time left. */
export function AtRiskBoard({ slug }: { slug: string }) {
  const url = useBoardUrl(`/w/${slug}/sla/at-risk`);
  const projects = useProjects(slug);
  const offset = url.offset('offset');
  const list = useLoad(
    () => loadAtRisk(slug, { ...(url.projectId ? { project_id: url.projectId } : {}), offset, per_page: PER_PAGE }),
    [slug, url.projectId, offset],
  );
  const now = useLive([list.reload]);
  const total = list.data?.total;
  return (
    <section class="board sla-board">
      <PageTitle actions={<Link to={`/w/${slug}/sla/breached`}>Breached trackers</Link>}>SLA at risk</PageTitle>
      <ProblemView error={projects.error} />
      <BoardBar projects={projects.data ?? []} projectId={url.projectId} onProject={(id) => url.set({ project_id: id, offset: 0 })} now={now} />
      <p class="board-count" role="status">
        {total === undefined ? '' : total === 0 ? 'Nothing is at risk right now.' : `${count(total)} at risk`}
      </p>
      <TrackerSection
        slug={slug}
        title="At risk, soonest due first"
        state={list}
        projects={byId(projects.data)}
        now={now}
        offset={offset}
        onPage={(o) => url.set({ offset: o })}
        empty="No issue is close to a target."
      />
    </section>
  );
}
