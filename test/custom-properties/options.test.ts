import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unwrap } from '../../client/src/index.js';
import { remapOptions } from '../../src/modules/custom-properties/custom-properties.domain.js';
import { clientFor, expectFailure } from '../helpers/client.js';
import { createIssue, createWorkspace } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { createProperty, setup, setValue } from './fixtures.js';

const ctx = useTestApp();
const as = (token: string) => clientFor(ctx().url, token);

async function usage(token: string, slug: string, propertyId: string) {
  return unwrap(as(token).GET('/api/workspaces/{slug}/custom-properties/{propertyId}/usage/', { params: { path: { slug, propertyId } } }));
}

async function valueOf(token: string, slug: string, projectId: string, issueId: string, propertyId: string) {
  const values = await unwrap(
    as(token).GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/custom-values/', { params: { path: { slug, projectId, issueId } } }),
  );
  return values.find((v) => v.property_id === propertyId)!.value;
}

describe('option usage', () => {
  it('counts values and each option, zeros included, for every role', async () => {
    const { api } = ctx();
    const { ws, project, issue } = await setup(api);
    const tier = await createProperty(api, ws, project.id, { type: 'select', options: ['gold', 'silver', 'bronze'] });
    const tags = await createProperty(api, ws, project.id, { type: 'multi_select', options: ['a', 'b', 'c'] });
    const points = await createProperty(api, ws, project.id, { type: 'number' });
    const second = await createIssue(api, ws, project.id);
    await setValue(api, ws, issue.id, tier.id, 'gold');
    await setValue(api, ws, second.id, tier.id, 'gold');
    await setValue(api, ws, issue.id, tags.id, ['a', 'b']);
    await setValue(api, ws, second.id, tags.id, ['b']);
    await setValue(api, ws, issue.id, points.id, 3);
    const guest = await ws.addUser('guest');
    expect(await usage(guest.token, ws.slug, tier.id)).toEqual({
      values: 2,
      options: [
        { option: 'gold', count: 2 },
        { option: 'silver', count: 0 },
        { option: 'bronze', count: 0 },
      ],
    });
    expect(await usage(ws.admin.token, ws.slug, tags.id)).toEqual({
      values: 2,
      options: [
        { option: 'a', count: 1 },
        { option: 'b', count: 2 },
        { option: 'c', count: 0 },
      ],
    });
    expect(await usage(ws.admin.token, ws.slug, points.id)).toEqual({ values: 1, options: [] });
    const other = await createWorkspace(api);
    expectFailure(
      await as(other.admin.token).GET('/api/workspaces/{slug}/custom-properties/{propertyId}/usage/', {
        params: { path: { slug: other.slug, propertyId: tier.id } },
      }),
      404,
    );
  });
});

