import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import { api, getToken, setToken } from './api.js';
import { Bell } from './components/bell.js';
import { HeaderSearch } from './components/header-search.js';
import { lazy } from './lazy.js';
import { Baselines, Deviation } from './pages/baselines.js';
import { SignIn, SignUp } from './pages/auth.js';
import { Billing } from './pages/billing.js';
import { ForecastPage } from './pages/forecast.js';
import { IssueList } from './pages/issues/issue-list.js';
import { IssuePage } from './pages/issues/issue-page.js';
import { NewIssue } from './pages/issues/new-issue.js';
import { Properties } from './pages/issues/properties.js';
import { AtRiskBoard, BreachedBoard, Policies } from './pages/sla.js';
import { SlaReports } from './pages/sla-reports.js';
import { Calendars } from './pages/calendars.js';
import { Labels } from './pages/labels.js';
import { States } from './pages/states.js';
import { Timesheet } from './pages/timesheet.js';
import { MyIssues, ViewPage, ViewsNav } from './pages/views.js';
import { Projects, Workspaces } from './pages/workspaces.js';
import { Home } from './pages/home.js';
import { Board } from './pages/issues/board.js';
import { Link, match, navigate, useLocation } from './router.js';
import './styles.css';

type Params = Record<string, string>;

// Contract 26.6 (inbox, settings, invitations, password reset, members): one chunk, loaded when one of them opens.
const notices = () => import('./pages/notices-chunk.js');
const Inbox = lazy(() => notices().then((m) => m.Inbox));
const Settings = lazy(() => notices().then((m) => m.Settings));
const Members = lazy(() => notices().then((m) => m.Members));
const Invitation = lazy(() => notices().then((m) => m.Invitation));
const ForgotPassword = lazy(() => notices().then((m) => m.ForgotPassword));
const ResetPassword = lazy(() => notices().then((m) => m.ResetPassword));
// The webhooks pages, a chunk of their own: room in the main bundle (its budget: test/web/console.test.ts).
const webhooks = () => import('./pages/webhooks.js');
const Webhooks = lazy(() => webhooks().then((m) => m.Webhooks));
const WebhookPage = lazy(() => webhooks().then((m) => m.WebhookPage));
const DeliveryPage = lazy(() => webhooks().then((m) => m.DeliveryPage));
interface Route {
  path: string;
  page: (p: Params, query: URLSearchParams) => preact.JSX.Element;
  public?: boolean;
}

/** Every page of the console. A new feature adds its routes here and its links to the nav below. */
const ROUTES: Route[] = [
  { path: '/sign-in', page: () => <SignIn />, public: true },
  { path: '/sign-up', page: () => <SignUp />, public: true },
  { path: '/forgot-password', page: () => <ForgotPassword />, public: true },
  { path: '/password-reset/:token', page: (p) => <ResetPassword key={p.token} token={p.token!} />, public: true },
  { path: '/invitations/:token', page: (p) => <Invitation key={p.token} token={p.token!} />, public: true },
  { path: '/inbox', page: (_, q) => <Inbox query={q} /> },
  { path: '/settings', page: () => <Settings /> },
  { path: '/w/:slug/members', page: (p) => <Members key={p.slug} slug={p.slug!} /> },
  { path: '/', page: () => <Workspaces /> },
  { path: '/w/:slug', page: (p) => <Home key={p.slug} slug={p.slug!} /> },
  { path: '/w/:slug/projects', page: (p) => <Projects slug={p.slug!} /> },
  { path: '/w/:slug/my-issues', page: (p, q) => <MyIssues slug={p.slug!} query={q} /> },
  { path: '/w/:slug/views/:viewId', page: (p, q) => <ViewPage key={p.viewId} slug={p.slug!} viewId={p.viewId!} query={q} /> },
  { path: '/w/:slug/sla/breached', page: (p) => <BreachedBoard slug={p.slug!} /> },
  { path: '/w/:slug/sla/at-risk', page: (p) => <AtRiskBoard slug={p.slug!} /> },
  { path: '/w/:slug/sla/policies', page: (p) => <Policies slug={p.slug!} /> },
  { path: '/w/:slug/sla/calendars', page: (p) => <Calendars slug={p.slug!} /> },
  { path: '/w/:slug/sla/reports', page: (p) => <SlaReports slug={p.slug!} /> },
  { path: '/w/:slug/billing', page: (p) => <Billing slug={p.slug!} /> },
  { path: '/w/:slug/webhooks', page: (p) => <Webhooks slug={p.slug!} /> },
  { path: '/w/:slug/timesheet', page: (p, q) => <Timesheet slug={p.slug!} query={q} /> },
  { path: '/w/:slug/webhooks/:webhookId', page: (p, q) => <WebhookPage key={p.webhookId} slug={p.slug!} webhookId={p.webhookId!} query={q} /> },
  {
    path: '/w/:slug/webhooks/:webhookId/deliveries/:deliveryId',
    page: (p) => <DeliveryPage key={p.deliveryId} slug={p.slug!} webhookId={p.webhookId!} deliveryId={p.deliveryId!} />,
  },
  { path: '/w/:slug/p/:projectId/issues', page: (p, q) => <IssueList slug={p.slug!} projectId={p.projectId!} query={q} /> },
  { path: '/w/:slug/p/:projectId/board', page: (p, q) => <Board key={p.projectId} slug={p.slug!} projectId={p.projectId!} query={q} /> },
  { path: '/w/:slug/p/:projectId/issues/new', page: (p) => <NewIssue slug={p.slug!} projectId={p.projectId!} /> },
  { path: '/w/:slug/p/:projectId/issues/:issueId', page: (p) => <IssuePage key={p.issueId} slug={p.slug!} projectId={p.projectId!} issueId={p.issueId!} /> },
  { path: '/w/:slug/p/:projectId/properties', page: (p) => <Properties slug={p.slug!} projectId={p.projectId!} /> },
  { path: '/w/:slug/p/:projectId/states', page: (p) => <States slug={p.slug!} projectId={p.projectId!} /> },
  { path: '/w/:slug/p/:projectId/labels', page: (p) => <Labels slug={p.slug!} projectId={p.projectId!} /> },
  { path: '/w/:slug/p/:projectId/baselines', page: (p) => <Baselines slug={p.slug!} projectId={p.projectId!} /> },
  { path: '/w/:slug/p/:projectId/forecast', page: (p, q) => <ForecastPage slug={p.slug!} projectId={p.projectId!} query={q} /> },
  { path: '/w/:slug/p/:projectId/baselines/:baselineId', page: (p) => <Deviation slug={p.slug!} projectId={p.projectId!} baselineId={p.baselineId!} /> },
];

