/**
 * The workspace home (issue 41): what needs me now. My open issues (the most pressing ten), the SLA targets breached
 * and at risk, each project with its open issues and forecast, and the billing state (a failed renewal warns here).
 * Each section loads and fails on its own, so one the caller may not read (a guest's billing) leaves the rest.
 */
import type { ComponentChildren } from 'preact';
import { type Answer, api, unwrap } from '../api.js';
import { issueKey, loadProjectMeta, PriorityIcon, type State, StateBadge } from '../components/issue-bits.js';
import { codeName, count, date, dateTimeLong, percent, relative, today } from '../format.js';
import { Link } from '../router.js';
import { Empty, type Loaded, PageTitle, ProblemView, Show, useLoad } from '../ui.js';
import './home.css';

type Project = Answer<'listProjects'>[number];
type Issue = Answer<'listWorkspaceIssues'>['results'][number];
type Subscription = NonNullable<Answer<'getSubscription'>['subscription']>;

const OPEN_GROUPS = ['backlog', 'unstarted', 'started'];
const SHOWN = 10;
/** How many of my open issues are read to pick the most pressing ones from (the API sorts by one key only). */
const READ = 100;
const RANK: Record<string, number> = { urgent: 0, high: 1, medium: 2, low: 3, none: 4 };

/**
 * Most pressing first: overdue, then due within a week, then the rest; within each, by priority, then by due date
 * (none last), then oldest first.
 */
function pressing(issues: Issue[], todayDate: string): Issue[] {
  const soon = new Date(`${todayDate}T00:00:00Z`);
  soon.setUTCDate(soon.getUTCDate() + 7);
  const weekAhead = soon.toISOString().slice(0, 10);
  const urgency = (i: Issue) => (i.target_date === null ? 2 : i.target_date < todayDate ? 0 : i.target_date <= weekAhead ? 1 : 2);
  return [...issues].sort(
    (a, b) =>
      urgency(a) - urgency(b) ||
      (RANK[a.priority] ?? 4) - (RANK[b.priority] ?? 4) ||
      (a.target_date ?? '9999').localeCompare(b.target_date ?? '9999') ||
      a.created_at.localeCompare(b.created_at),
  );
}

function Section({ id, title, children, more }: { id: string; title: string; children: ComponentChildren; more?: ComponentChildren }) {
  return (
    <section class="home-section card" aria-labelledby={id}>
      <div class="home-section-head">
        <h2 id={id}>{title}</h2>
        {more}
      </div>
      {children}
    </section>
  );
}

/** My open issues (assigned to me, not done or cancelled), the most pressing ten, with their state by name. */
function MyIssues({ slug, projects }: { slug: string; projects: Map<string, Project> }) {
  const mine = useLoad(async () => {
    const page = await unwrap(
      api().GET('/api/workspaces/{slug}/issues/', {
        params: { path: { slug }, query: { assignee_id: 'me', state_group: OPEN_GROUPS, order_by: 'priority', offset: 0, per_page: READ } },
      }),
    );
    const shown = pressing(page.results, today()).slice(0, SHOWN);
    const metas = await Promise.all([...new Set(shown.map((i) => i.project_id))].map((id) => loadProjectMeta(slug, id)));
    const states = new Map<string, State>(metas.flatMap((m) => m.states.map((s) => [s.id, s] as const)));
    return { shown, total: page.total, states };
  }, [slug]);
  const todayDate = today();
  return (
    <Section
      id="home-mine"
      title="My open issues"
      more={mine.data && mine.data.total > 0 ? <Link to={`/w/${slug}/my-issues`}>{`All ${count(mine.data.total)} assigned to me`}</Link> : null}
    >
      <Show state={mine}>
        {({ shown, total, states }) =>
          shown.length ? (
            <>
              <ul class="home-issues">
                {shown.map((i) => {
                  const key = issueKey(projects.get(i.project_id)?.identifier, i.sequence_id);
                  const overdue = i.target_date !== null && i.target_date < todayDate;
                  return (
                    <li key={i.id}>
                      <PriorityIcon priority={i.priority} />
                      <Link class="home-issue-link" to={`/w/${slug}/p/${i.project_id}/issues/${i.id}`}>
                        <span class="issue-key">{key}</span> <span class="home-issue-name">{i.name}</span>
                      </Link>
                      <span class="home-issue-meta">
                        <StateBadge state={states.get(i.state_id)} group={i.state_group} />
                        <span class={overdue ? 'home-due overdue' : 'home-due'}>
                          {i.target_date ? (
                            <>
                              {overdue ? 'Overdue, was due ' : 'Due '}
                              <time dateTime={i.target_date}>{date(i.target_date)}</time>
                            </>
                          ) : (
                            'No due date'
                          )}
                        </span>
                      </span>
                    </li>
                  );
                })}
              </ul>
              {total > shown.length ? (
                <p class="muted">{`The ${shown.length} most pressing of ${count(total)}: overdue and due this week first, then by priority.`}</p>
              ) : null}
            </>
          ) : (
            <Empty>Nothing open is assigned to you.</Empty>
          )
        }
      </Show>
    </Section>
  );
}

