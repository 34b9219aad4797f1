import { describe, expect, it } from 'vitest';
import { unwrap } from '../../client/src/index.js';
import { clientFor, expectFailure } from '../helpers/client.js';
import { createIssue, createProject } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { createProperty, setup, setValue } from '../custom-properties/fixtures.js';

const ctx = useTestApp();

describe('issue list order_by', () => {
  it('sorts by core fields both ways, ties by sequence_id descending, and by custom values with no value last', async () => {
    const { api, clock } = ctx();
    const { ws, project, issue: first } = await setup(api);
    const spec = [
      { name: 'b', priority: 'low' },
      { name: 'a', priority: 'urgent' },
      { name: 'c', priority: 'none' },
      { name: 'a', priority: 'urgent' },
    ] as const;
    // lower-case names only, so the order is the same under any collation
    await api.patch(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/${first.id}/`, { name: 'd' }, { token: ws.admin.token });
    const made = [first];
    for (const body of spec) {
      clock.advance(1_000);
      made.push(await createIssue(api, ws, project.id, body));
    }
    const points = await createProperty(api, ws, project.id, { type: 'number' });
    await setValue(api, ws, made[1]!.id, points.id, 5);
    await setValue(api, ws, made[2]!.id, points.id, -1);
    await setValue(api, ws, made[3]!.id, points.id, 5);
    const seqs = async (order_by: string, extra: Record<string, string | number> = {}) =>
      (
        await unwrap(
          clientFor(ctx().url, ws.admin.token).GET('/api/workspaces/{slug}/projects/{projectId}/issues/', {
            params: { path: { slug: ws.slug, projectId: project.id }, query: { order_by, ...extra } },
          }),
        )
      ).results.map((i) => i.sequence_id);
    expect(await seqs('sequence_id')).toEqual([1, 2, 3, 4, 5]);
    expect(await seqs('-sequence_id')).toEqual([5, 4, 3, 2, 1]);
    expect(await seqs('created_at')).toEqual([1, 2, 3, 4, 5]);
    expect(await seqs('-created_at')).toEqual([5, 4, 3, 2, 1]);
    // names: d(1), b(2), a(3), c(4), a(5); ties by sequence_id descending
    expect(await seqs('name')).toEqual([5, 3, 2, 4, 1]);
    expect(await seqs('-name')).toEqual([1, 4, 2, 5, 3]);
    // priorities: none(1), low(2), urgent(3), none(4), urgent(5); urgent first
    expect(await seqs('priority')).toEqual([5, 3, 2, 4, 1]);
    expect(await seqs('-priority')).toEqual([4, 1, 2, 5, 3]);
    // points: 2 -> 5, 3 -> -1, 4 -> 5; others have none and come last both ways
    expect(await seqs(`custom.${points.id}`)).toEqual([3, 4, 2, 5, 1]);
    expect(await seqs(`-custom.${points.id}`)).toEqual([4, 2, 3, 5, 1]);
    // with a filter and paging
    expect(await seqs(`custom.${points.id}`, { priority: 'urgent,low' })).toEqual([3, 2, 5]);
    expect(await seqs(`custom.${points.id}`, { offset: 1, per_page: 2 })).toEqual([4, 2]);
    clock.advance(1_000);
    await api.patch(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/${made[0]!.id}/`, { name: 'renamed' }, { token: ws.admin.token });
    expect((await seqs('-updated_at'))[0]).toBe(1);
  });

  it("refuses an unknown key, a malformed one and another project's property with 400 naming order_by", async () => {
    const { api } = ctx();
    const { ws, project } = await setup(api);
    const otherProject = await createProject(api, ws);
    const foreign = await createProperty(api, ws, otherProject.id, { type: 'number' });
    for (const order_by of ['color', '--name', 'custom.', 'custom.not-a-uuid', `custom.${foreign.id}`, 'custom.00000000-0000-7000-8000-000000000000']) {
      const res = await clientFor(ctx().url, ws.admin.token).GET('/api/workspaces/{slug}/projects/{projectId}/issues/', {
        params: { path: { slug: ws.slug, projectId: project.id }, query: { order_by } },
      });
      expect(expectFailure(res, 400, 'validation_failed').errors?.[0]?.path, order_by).toBe('/querystring/order_by');
    }
  });
});
