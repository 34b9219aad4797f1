import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, getToken, setToken } from './api.js';
import { Bell } from './components/bell.js';
import { HeaderSearch } from './components/header-search.js';
import { setTimeZone } from './format.js';
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
import './shell.css';

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

interface NavItem {
  to: string;
  label: string;
}

/** The workspace's pages, in groups: the day's work, the service desk, the workspace's administration. */
function workspaceNav(slug: string): { label: string; items: NavItem[] }[] {
  const w = `/w/${slug}`;
  return [
    {
      label: 'Workspace',
      items: [
        { to: w, label: 'Home' },
        { to: `${w}/my-issues`, label: 'My issues' },
        { to: `${w}/projects`, label: 'Projects' },
      ],
    },
    {
      label: 'Service desk',
      items: [
        { to: `${w}/sla/breached`, label: 'SLA breached' },
        { to: `${w}/sla/at-risk`, label: 'SLA at risk' },
        { to: `${w}/sla/policies`, label: 'SLA policies' },
        { to: `${w}/sla/calendars`, label: 'SLA calendars' },
        { to: `${w}/sla/reports`, label: 'SLA reports' },
      ],
    },
    {
      label: 'Settings',
      items: [
        { to: `${w}/members`, label: 'Members' },
        { to: `${w}/timesheet`, label: 'Timesheet' },
        { to: `${w}/billing`, label: 'Billing' },
        { to: `${w}/webhooks`, label: 'Webhooks' },
      ],
    },
  ];
}

function projectNav(slug: string, projectId: string): NavItem[] {
  const base = `/w/${slug}/p/${projectId}`;
  return [
    { to: `${base}/issues`, label: 'Issues' },
    { to: `${base}/board`, label: 'Board' },
    { to: `${base}/forecast`, label: 'Forecast' },
    { to: `${base}/baselines`, label: 'Baselines' },
    { to: `${base}/states`, label: 'States' },
    { to: `${base}/labels`, label: 'Labels' },
    { to: `${base}/properties`, label: 'Custom properties' },
  ];
}

/** A list of links; the current page's link says so (`aria-current`), also for pages below it (an issue of the list). */
function NavList({ items, path }: { items: NavItem[]; path: string }) {
  // A page below a link's page (an issue below its list) marks that link; the workspace's home only marks itself.
  const below = items.filter((i) => i.to.split('/').length > 3 && path.startsWith(`${i.to}/`));
  const current = items.find((i) => i.to === path) ?? below.sort((a, b) => b.to.length - a.to.length)[0];
  return (
    <ul>
      {items.map((i) => (
        <li key={i.to}>
          <Link to={i.to} current={i === current}>
            {i.label}
          </Link>
        </li>
      ))}
    </ul>
  );
}

/**
 * The sidebar of a workspace's pages: its groups, the saved views, and the project's pages inside a project. On a wide
 * screen it is a column beside the page; on a phone it folds behind the header's "Menu" button and closes when a link
 * is followed.
 */
function Sidebar({ slug, projectId, path, open, signOut }: { slug: string; projectId: string | undefined; path: string; open: boolean; signOut: () => void }) {
  return (
    <aside id="sidebar" class={open ? 'sidebar open' : 'sidebar'} aria-label="Sidebar">
      <nav aria-label="Workspace">
        <Link class="all-workspaces" to="/">
          All workspaces
        </Link>
        {workspaceNav(slug).map((g) => (
          <div class="nav-group" key={g.label}>
            <p class="nav-heading">{g.label}</p>
            <NavList items={g.items} path={path} />
          </div>
        ))}
      </nav>
      <ViewsNav slug={slug} path={path} />
      {projectId && projectId !== 'new' ? (
        <nav aria-label="Project">
          <div class="nav-group">
            <p class="nav-heading">Project</p>
            <NavList items={projectNav(slug, projectId)} path={path} />
          </div>
        </nav>
      ) : null}
      <nav aria-label="Account (menu)" class="phone-only">
        <div class="nav-group">
          <p class="nav-heading">Account</p>
          <ul>
            <li>
              <Link to="/settings">Settings</Link>
            </li>
            <li>
              <button type="button" class="link" onClick={signOut}>
                Sign out
              </button>
            </li>
          </ul>
        </div>
      </nav>
    </aside>
  );
}

