import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace, type Session, signUp, startProTrial } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { policiesPath, trackerPath } from '../sla/sla-fixtures.js';
import { dayOf, simulate, type Blocks } from './sla-simulation-fixtures.js';

/**
 * Simulating the policy that applies now reproduces what the trackers show, for random histories: issues created,
 * re-prioritised (also to priorities without a rule and back), moved between states (responses, resolutions,
 * reopenings, pausing states), commented on, a state's pauses_sla switched, the clock moved, policies on a working-hours
 * calendar or not. The trackers are the oracle: each issue lives in a project of its own, so a simulation restricted to
 * that project tells its outcomes one by one.
 */
const ctx = useTestApp();

type Priority = 'urgent' | 'high' | 'medium' | 'low' | 'none';
type Group = 'backlog' | 'unstarted' | 'started' | 'completed' | 'cancelled' | 'waiting';
const PRIORITIES: Priority[] = ['urgent', 'high', 'medium', 'low', 'none'];
const GROUPS: Group[] = ['backlog', 'unstarted', 'started', 'completed', 'cancelled', 'waiting'];

const ruleArb = fc.record({
  priority: fc.constantFrom('urgent', 'high', 'medium', 'low'),
  response_time_h: fc.constantFrom(0.25, 1, 4, 9),
  extra: fc.constantFrom(0, 0.5, 1, 4, 24),
});
const rulesArb = fc
  .oneof(
    { weight: 1, arbitrary: fc.uniqueArray(ruleArb, { selector: (r) => r.priority, maxLength: 4 }) },
    { weight: 2, arbitrary: fc.uniqueArray(ruleArb, { selector: (r) => r.priority, minLength: 4, maxLength: 4 }) },
  )
  .map((rs) => rs.map((r) => ({ priority: r.priority, response_time_h: r.response_time_h, resolution_time_h: r.response_time_h + r.extra })));

type Command =
  | { kind: 'create'; policy: 0 | 1; priority: Priority; group: Group }
  | { kind: 'priority'; issue: number; priority: Priority }
  | { kind: 'state'; issue: number; group: Group }
  | { kind: 'comment'; issue: number; byCreator: boolean }
  | { kind: 'pauses'; issue: number; pauses: boolean }
  | { kind: 'advance'; hours: number };

const createArb = fc.record({
  kind: fc.constant('create' as const),
  policy: fc.constantFrom<0 | 1>(0, 1),
  priority: fc.constantFrom(...PRIORITIES),
  group: fc.constantFrom(...GROUPS),
});
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 1, arbitrary: createArb },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('priority' as const), issue: fc.nat(20), priority: fc.constantFrom(...PRIORITIES) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('state' as const), issue: fc.nat(20), group: fc.constantFrom(...GROUPS) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('comment' as const), issue: fc.nat(20), byCreator: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pauses' as const), issue: fc.nat(20), pauses: fc.boolean() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('advance' as const), hours: fc.constantFrom(0.25, 0.5, 1, 2, 5, 16, 70) }) },
);

const MAX_ISSUES = 6;
const WORKING_HOURS = ['mon', 'tue', 'wed', 'thu', 'fri'].map((day) => ({ day, start: '09:00', end: '17:00' }));

const empty = (): Blocks => ({
  response: { met: 0, breached: 0, open: 0, achievement_percent: null },
  resolution: { met: 0, breached: 0, open: 0, achievement_percent: null },
});
const counts = (b: Blocks) => ({
  response: [b.response.met, b.response.breached, b.response.open],
  resolution: [b.resolution.met, b.resolution.breached, b.resolution.open],
});

