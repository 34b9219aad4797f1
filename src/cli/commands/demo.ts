import { ApiError, createClient, unwrap, type WorkItemClient } from '../../../client/src/index.js';
import { type Command, UsageError } from '../cli.js';

const DEMO = { email: 'demo@example.com', password: 'demo-password', slug: 'demo' };
const ISSUE_COUNT = 240;

/** A deterministic pseudo-random sequence, so every demo looks the same. */
function seeded(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  return { next, pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]! };
}

/** Runs `work` over `items` with a few requests in flight at once. */
async function inParallel<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]!, i);
      }
    }),
  );
  return results;
}

const SUBJECTS = [
  'Login page',
  'Invoice PDF',
  'Password reset',
  'Search',
  'Dashboard',
  'Mobile app',
  'Export to CSV',
  'Notifications',
  'Billing page',
  'API rate limits',
  'SSO setup',
  'Dark mode',
];
const PROBLEMS = ['is slow', 'shows an error', 'does not load', 'has a typo', 'times out', 'looks broken on mobile', 'needs a new option', 'returns 500'];
const PRIORITIES = ['urgent', 'high', 'high', 'medium', 'medium', 'medium', 'low', 'low', 'none'] as const;
const GROUPS = ['backlog', 'unstarted', 'unstarted', 'started', 'started', 'completed', 'completed', 'cancelled'] as const;

async function signInOrUp(api: WorkItemClient): Promise<{ token: string; created: boolean }> {
  const signIn = await api.POST('/api/auth/sign-in/', { body: { email: DEMO.email, password: DEMO.password } });
  if (signIn.data) return { token: signIn.data.token, created: false };
  const up = await unwrap(api.POST('/api/auth/sign-up/', { body: { email: DEMO.email, password: DEMO.password, display_name: 'Demo Admin' } }));
  return { token: up.token, created: true };
}

/**
 * `demo`: fills a running service with a living example through its public API (the typed client), so it works on
 * the embedded database while the server holds it. Run twice, it says what exists and changes nothing.
 */