const ZONE_KEY = 'wis.console.tz';

/** The user's time zone for every time the console shows: the last one known at once, then the profile's. */
function useUserTimeZone(signedIn: boolean): void {
  const [, setZone] = useState<string | null>(() => {
    const known = localStorage.getItem(ZONE_KEY);
    setTimeZone(known);
    return known;
  });
  useEffect(() => {
    if (!signedIn) return;
    void api()
      .GET('/api/users/me/')
      .then(
        ({ data }) => {
          const zone = data?.time_zone ?? null;
          if (zone === localStorage.getItem(ZONE_KEY)) return;
          if (zone) localStorage.setItem(ZONE_KEY, zone);
          else localStorage.removeItem(ZONE_KEY);
          setTimeZone(zone);
          setZone(zone);
        },
        () => undefined,
      );
  }, [signedIn]);
}

function App() {
  const { path, query } = useLocation();
  const found = ROUTES.map((r) => ({ r, params: match(r.path, path) })).find((x) => x.params);
  const signedIn = Boolean(getToken());
  const needsSignIn = !signedIn && !found?.r.public;
  const [menuOpen, setMenuOpen] = useState(false);
  useUserTimeZone(signedIn);
  useEffect(() => {
    if (needsSignIn) navigate('/sign-in', true);
  }, [needsSignIn]);
  useEffect(() => {
    setMenuOpen(false);
    document.querySelector<HTMLElement>('main h1')?.focus({ preventScroll: true });
  }, [path]);
  const signOut = async () => {
    await api()
      .POST('/api/auth/sign-out/')
      .catch(() => undefined);
    setToken(null);
    localStorage.removeItem(ZONE_KEY);
    navigate('/sign-in');
  };
  const slug = path.startsWith('/w/') ? path.split('/')[2] : undefined;
  const projectId = path.split('/')[3] === 'p' ? path.split('/')[4] : undefined;
  const sidebar = signedIn && slug;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="shell">
        {sidebar ? (
          <button type="button" class="menu-button" aria-expanded={menuOpen} aria-controls="sidebar" onClick={() => setMenuOpen(!menuOpen)}>
            <svg aria-hidden="true" viewBox="0 0 20 20" width="20" height="20">
              <path fill="currentColor" d="M2 4h16v2H2zm0 5h16v2H2zm0 5h16v2H2z" />
            </svg>
            Menu
          </button>
        ) : null}
        <Link class="brand" to={slug && signedIn ? `/w/${slug}` : '/'}>
          Work items
        </Link>
        {signedIn ? (
          <>
            {slug ? <HeaderSearch slug={slug} /> : null}
            <nav aria-label="Account" class="account">
              <ul>
                {slug ? null : (
                  <li>
                    <Link to="/" current={path === '/'}>
                      Workspaces
                    </Link>
                  </li>
                )}
                <li>
                  <Bell current={path === '/inbox'} />
                </li>
                <li class={sidebar ? 'wide-only' : undefined}>
                  <Link to="/settings" current={path === '/settings'}>
                    Settings
                  </Link>
                </li>
                <li class={sidebar ? 'wide-only' : undefined}>
                  <button type="button" class="link" onClick={() => void signOut()}>
                    Sign out
                  </button>
                </li>
              </ul>
            </nav>
          </>
        ) : null}
      </header>
      <div class={sidebar ? 'layout with-sidebar' : 'layout'}>
        {sidebar ? <Sidebar slug={slug} projectId={projectId} path={path} open={menuOpen} signOut={() => void signOut()} /> : null}
        <main id="main">
          {needsSignIn ? null : found ? (
            found.r.page(found.params!, query)
          ) : (
            <p>
              Page not found. <Link to="/">Back to workspaces</Link>
            </p>
          )}
        </main>
      </div>
    </>
  );
}

render(<App />, document.getElementById('root')!);
