import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace, type Session, signUp } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { breachedPath, policiesPath, trackerPath } from './sla-fixtures.js';
import { type Entry, expectedBreach, expectedTracker, type Group, type OracleRule, type Priority } from './sla-oracle.js';

const ctx = useTestApp();

const PRIORITIES: Priority[] = ['urgent', 'high', 'medium', 'low', 'none'];
const GROUPS: Group[] = ['backlog', 'unstarted', 'started', 'completed', 'cancelled'];

const ruleArb = fc.record({
  priority: fc.constantFrom<Priority>('urgent', 'high', 'medium', 'low'),
  response_time_h: fc.constantFrom(0.25, 0.5, 1, 2, 4),
  extra: fc.constantFrom(0, 0.5, 1, 4, 24),
});
// Mostly a rule for every priority (so trackers exist), sometimes a random subset (so they come and go).
const rulesArb = fc
  .oneof(
    { weight: 1, arbitrary: fc.uniqueArray(ruleArb, { selector: (r) => r.priority, maxLength: 4 }) },
    { weight: 2, arbitrary: fc.uniqueArray(ruleArb, { selector: (r) => r.priority, minLength: 4, maxLength: 4 }) },
  )
  .map((rs) => rs.map((r): OracleRule => ({ priority: r.priority, response_time_h: r.response_time_h, resolution_time_h: r.response_time_h + r.extra })));

type Command =
  | { kind: 'create'; project: number; priority: Priority; group: Group }
  | { kind: 'priority'; issue: number; priority: Priority }
  | { kind: 'state'; issue: number; group: Group }
  | { kind: 'comment'; issue: number; byCreator: boolean }
  | { kind: 'projectPolicy'; project: number; policy: number | null }
  | { kind: 'rules'; policy: number; rules: OracleRule[] }
  | { kind: 'default'; policy: number | null }
  | { kind: 'advance'; hours: number };

const createArb = fc.record({
  kind: fc.constant('create' as const),
  project: fc.nat(1),
  priority: fc.constantFrom(...PRIORITIES),
  group: fc.constantFrom(...GROUPS),
});
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 2, arbitrary: createArb },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('priority' as const), issue: fc.nat(20), priority: fc.constantFrom(...PRIORITIES) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('state' as const), issue: fc.nat(20), group: fc.constantFrom(...GROUPS) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('comment' as const), issue: fc.nat(20), byCreator: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('projectPolicy' as const), project: fc.nat(1), policy: fc.constantFrom(0, 1, null) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rules' as const), policy: fc.nat(1), rules: rulesArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('default' as const), policy: fc.constantFrom(0, 1, null) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), hours: fc.constantFrom(0.25, 0.5, 1, 3, 10, 30) }) },
);