export const demoCommand: Command = {
  name: 'demo',
  summary: 'fill a running service with a demo workspace (run `npm start` first)',
  usage: '[--url http://127.0.0.1:3000]',
  help:
    'Creates the account demo@example.com (password demo-password), the workspace "demo" with two projects,\n' +
    `${ISSUE_COUNT} issues across states and priorities, SLA policies with some breached and at-risk trackers, custom properties\n` +
    'with values, two baselines, and a paid subscription with its invoice (sandbox provider). Talks to the service\n' +
    'over HTTP, so the service must be running.',
  options: { url: { type: 'string' } },
  run: async (values, ctx) => {
    const config = ctx.config();
    const baseUrl = typeof values.url === 'string' ? values.url : `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
    if (!/^https?:\/\/[^/]+/.test(baseUrl)) throw new UsageError(`--url "${baseUrl}" is not an http(s) address`);
    try {
      await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(5_000) });
    } catch {
      ctx.out(`error: the service does not answer at ${baseUrl}; start it with \`npm start\` (or pass --url)`);
      return 1;
    }
    const anonymous = createClient({ baseUrl });
    const { token, created } = await signInOrUp(anonymous);
    const api = createClient({ baseUrl, token });
    const existing = await api.GET('/api/workspaces/{slug}/', { params: { path: { slug: DEMO.slug } } });
    if (existing.data) {
      ctx.out(`The demo already exists: workspace "${DEMO.slug}" at ${baseUrl}/app/ — sign in as ${DEMO.email} / ${DEMO.password}. Nothing changed.`);
      return 0;
    }
    if (!created && existing.response.status !== 404) throw new ApiError(existing.error as never);
    const started = Date.now();
    const step = (text: string) => ctx.out(`  ${text}`);
    ctx.out(`Creating the demo at ${baseUrl} ...`);

    const slug = DEMO.slug;
    const ws = { params: { path: { slug } } };
    await unwrap(api.POST('/api/workspaces/', { body: { name: 'Acme Support', slug } }));
    for (const [name, role] of [
      ['Grace Member', 'member'],
      ['Gus Guest', 'guest'],
    ] as const) {
      const email = `${name.split(' ')[0]!.toLowerCase()}.${slug}@example.com`;
      const user = await anonymous.POST('/api/auth/sign-up/', { body: { email, password: DEMO.password, display_name: name } });
      if (user.data) await unwrap(api.POST('/api/workspaces/{slug}/members/', { ...ws, body: { email, role } }));
    }
    step('workspace "demo" with an admin, a member and a guest');

    // A paid Pro subscription through the sandbox payment page (what a customer would click).
    const checkout = await unwrap(api.POST('/api/workspaces/{slug}/billing/checkout/', { ...ws, body: { plan_slug: 'pro', billing_interval: 'month' } }));
    if (checkout.iframe_url && config.paymentProvider === 'sandbox') {
      await fetch(`${checkout.iframe_url}/pay`, { method: 'POST', redirect: 'manual' });
      const { subscription } = await unwrap(api.GET('/api/workspaces/{slug}/billing/subscription/', ws));
      step(`Pro plan paid through the sandbox (order ${checkout.merchant_oid}): subscription ${subscription?.status ?? 'missing'}, with its invoice`);
    } else {
      await unwrap(api.POST('/api/workspaces/{slug}/billing/trial/', { ...ws, body: { plan_slug: 'pro' } }));
      step('Pro trial started (the provider is not the sandbox, so no payment was made)');
    }

    const office = await unwrap(
      api.POST('/api/workspaces/{slug}/sla-calendars/', {
        ...ws,
        body: {
          name: 'Istanbul office hours',
          time_zone: 'Europe/Istanbul',
          working_hours: (['mon', 'tue', 'wed', 'thu', 'fri'] as const).flatMap((day) => [
            { day, start: '09:00', end: '12:30' },
            { day, start: '13:30', end: '18:00' },
          ]),
          holidays: [
            { date: '2026-01-01', name: "New Year's Day", recurring: true },
            { date: '2026-04-23', name: "National Sovereignty and Children's Day", recurring: true },
            { date: '2026-10-29', name: 'Republic Day', recurring: true },
          ],
        },
      }),
    );
    const standard = await unwrap(
      api.POST('/api/workspaces/{slug}/sla-policies/', {
        ...ws,
        body: {
          name: 'Standard support',
          description: 'Business-hours targets for every project without its own policy',
          is_default: true,
          calendar_id: office.id,
          at_risk_percent: 75,
          rules: [
            { priority: 'urgent', response_time_h: 1, resolution_time_h: 8 },
            { priority: 'high', response_time_h: 4, resolution_time_h: 24 },
            { priority: 'medium', response_time_h: 8, resolution_time_h: 72 },
            { priority: 'low', response_time_h: 24, resolution_time_h: 120 },
          ],
        },
      }),
    );
    // Seconds-long targets on the live desk, so breached trackers exist by the time the demo ends, and an at-risk share
    // of 1 %: high issues are at risk after 3.6 s and stay so for half an hour (response breached after 6 min).
    const live = await unwrap(
      api.POST('/api/workspaces/{slug}/sla-policies/', {
        ...ws,
        body: {
          name: 'Live desk (demo: targets in seconds)',
          at_risk_percent: 1,
          rules: [
            { priority: 'urgent', response_time_h: 0.002, resolution_time_h: 0.004 },
            { priority: 'high', response_time_h: 0.1, resolution_time_h: 0.5 },
            { priority: 'medium', response_time_h: 2, resolution_time_h: 8 },
            { priority: 'low', response_time_h: 8, resolution_time_h: 40 },
          ],
        },
      }),
    );
    step(`SLA calendar "${office.name}"; policies "${standard.name}" (default, on that calendar) and "${live.name}"`);

    const desk = await unwrap(
      api.POST('/api/workspaces/{slug}/projects/', {
        ...ws,
        body: { name: 'Service Desk', identifier: 'SD', description: 'Customer requests', sla_policy_id: live.id },
      }),
    );
    const web = await unwrap(
      api.POST('/api/workspaces/{slug}/projects/', { ...ws, body: { name: 'Web Platform', identifier: 'WEB', description: 'The product' } }),
    );
    step('projects Service Desk (SD) and Web Platform (WEB)');

    const deskPath = { slug, projectId: desk.id };
    const props = {
      tier: await unwrap(
        api.POST('/api/workspaces/{slug}/projects/{projectId}/custom-properties/', {
          params: { path: deskPath },
          body: { name: 'Customer tier', type: 'select', options: ['gold', 'silver', 'bronze'] },
        }),
      ),
      points: await unwrap(
        api.POST('/api/workspaces/{slug}/projects/{projectId}/custom-properties/', {
          params: { path: deskPath },
          body: { name: 'Story points', type: 'number' },
        }),
      ),
      due: await unwrap(
        api.POST('/api/workspaces/{slug}/projects/{projectId}/custom-properties/', {
          params: { path: deskPath },
          body: { name: 'Promised date', type: 'date' },
        }),
      ),
      components: await unwrap(
        api.POST('/api/workspaces/{slug}/projects/{projectId}/custom-properties/', {
          params: { path: deskPath },
          body: { name: 'Components', type: 'multi_select', options: ['api', 'web', 'mobile', 'billing'] },
        }),
      ),
      qa: await unwrap(
        api.POST('/api/workspaces/{slug}/projects/{projectId}/custom-properties/', {
          params: { path: deskPath },
          body: { name: 'Needs QA', type: 'checkbox' },
        }),
      ),
    };
    step('custom properties: Customer tier, Story points, Promised date, Components, Needs QA');

    const rnd = seeded(42);
    const statesOf = async (projectId: string) => {
      const states = await unwrap(api.GET('/api/workspaces/{slug}/projects/{projectId}/states/', { params: { path: { slug, projectId } } }));
      return (group: string) => states.find((s) => s.group === group)!.id;
    };
    const deskState = await statesOf(desk.id);
    const webState = await statesOf(web.id);
    const plan = Array.from({ length: ISSUE_COUNT }, (_, i) => ({
      project: i % 3 === 2 ? web : desk,
      name: `${rnd.pick(SUBJECTS)} ${rnd.pick(PROBLEMS)}`,
      priority: rnd.pick(PRIORITIES),
      group: rnd.pick(GROUPS),
    }));
    const createIssues = (items: typeof plan) =>
      inParallel(items, 6, async (item) => {
        const stateOf = item.project === desk ? deskState : webState;
        const issue = await unwrap(
          api.POST('/api/workspaces/{slug}/projects/{projectId}/issues/', {
            params: { path: { slug, projectId: item.project.id } },
            body: { name: item.name, priority: item.priority, state_id: stateOf(item.group) },
          }),
        );
        if (item.project === desk) {
          const set = (propertyId: string, value: unknown) =>
            unwrap(
              api.PUT('/api/workspaces/{slug}/issues/{issueId}/custom-values/{propertyId}/', {
                params: { path: { slug, issueId: issue.id, propertyId } },
                body: { value },
              }),
            );
          await set(props.tier.id, rnd.pick(['gold', 'silver', 'bronze']));
          if (rnd.next() < 0.7) await set(props.points.id, rnd.pick([1, 2, 3, 5, 8, 13]));
          if (rnd.next() < 0.4) await set(props.due.id, `2026-12-${String(1 + Math.floor(rnd.next() * 28)).padStart(2, '0')}`);
          if (rnd.next() < 0.6) await set(props.components.id, [...new Set([rnd.pick(['api', 'web', 'mobile', 'billing']), rnd.pick(['api', 'web'])])]);
          await set(props.qa.id, rnd.next() < 0.5);
        }
        if (rnd.next() < 0.35) {
          await unwrap(
            api.POST('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/comments/', {
              params: { path: { slug, projectId: item.project.id, issueId: issue.id } },
              body: { body: rnd.pick(['Looking into it.', 'Reproduced on staging.', 'Customer confirmed the workaround.', 'Fix is in review.']) },
            }),
          );
        }
        return issue;
      });

    const issuesStarted = Date.now();
    const first = await createIssues(plan.slice(0, ISSUE_COUNT / 2));
    const baseline1 = await unwrap(
      api.POST('/api/workspaces/{slug}/projects/{projectId}/baselines/', { params: { path: deskPath }, body: { name: 'Sprint 1 start' } }),
    );
    // The sprint moves on: some issues start or finish, priorities change, more issues arrive.
    await inParallel(
      first.filter((_, i) => i % 4 === 0),
      6,
      async (issue) => {
        const project = plan.find((p) => p.name && issue.project_id === p.project.id)!.project;
        const stateOf = project === desk ? deskState : webState;
        await unwrap(
          api.PATCH('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/', {
            params: { path: { slug, projectId: project.id, issueId: issue.id } },
            body: { state_id: stateOf(rnd.pick(['started', 'completed', 'completed'])), ...(rnd.next() < 0.3 ? { priority: 'urgent' as const } : {}) },
          }),
        );
      },
    );
    await createIssues(plan.slice(ISSUE_COUNT / 2));
    const baseline2 = await unwrap(
      api.POST('/api/workspaces/{slug}/projects/{projectId}/baselines/', { params: { path: deskPath }, body: { name: 'Sprint 2 start' } }),
    );
    step(`${ISSUE_COUNT} issues with custom values and comments; baselines "${baseline1.name}" and "${baseline2.name}"`);

    // The live desk's urgent targets are 7 and 14 seconds: make sure the first urgent issues have breached.
    const waitMs = 8_000 - (Date.now() - issuesStarted);
    if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
    const breached = await unwrap(api.GET('/api/workspaces/{slug}/sla-breached/', { params: { path: { slug }, query: { per_page: 1 } } }));
    const atRisk = await unwrap(api.GET('/api/workspaces/{slug}/sla-at-risk/', { params: { path: { slug }, query: { per_page: 1 } } }));
    step(`${breached.total} breached and ${atRisk.total} at-risk SLA trackers`);

    ctx.out(
      `\nDone in ${Math.round((Date.now() - started) / 1000)} s. Open ${baseUrl}/app/ (or ${baseUrl}/docs) and sign in as ${DEMO.email} / ${DEMO.password}.`,
    );
  },
};
