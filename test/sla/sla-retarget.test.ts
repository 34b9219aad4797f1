import { describe, expect, it } from 'vitest';
import { unwrap } from '../../client/src/index.js';
import { slaRepository } from '../../src/modules/sla/index.js';
import { createRetargeter } from '../../src/modules/sla/sla.retarget.js';
import { clientFor } from '../helpers/client.js';
import { createProject, createWorkspace } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();
const HOUR = 3_600_000;

describe('SLA re-targeting in batches', () => {
  it('re-targets a scope larger than a batch through its cursor, every tracker once', async () => {
    const { api, url, database } = ctx();
    const ws = await createWorkspace(api);
    const client = clientFor(url, ws.admin.token);
    const policy = await unwrap(
      client.POST('/api/workspaces/{slug}/sla-policies/', {
        params: { path: { slug: ws.slug } },
        body: { name: 'Desk', is_default: true, rules: [{ priority: 'high', response_time_h: 1, resolution_time_h: 8 }] },
      }),
    );
    const project = await createProject(api, ws);
    const issues = [];
    for (let i = 0; i < 7; i++) {
      issues.push(
        await unwrap(
          client.POST('/api/workspaces/{slug}/projects/{projectId}/issues/', {
            params: { path: { slug: ws.slug, projectId: project.id } },
            body: { name: `Issue ${i}`, priority: 'high' },
          }),
        ),
      );
    }
    // The rule changes behind the service's back: only a re-targeting brings the trackers in line.
    await database.db
      .updateTable('sla_rules')
      .set({ response_time_h: 2, response_ms: 2 * HOUR })
      .where('workspace_id', '=', ws.workspaceId)
      .where('policy_id', '=', policy.id)
      .execute();

    const retargeter = createRetargeter(slaRepository(), { batch: 2 });
    const changed = await database.db.transaction().execute((tx) => retargeter.retarget(tx, ws.workspaceId, { kind: 'workspace' }, ctx().clock.now()));

    expect(changed).toBe(7);
    for (const issue of issues) {
      const tracker = await unwrap(client.GET('/api/workspaces/{slug}/issues/{issueId}/sla/', { params: { path: { slug: ws.slug, issueId: issue.id } } }));
      expect(tracker.response_due_at).toBe(new Date(new Date(issue.created_at).getTime() + 2 * HOUR).toISOString());
    }
    // A second pass finds nothing left to change.
    expect(await database.db.transaction().execute((tx) => retargeter.retarget(tx, ws.workspaceId, { kind: 'workspace' }, ctx().clock.now()))).toBe(0);
  });
});