describe('SLA trackers against a from-scratch oracle', () => {
  let admin: Session;
  let other: Session;
  beforeAll(async () => {
    admin = await signUp(ctx().api, 'Admin');
    other = await signUp(ctx().api, 'Other');
  });

  it('never disagree with their issues after any sequence of edits', { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        rulesArb,
        rulesArb,
        fc.array(createArb, { minLength: 1, maxLength: 4 }),
        fc.array(commandArb, { minLength: 1, maxLength: 25 }),
        async (rules0, rules1, creates, rest) => {
          const commands: Command[] = [...creates, ...rest];
          const { api, clock } = ctx();
          const token = admin.token;
          const ws = await createWorkspace(api, admin);
          const base = `/api/workspaces/${ws.slug}`;
          expect((await api.post(`${base}/members/`, { email: other.user.email, role: 'member' }, { token })).status).toBe(201);
          const log: Entry[] = [];
          const t = () => clock.now().getTime();

          const policies: string[] = [];
          for (const [index, rules] of [rules0, rules1].entries()) {
            const res = await api.post(policiesPath(ws), { name: `P${index}`, rules, is_default: index === 0 }, { token });
            expect(res.status, res.text).toBe(201);
            policies.push(res.body.id);
            log.push({ kind: 'rules', t: t(), policy: index, rules });
          }
          log.push({ kind: 'default', t: t(), policy: 0 });
          let defaultPolicy: number | null = 0;

          const projects: { id: string; states: Record<Group, string> }[] = [];
          for (const [index, policy] of [null, 1].entries()) {
            const res = await api.post(
              `${base}/projects/`,
              { name: `Project ${index}`, identifier: `PR${index}`, sla_policy_id: policy === null ? null : policies[policy] },
              { token },
            );
            expect(res.status, res.text).toBe(201);
            const states = (await api.get(`${base}/projects/${res.body.id}/states/`, { token })).body as { id: string; group: Group }[];
            projects.push({ id: res.body.id, states: Object.fromEntries(states.map((s) => [s.group, s.id])) as Record<Group, string> });
            log.push({ kind: 'projectPolicy', t: t(), project: index, policy });
          }

          const issues: { id: string; project: number; group: Group }[] = [];
          for (const c of commands) {
            const target = 'issue' in c && issues.length ? issues[c.issue % issues.length]! : undefined;
            const issuePath = target && `${base}/projects/${projects[target.project]!.id}/issues/${target.id}/`;
            switch (c.kind) {
              case 'create': {
                const p = projects[c.project]!;
                const res = await api.post(`${base}/projects/${p.id}/issues/`, { name: 'Issue', priority: c.priority, state_id: p.states[c.group] }, { token });
                expect(res.status, res.text).toBe(201);
                log.push({
                  kind: 'created',
                  t: new Date(res.body.created_at).getTime(),
                  issue: issues.length,
                  project: c.project,
                  priority: c.priority,
                  group: c.group,
                });
                issues.push({ id: res.body.id, project: c.project, group: c.group });
                break;
              }
              case 'priority':
                if (!target) break;
                expect((await api.patch(issuePath!, { priority: c.priority }, { token })).status).toBe(200);
                log.push({ kind: 'priority', t: t(), issue: issues.indexOf(target), priority: c.priority });
                break;
              case 'state':
                if (!target || target.group === c.group) break;
                expect((await api.patch(issuePath!, { state_id: projects[target.project]!.states[c.group] }, { token })).status).toBe(200);
                target.group = c.group;
                log.push({ kind: 'state', t: t(), issue: issues.indexOf(target), group: c.group });
                break;
              case 'comment':
                if (!target) break;
                expect((await api.post(`${issuePath!}comments/`, { body: 'hi' }, { token: c.byCreator ? token : other.token })).status).toBe(201);
                log.push({ kind: 'comment', t: t(), issue: issues.indexOf(target), byCreator: c.byCreator });
                break;
              case 'projectPolicy': {
                const body = { sla_policy_id: c.policy === null ? null : policies[c.policy] };
                expect((await api.patch(`${base}/projects/${projects[c.project]!.id}/`, body, { token })).status).toBe(200);
                log.push({ kind: 'projectPolicy', t: t(), project: c.project, policy: c.policy });
                break;
              }
              case 'rules':
                expect((await api.patch(`${policiesPath(ws)}${policies[c.policy]}/`, { rules: c.rules }, { token })).status).toBe(200);
                log.push({ kind: 'rules', t: t(), policy: c.policy, rules: c.rules });
                break;
              case 'default': {
                const id = c.policy ?? defaultPolicy;
                if (id !== null) {
                  const res = await api.patch(`${policiesPath(ws)}${policies[id]}/`, { is_default: c.policy !== null }, { token });
                  expect(res.status).toBe(200);
                }
                defaultPolicy = c.policy;
                log.push({ kind: 'default', t: t(), policy: c.policy });
                break;
              }
              case 'advance':
                clock.advanceHours(c.hours);
                break;
            }
          }

          const now = t();
          const breached: { issueId: string; breachAt: number }[] = [];
          for (const [index, issue] of issues.entries()) {
            const expected = expectedTracker(log, index);
            const res = await api.get(trackerPath(ws, issue.id), { token: other.token });
            if (!expected) {
              expect(res.status, `issue ${index}: ${res.text}`).toBe(404);
              expect(res.body.code).toBe('sla_not_applicable');
              continue;
            }
            const flags = expectedBreach(expected, now);
            const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
            expect(res.status, res.text).toBe(200);
            expect(res.body, `issue ${index}`).toEqual({
              id: expect.any(String),
              issue_id: issue.id,
              policy_id: policies[expected.policy],
              priority: expected.priority,
              response_due_at: iso(expected.response_due_at),
              resolution_due_at: iso(expected.resolution_due_at),
              responded_at: iso(expected.responded_at),
              resolved_at: iso(expected.resolved_at),
              response_breached: flags.response_breached,
              resolution_breached: flags.resolution_breached,
              calendar_id: null,
              paused: false,
              response_remaining_seconds: flags.response_remaining_seconds,
              resolution_remaining_seconds: flags.resolution_remaining_seconds,
              at_risk: flags.at_risk,
            });
            if (flags.response_breached || flags.resolution_breached) breached.push({ issueId: issue.id, breachAt: flags.breachAt! });
          }

          const list = await api.get(breachedPath(ws, '?per_page=100'), { token: other.token });
          expect(list.status).toBe(200);
          expect(list.body.total).toBe(breached.length);
          const listed = list.body.results.map((r: { issue_id: string }) => r.issue_id);
          expect([...listed].sort()).toEqual(breached.map((b) => b.issueId).sort());
          const breachAt = new Map(breached.map((b) => [b.issueId, b.breachAt]));
          const order = listed.map((id: string) => breachAt.get(id)!);
          expect(order).toEqual([...order].sort((a, b) => a - b));
        },
      ),
      { numRuns: Number(process.env.SLA_PROPERTY_RUNS ?? 40) },
    );
  });
});