describe('renaming and merging options', () => {
  it('renames an option and every value that used it follows', async () => {
    const { api } = ctx();
    const { ws, project, issue } = await setup(api);
    const tier = await createProperty(api, ws, project.id, { type: 'select', options: ['gold', 'silver'] });
    const tags = await createProperty(api, ws, project.id, { type: 'multi_select', options: ['a', 'b', 'c'] });
    await setValue(api, ws, issue.id, tier.id, 'gold');
    await setValue(api, ws, issue.id, tags.id, ['c', 'a']);
    const path = (propertyId: string) => ({ params: { path: { slug: ws.slug, propertyId }, query: {} } });
    const renamed = await unwrap(
      as(ws.admin.token).PATCH('/api/workspaces/{slug}/custom-properties/{propertyId}/', { ...path(tier.id), body: { rename_options: { gold: 'Gold' } } }),
    );
    expect(renamed.options).toEqual(['Gold', 'silver']);
    expect(await valueOf(ws.admin.token, ws.slug, project.id, issue.id, tier.id)).toBe('Gold');
    // a swap is two renames at once
    await unwrap(
      as(ws.admin.token).PATCH('/api/workspaces/{slug}/custom-properties/{propertyId}/', { ...path(tags.id), body: { rename_options: { a: 'c', c: 'a' } } }),
    );
    expect(await valueOf(ws.admin.token, ws.slug, project.id, issue.id, tags.id)).toEqual(['a', 'c']);
    const filtered = await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/?custom.${tier.id}=Gold`, { token: ws.admin.token });
    expect(filtered.body.total).toBe(1);

    const patch = (body: Record<string, unknown>) =>
      as(ws.admin.token).PATCH('/api/workspaces/{slug}/custom-properties/{propertyId}/', { ...path(tier.id), body: body as never });
    expect(expectFailure(await patch({ rename_options: { Gold: 'silver' } }), 400).errors?.[0]?.path).toBe('/rename_options/Gold');
    expect(expectFailure(await patch({ rename_options: { Gold: ' ' } }), 400).errors?.[0]?.path).toBe('/rename_options/Gold');
    expect(expectFailure(await patch({ rename_options: { bronze: 'x' } }), 400).errors?.[0]?.path).toBe('/rename_options/bronze');
    expectFailure(await patch({ rename_options: { Gold: 'G' }, options: ['G'] }), 400);
    const member = await ws.addUser('member');
    expectFailure(
      await as(member.token).PATCH('/api/workspaces/{slug}/custom-properties/{propertyId}/', { ...path(tier.id), body: { rename_options: { Gold: 'G' } } }),
      403,
    );
  });

  it('merges options into one, keeping each option of a multi_select once; dry_run changes nothing', async () => {
    const { api } = ctx();
    const { ws, project, issue } = await setup(api);
    const tags = await createProperty(api, ws, project.id, { type: 'multi_select', options: ['bug', 'Bug', 'defect', 'ui'] });
    const second = await createIssue(api, ws, project.id);
    await setValue(api, ws, issue.id, tags.id, ['ui', 'Bug', 'bug']);
    await setValue(api, ws, second.id, tags.id, ['defect']);
    const merge = (body: { from: string[]; into: string; dry_run?: boolean }, slug = ws.slug, token = ws.admin.token) =>
      as(token).POST('/api/workspaces/{slug}/custom-properties/{propertyId}/merge-options/', { params: { path: { slug, propertyId: tags.id } }, body });
    expect(await unwrap(merge({ from: ['Bug', 'defect'], into: 'bug', dry_run: true }))).toEqual({ affected_issues: 2 });
    expect(await valueOf(ws.admin.token, ws.slug, project.id, second.id, tags.id)).toEqual(['defect']);
    expect(await unwrap(merge({ from: ['Bug', 'defect'], into: 'bug' }))).toEqual({ affected_issues: 2 });
    expect(await valueOf(ws.admin.token, ws.slug, project.id, issue.id, tags.id)).toEqual(['ui', 'bug']);
    expect(await valueOf(ws.admin.token, ws.slug, project.id, second.id, tags.id)).toEqual(['bug']);
    expect((await usage(ws.admin.token, ws.slug, tags.id)).options).toEqual([
      { option: 'bug', count: 2 },
      { option: 'ui', count: 1 },
    ]);

    expect(expectFailure(await merge({ from: ['ui'], into: 'nope' }), 400).errors?.[0]?.path).toBe('/into');
    expect(expectFailure(await merge({ from: ['ui', 'bug'], into: 'bug' }), 400).errors?.[0]?.path).toBe('/from/1');
    expect(expectFailure(await merge({ from: ['gone'], into: 'bug' }), 400).errors?.[0]?.path).toBe('/from/0');
    const member = await ws.addUser('member');
    expectFailure(await merge({ from: ['ui'], into: 'bug' }, ws.slug, member.token), 403);
    const other = await createWorkspace(api);
    expectFailure(await merge({ from: ['ui'], into: 'bug' }, other.slug, other.admin.token), 404);
  });

  it('agrees with an in-memory model over random values, renames and merges', async () => {
    const { api } = ctx();
    const { ws, project } = await setup(api);
    const options = ['o1', 'o2', 'o3', 'o4', 'o5'];
    const issues = await Promise.all(Array.from({ length: 6 }, () => createIssue(api, ws, project.id)));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('select' as const, 'multi_select' as const),
        fc.array(fc.option(fc.subarray(options, { minLength: 0 }), { nil: undefined }), { minLength: 6, maxLength: 6 }),
        fc.subarray(options, { minLength: 2 }),
        fc.boolean(),
        async (type, picks, chosen, rename) => {
          const property = await createProperty(api, ws, project.id, { type, options });
          const model = new Map<string, unknown>();
          for (const [i, pick] of picks.entries()) {
            if (pick === undefined || (type === 'select' && pick.length === 0)) continue;
            const value = type === 'select' ? pick[0]! : pick;
            await setValue(api, ws, issues[i]!.id, property.id, value);
            model.set(issues[i]!.id, value);
          }
          const [into, ...from] = chosen;
          let mapping: Map<string, string>;
          if (rename) {
            mapping = new Map(chosen.map((o) => [o, `${o}-renamed`]));
            await unwrap(
              as(ws.admin.token).PATCH('/api/workspaces/{slug}/custom-properties/{propertyId}/', {
                params: { path: { slug: ws.slug, propertyId: property.id }, query: {} },
                body: { rename_options: Object.fromEntries(mapping) },
              }),
            );
          } else {
            mapping = new Map(from.map((o) => [o, into!]));
            await unwrap(
              as(ws.admin.token).POST('/api/workspaces/{slug}/custom-properties/{propertyId}/merge-options/', {
                params: { path: { slug: ws.slug, propertyId: property.id } },
                body: { from, into: into! },
              }),
            );
          }
          for (const issue of issues) {
            const expected = model.has(issue.id) ? remapOptions(type, model.get(issue.id), mapping) : null;
            expect(await valueOf(ws.admin.token, ws.slug, project.id, issue.id, property.id)).toEqual(expected);
          }
          await api.delete(`/api/workspaces/${ws.slug}/custom-properties/${property.id}/`, { token: ws.admin.token });
        },
      ),
      { numRuns: 12 },
    );
  }, 120_000);
});