function workspaceNav(slug: string) {
  return [
    { to: `/w/${slug}`, label: 'Home' },
    { to: `/w/${slug}/projects`, label: 'Projects' },
    { to: `/w/${slug}/my-issues`, label: 'My issues' },
    { to: `/w/${slug}/sla/breached`, label: 'SLA breached' },
    { to: `/w/${slug}/sla/at-risk`, label: 'SLA at risk' },
    { to: `/w/${slug}/sla/policies`, label: 'SLA policies' },
    { to: `/w/${slug}/sla/calendars`, label: 'SLA calendars' },
    { to: `/w/${slug}/sla/reports`, label: 'SLA reports' },
    { to: `/w/${slug}/billing`, label: 'Billing' },
    { to: `/w/${slug}/webhooks`, label: 'Webhooks' },
    { to: `/w/${slug}/timesheet`, label: 'Timesheet' },
    { to: `/w/${slug}/members`, label: 'Members' },
  ];
}

function projectNav(slug: string, projectId: string) {
  const base = `/w/${slug}/p/${projectId}`;
  return [
    { to: `${base}/issues`, label: 'Issues' },
    { to: `${base}/board`, label: 'Board' },
    { to: `${base}/properties`, label: 'Custom properties' },
    { to: `${base}/states`, label: 'States' },
    { to: `${base}/labels`, label: 'Labels' },
    { to: `${base}/baselines`, label: 'Baselines' },
    { to: `${base}/forecast`, label: 'Forecast' },
  ];
}

function Nav({ items, path, label }: { items: { to: string; label: string }[]; path: string; label: string }) {
  return (
    <nav aria-label={label}>
      <ul>
        {items.map((i) => (
          <li key={i.to}>
            <Link to={i.to} current={path === i.to}>
              {i.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function App() {
  const { path, query } = useLocation();
  const found = ROUTES.map((r) => ({ r, params: match(r.path, path) })).find((x) => x.params);
  const signedIn = Boolean(getToken());
  const needsSignIn = !signedIn && !found?.r.public;
  useEffect(() => {
    if (needsSignIn) navigate('/sign-in', true);
  }, [needsSignIn]);
  useEffect(() => {
    document.querySelector<HTMLElement>('main h1')?.focus({ preventScroll: true });
  }, [path]);
  const signOut = async () => {
    await api()
      .POST('/api/auth/sign-out/')
      .catch(() => undefined);
    setToken(null);
    navigate('/sign-in');
  };
  const slug = path.startsWith('/w/') ? path.split('/')[2] : undefined;
  const projectId = path.split('/')[3] === 'p' ? path.split('/')[4] : undefined;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="shell">
        <Link class="brand" to="/">
          Work items
        </Link>
        {signedIn ? (
          <>
            {slug ? <HeaderSearch slug={slug} /> : null}
            {slug ? <Nav label="Workspace" path={path} items={[{ to: '/', label: 'Workspaces' }, ...workspaceNav(slug)]} /> : null}
            <Bell current={path === '/inbox'} />
            <Link to="/settings" current={path === '/settings'}>
              Settings
            </Link>
            <button type="button" class="link" onClick={() => void signOut()}>
              Sign out
            </button>
          </>
        ) : null}
      </header>
      {signedIn && slug ? <ViewsNav slug={slug} path={path} /> : null}
      {signedIn && slug && projectId && projectId !== 'new' ? (
        <div class="subnav">
          <Nav label="Project" path={path} items={projectNav(slug, projectId)} />
        </div>
      ) : null}
      <main id="main">
        {needsSignIn ? null : found ? (
          found.r.page(found.params!, query)
        ) : (
          <p>
            Page not found. <Link to="/">Back to workspaces</Link>
          </p>
        )}
      </main>
    </>
  );
}

render(<App />, document.getElementById('root')!);