describe('SLA simulation against the trackers', () => {
  let admin: Session;
  let other: Session;
  beforeAll(async () => {
    // Personal tokens without an expiry: the clock moves months on over the runs, past any session's life.
    const lasting = async (session: Session): Promise<Session> => {
      const res = await ctx().api.post('/api/users/me/api-tokens/', { name: 'property test' }, { token: session.token });
      expect(res.status, res.text).toBe(201);
      return { ...session, token: res.body.token as string };
    };
    admin = await lasting(await signUp(ctx().api, 'Admin'));
    other = await lasting(await signUp(ctx().api, 'Other'));
  });

  it('reproduces the real outcomes of every tracker when it replays the policy that applies now', { timeout: 900_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        rulesArb,
        rulesArb,
        fc.constantFrom<(string | null)[]>([null, null], ['C', null], [null, 'C'], ['C', 'C']),
        fc.constantFrom<Group>('unstarted', 'started'),
        fc.array(createArb, { minLength: 1, maxLength: 3 }),
        fc.array(commandArb, { minLength: 1, maxLength: 25 }),
        async (rules0, rules1, calendars, waitingGroup, creates, rest) => {
          const { api, clock } = ctx();
          const token = admin.token;
          const ws = await createWorkspace(api, admin);
          const base = `/api/workspaces/${ws.slug}`;
          expect((await api.post(`${base}/members/`, { email: other.user.email, role: 'member' }, { token })).status).toBe(201);
          const calendar = await api.post(
            `${base}/sla-calendars/`,
            { name: 'Office', time_zone: 'Europe/Istanbul', working_hours: WORKING_HOURS, holidays: [{ date: '2026-04-23', recurring: true }] },
            { token },
          );
          expect(calendar.status, calendar.text).toBe(201);
          const drafts = [rules0, rules1].map((rules, index) => ({
            rules,
            calendar_id: calendars[index] === 'C' ? calendar.body.id : null,
            at_risk_percent: 75,
          }));
          const policies: string[] = [];
          for (const [index, draft] of drafts.entries()) {
            const res = await api.post(policiesPath(ws), { name: `P${index}`, is_default: index === 0, ...draft }, { token });
            expect(res.status, res.text).toBe(201);
            policies.push(res.body.id);
          }
          const startDay = dayOf(clock.now());
          // One project per issue (at most MAX_ISSUES), made before the clock moves (a trial has every plan limit lifted).
          await startProTrial(api, ws);
          const commands = [...creates, ...rest];
          const projects: { id: string; policy: 0 | 1; states: Record<Group, string> }[] = [];
          for (const c of commands.filter((x) => x.kind === 'create').slice(0, MAX_ISSUES)) {
            const project = await api.post(
              `${base}/projects/`,
              { name: 'Project', identifier: `P${projects.length}`, sla_policy_id: c.policy === 1 ? policies[1] : null },
              { token },
            );
            expect(project.status, project.text).toBe(201);
            const list = (await api.get(`${base}/projects/${project.body.id}/states/`, { token })).body as { id: string; group: Group }[];
            const states = Object.fromEntries(list.map((s) => [s.group, s.id])) as Record<Group, string>;
            const waiting = await api.post(
              `${base}/projects/${project.body.id}/states/`,
              { name: 'Waiting', group: waitingGroup, color: '#888888', pauses_sla: true },
              { token },
            );
            expect(waiting.status, waiting.text).toBe(201);
            states.waiting = waiting.body.id;
            projects.push({ id: project.body.id, policy: c.policy, states });
          }

          const issues: { id: string; project: string; states: Record<Group, string>; group: Group; policy: 0 | 1 }[] = [];
          for (const c of commands) {
            // Every change at an instant of its own (as on a real clock), a few minutes apart.
            clock.advance(10 * 60_000);
            const target = 'issue' in c && issues.length ? issues[c.issue % issues.length]! : undefined;
            const issuePath = target && `${base}/projects/${target.project}/issues/${target.id}/`;
            switch (c.kind) {
              case 'create': {
                const project = projects[issues.length];
                if (!project) break;
                const res = await api.post(
                  `${base}/projects/${project.id}/issues/`,
                  { name: 'Issue', priority: c.priority, state_id: project.states[c.group] },
                  { token },
                );
                expect(res.status, res.text).toBe(201);
                issues.push({ id: res.body.id, project: project.id, states: project.states, group: c.group, policy: project.policy });
                break;
              }
              case 'priority':
                if (target) expect((await api.patch(issuePath!, { priority: c.priority }, { token })).status).toBe(200);
                break;
              case 'state':
                if (!target || target.group === c.group) break;
                expect((await api.patch(issuePath!, { state_id: target.states[c.group] }, { token })).status).toBe(200);
                target.group = c.group;
                break;
              case 'comment':
                if (!target) break;
                expect((await api.post(`${issuePath!}comments/`, { body: 'hi' }, { token: c.byCreator ? token : other.token })).status).toBe(201);
                break;
              case 'pauses':
                if (!target) break;
                expect(
                  (await api.patch(`${base}/projects/${target.project}/states/${target.states.waiting}/`, { pauses_sla: c.pauses }, { token })).status,
                ).toBe(200);
                break;
              case 'advance':
                clock.advanceHours(c.hours);
                break;
            }
          }

          const range = { from: startDay, to: dayOf(clock.now()) };
          const expectedTotal = empty();
          for (const issue of issues) {
            // What the tracker shows now ...
            const expected = empty();
            const res = await api.get(trackerPath(ws, issue.id), { token });
            if (res.status === 200) {
              const t = res.body;
              expected.response[t.response_breached ? 'breached' : t.responded_at ? 'met' : 'open']++;
              expected.resolution[t.resolution_breached ? 'breached' : t.resolved_at ? 'met' : 'open']++;
            } else {
              expect(res.body.code, res.text).toBe('sla_not_applicable');
            }
            // ... is what the simulation of the policy that applies now finds, and a draft equal to it changes nothing.
            const result = await simulate(api, ws, { policy: drafts[issue.policy], ...range, project_id: issue.project });
            expect(result.issues).toBe(1);
            expect(counts(result.current), `issue ${issues.indexOf(issue)}`).toEqual(counts(expected));
            expect(result.draft).toEqual(result.current);
            expect(result.changed.total).toBe(0);
            for (const t of ['response', 'resolution'] as const) {
              for (const k of ['met', 'breached', 'open'] as const) expectedTotal[t][k] += expected[t][k];
            }
          }
          const all = await simulate(api, ws, { policy: drafts[0], ...range });
          expect(all.issues).toBe(issues.length);
          expect(counts(all.current)).toEqual(counts(expectedTotal));
          // Under the default's own definition, only issues of projects naming the other policy can differ.
          const underOther = new Set(issues.filter((i) => i.policy === 1).map((i) => i.id));
          for (const item of all.changed.items) expect(underOther.has(item.issue_id)).toBe(true);
          // The per-priority rows add up to the totals.
          for (const side of ['current', 'draft'] as const) {
            for (const t of ['response', 'resolution'] as const) {
              for (const k of ['met', 'breached', 'open'] as const) {
                expect(all.by_priority.reduce((sum, p) => sum + p[side][t][k], 0)).toBe(all[side][t][k]);
              }
            }
          }
        },
      ),
      { numRuns: Number(process.env.SLA_SIMULATION_PROPERTY_RUNS ?? 15) },
    );
  });
});
