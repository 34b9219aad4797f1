/** SLA notifications (contract 26.2): sla_at_risk and sla_breached from the SLA events, to assignees or the admins. */
import { describe, expect, it } from 'vitest';
import { createIssue, createProject, createWorkspace, type Session } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();
const MINUTE = 60_000;

async function setup() {
  const { api } = ctx();
  const ws = await createWorkspace(api);
  const policy = await api.post(
    `/api/workspaces/${ws.slug}/sla-policies/`,
    { name: 'Desk', is_default: true, rules: [{ priority: 'urgent', response_time_h: 1, resolution_time_h: 8 }] },
    { token: ws.admin.token },
  );
  expect(policy.status, policy.text).toBe(201);
  const project = await createProject(api, ws, { sla_policy_id: policy.body.id });
  const member = await ws.addUser('member', 'Member');
  const admin2 = await ws.addUser('admin', 'Second admin');
  const plain = await ws.addUser('member', 'Plain');
  const scan = () =>
    ctx()
      .app.jobs.find((j) => j.name === 'sla.events')!
      .run();
  const inbox = async (who: Session) => (await api.get('/api/users/me/notifications/', { token: who.token })).body.results as any[];
  return { api, ws, project, member, admin2, plain, scan, inbox };
}

describe('SLA notifications', () => {
  it('tells the assignees when a target is at risk and when it is breached, once each', async () => {
    const s = await setup();
    const { clock } = ctx();
    const issue = await createIssue(s.api, s.ws, s.project.id, { name: 'Down', priority: 'urgent', assignee_ids: [s.member.user.id] });
    const tracker = await s.api.get(`/api/workspaces/${s.ws.slug}/issues/${issue.id}/sla/`, { token: s.ws.admin.token });
    expect(tracker.status, tracker.text).toBe(200);
    clock.advance(50 * MINUTE);
    await s.scan();
    let got = await s.inbox(s.member);
    expect(got.map((n) => n.kind)).toEqual(['sla_at_risk', 'assigned']);
    expect(got[0]).toMatchObject({
      issue: { id: issue.id, name: 'Down' },
      actor: null,
      data: { project_id: s.project.id, metric: 'response' },
    });
    expect(got[0].data.due_at).toBe(tracker.body.response_due_at);
    await s.scan();
    expect((await s.inbox(s.member)).length).toBe(2); // once per crossing
    clock.advance(15 * MINUTE);
    await s.scan();
    got = await s.inbox(s.member);
    expect(got[0]).toMatchObject({ kind: 'sla_breached', data: { metric: 'response' } });
    // Not to the admins: the issue has an assignee.
    expect((await s.inbox(s.admin2)).length).toBe(0);
    expect((await s.inbox(s.plain)).length).toBe(0);
  });

  it("tells the workspace's admins (and owner) when the issue has no assignee", async () => {
    const s = await setup();
    const { clock } = ctx();
    const issue = await createIssue(s.api, s.ws, s.project.id, { name: 'Nobody', priority: 'urgent' }, s.member.token);
    clock.advance(65 * MINUTE); // at risk and breached in one run: one notification, of the kind listed first
    await s.scan();
    for (const who of [s.ws.admin, s.admin2]) {
      const got = await s.inbox(who);
      expect(got.map((n) => `${n.kind}:${n.issue.id}`)).toEqual([`sla_at_risk:${issue.id}`]);
    }
    expect((await s.inbox(s.member)).length).toBe(0);
    expect((await s.inbox(s.plain)).length).toBe(0);
  });
});
