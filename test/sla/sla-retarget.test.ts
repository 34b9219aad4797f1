import { sql } from 'kysely';
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
  it('re-targets a scope larger than a batch through its cursor, every tracker once, and fails whole with a failed write', async () => {
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

    // A write that fails mid-way fails the whole re-targeting with its own error (and rolls back); the fetch
    // queued behind it fails too, and neither is left as an unhandled rejection.
    const repo = slaRepository();
    let writes = 0;
    const failing = createRetargeter(
      {
        ...repo,
        writeTrackers: async (...args: Parameters<typeof repo.writeTrackers>) => {
          // a statement the database refuses: the transaction is aborted, as on a real failure
          if (++writes === 2) await sql`SELECT 1 / 0`.execute(args[0]);
          return repo.writeTrackers(...args);
        },
      },
      { batch: 2 },
    );
    await database.db
      .updateTable('sla_rules')
      .set({ response_time_h: 3, response_ms: 3 * HOUR })
      .where('workspace_id', '=', ws.workspaceId)
      .where('policy_id', '=', policy.id)
      .execute();
    await expect(database.db.transaction().execute((tx) => failing.retarget(tx, ws.workspaceId, { kind: 'workspace' }, ctx().clock.now()))).rejects.toThrow(
      'division by zero',
    );
    // rolled back: every tracker still stores the 2-hour response due time of the last successful re-targeting
    // (the API would show the 3-hour one: a read computes with the rule as it is now)
    const stored = await database.db.selectFrom('sla_trackers').select(['issue_id', 'response_due_at']).where('workspace_id', '=', ws.workspaceId).execute();
    expect(stored).toHaveLength(issues.length);
    for (const issue of issues) {
      const row = stored.find((t) => t.issue_id === issue.id)!;
      expect(row.response_due_at?.toISOString()).toBe(new Date(new Date(issue.created_at).getTime() + 2 * HOUR).toISOString());
    }
  });
});