/** The totals of the two SLA boards, each a link to its board. */
function Sla({ slug }: { slug: string }) {
  const counts = useLoad(async () => {
    const query = { offset: 0, per_page: 1 };
    const [breached, atRisk] = await Promise.all([
      unwrap(api().GET('/api/workspaces/{slug}/sla-breached/', { params: { path: { slug }, query } })),
      unwrap(api().GET('/api/workspaces/{slug}/sla-at-risk/', { params: { path: { slug }, query } })),
    ]);
    return { breached: breached.total, atRisk: atRisk.total };
  }, [slug]);
  return (
    <Section id="home-sla" title="Service levels">
      <Show state={counts}>
        {({ breached, atRisk }) => (
          <ul class="home-stats">
            <li class={breached ? 'stat bad' : 'stat'}>
              <Link to={`/w/${slug}/sla/breached`}>
                <span class="stat-number">{count(breached)}</span> {breached === 1 ? 'target breached' : 'targets breached'}
              </Link>
            </li>
            <li class={atRisk ? 'stat warn' : 'stat'}>
              <Link to={`/w/${slug}/sla/at-risk`}>
                <span class="stat-number">{count(atRisk)}</span> {atRisk === 1 ? 'target at risk' : 'targets at risk'}
              </Link>
            </li>
          </ul>
        )}
      </Show>
    </Section>
  );
}

/** A project's forecast in one sentence: the likely finish (and the safe one), or why there is none. */
function ForecastLine({ slug, project }: { slug: string; project: Project }) {
  const forecast = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/forecast/', { params: { path: { slug, projectId: project.id } } })),
    [slug, project.id],
  );
  if (forecast.error) return <p class="muted">No forecast: it could not be read.</p>;
  const f = forecast.data;
  if (!f) return <p class="muted">Forecast loading…</p>;
  if (f.remaining_issues === 0) return <p class="muted">No open issues: nothing to forecast.</p>;
  if (!f.finish_p50) return <p class="muted">{`No forecast yet: no issue was completed in the last weeks, so there is no pace to go by.`}</p>;
  return (
    <p>
      {'Likely done by '}
      <strong>
        <time dateTime={f.finish_p50}>{date(f.finish_p50)}</time>
      </strong>
      {f.finish_p85 ? (
        <>
          {` (${percent(85, 0)} sure by `}
          <time dateTime={f.finish_p85}>{date(f.finish_p85)}</time>)
        </>
      ) : null}
      .
    </p>
  );
}

/** Open issues of a project: one count query (the list's exact total). */
function OpenCount({ slug, projectId }: { slug: string; projectId: string }) {
  const open = useLoad(
    () =>
      unwrap(
        api().GET('/api/workspaces/{slug}/issues/', {
          params: { path: { slug }, query: { project_id: projectId, state_group: OPEN_GROUPS, offset: 0, per_page: 1 } },
        }),
      ),
    [slug, projectId],
  );
  return <span class="muted">{open.data ? `${count(open.data.total)} open` : ''}</span>;
}

function Projects({ slug, projects }: { slug: string; projects: Project[] }) {
  return (
    <Section id="home-projects" title="Projects" more={<Link to={`/w/${slug}/projects`}>Create or manage a project</Link>}>
      {projects.length ? (
        <ul class="home-projects">
          {projects.map((p) => (
            <li key={p.id}>
              <div class="home-project-head">
                <Link to={`/w/${slug}/p/${p.id}/issues`}>{p.name}</Link> <span class="issue-key">{p.identifier}</span>{' '}
                <OpenCount slug={slug} projectId={p.id} />
              </div>
              <ForecastLine slug={slug} project={p} />
              <p class="home-project-links">
                <Link to={`/w/${slug}/p/${p.id}/board`}>{`Board of ${p.name}`}</Link>
                <Link to={`/w/${slug}/p/${p.id}/forecast`}>{`Forecast of ${p.name}`}</Link>
              </p>
            </li>
          ))}
        </ul>
      ) : (
        <Empty>No projects yet.</Empty>
      )}
    </Section>
  );
}

/** What the billing state asks of the team, if anything: a failed renewal, a trial's end, a cancellation. */
function billingNote(s: Subscription | null): { tone: 'bad' | 'warn' | null; text: ComponentChildren } {
  if (!s) return { tone: null, text: 'No subscription: the workspace is on the free plan.' };
  const end = (
    <time
      dateTime={s.current_period_end}
      title={dateTimeLong(s.current_period_end)}
    >{`${date(s.current_period_end)} (${relative(s.current_period_end)})`}</time>
  );
  switch (s.status) {
    case 'past_due':
      return {
        tone: 'bad',
        text: <>The last renewal payment failed. Pay now or update the card to keep the plan: it is suspended when the grace period ends.</>,
      };
    case 'suspended':
      return { tone: 'bad', text: <>The subscription is suspended: the period is unpaid. Pay to restore the plan.</> };
    case 'trialing':
      return { tone: 'warn', text: <>The trial ends {end}. Pay before then to keep the plan.</> };
    case 'active':
      return { tone: null, text: s.cancel_at_period_end ? <>Cancels at the end of the period, {end}.</> : <>Renews {end}.</> };
    default:
      return { tone: null, text: 'The workspace is on the free plan.' };
  }
}

type SubscriptionState = Loaded<Answer<'getSubscription'>>;

/** The plan, its status by name and what it asks of the team; a failed renewal as a warning at the top of the page. */
function Billing({ slug, sub, alert }: { slug: string; sub: SubscriptionState; alert: boolean }) {
  if (sub.error) return alert ? null : <ProblemView error={sub.error} />;
  if (!sub.data) return null;
  const { subscription, limits } = sub.data;
  const note = billingNote(subscription);
  if ((note.tone === 'bad') !== alert) return null;
  const body = (
    <>
      <p class="home-plan">
        <strong>{limits.plan_name}</strong> {subscription ? <span class={`badge ${note.tone ?? 'ok'}`}>{codeName(subscription.status)}</span> : null}
      </p>
      <p>{note.text}</p>
    </>
  );
  return alert ? (
    <section class="home-alert" aria-labelledby="home-billing">
      <h2 id="home-billing">Payment needed</h2>
      {body}
      <Link class="button" to={`/w/${slug}/billing`}>
        Open billing to pay
      </Link>
    </section>
  ) : (
    <Section id="home-billing" title="Plan" more={<Link to={`/w/${slug}/billing`}>Plan and payments</Link>}>
      {body}
    </Section>
  );
}

export function Home({ slug }: { slug: string }) {
  const workspace = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/', { params: { path: { slug } } })), [slug]);
  const projects = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/projects/', { params: { path: { slug } } })), [slug]);
  const sub = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/billing/subscription/', { params: { path: { slug } } })), [slug]);
  return (
    <section class="home">
      <PageTitle>Home</PageTitle>
      {workspace.data ? <p class="muted home-workspace">{workspace.data.name}</p> : null}
      <Billing slug={slug} sub={sub} alert />
      <div class="home-grid">
        <Show state={projects}>{(list) => <MyIssues slug={slug} projects={new Map(list.map((p) => [p.id, p]))} />}</Show>
        <Sla slug={slug} />
      </div>
      <Show state={projects}>{(list) => <Projects slug={slug} projects={list} />}</Show>
      <Billing slug={slug} sub={sub} alert={false} />
    </section>
  );
}
