import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { WorkspaceFixture } from '../helpers/factories.js';
import { createIssue, createProject, expectProblem } from '../helpers/factories.js';
import { createProperty, issuesPath, type PropertyRecord, setup, setValue } from './fixtures.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

const OPTIONS = ['red', 'green', 'Blue sky', 'a,b'];
const TEXTS = ['alpha', 'Alpha', 'beta', '', 'ünï 🎉', 'x'.repeat(3000)];
const DATES = [
  '2026-01-01',
  '2026-01-02',
  '2026-01-01T23:59:59.999Z',
  '2026-01-02T00:30:00+01:00', // 2026-01-01T23:30Z: the UTC day is Jan 1
  '2026-01-02T10:00:00Z',
  '2025-12-31T12:00:00-12:00', // 2026-01-01T00:00Z
  '2026-03-15',
];
const NUMBERS = [-5, -0.5, 0, 1, 2.5, 3, 100, 1e20];

type Values = { text?: string; number?: number; date?: string; select?: string; multi?: string[]; check?: boolean };

interface World {
  ws: WorkspaceFixture;
  projectId: string;
  props: Record<'text' | 'number' | 'date' | 'select' | 'multi' | 'check' | 'url', PropertyRecord>;
  issues: { id: string; values: Values }[];
}

const DAY = 86_400_000;

/** The filter, done in memory: what the API must agree with. */
function matches(values: Values, key: keyof Values, op: 'eq' | 'gte' | 'lte', raw: string): boolean {
  const v = values[key];
  if (v === undefined) return false;
  switch (key) {
    case 'text':
    case 'select':
      return v === raw;
    case 'multi':
      return (v as string[]).includes(raw);
    case 'check':
      return v === (raw === 'true');
    case 'number': {
      const n = Number(raw);
      return op === 'eq' ? v === n : op === 'gte' ? (v as number) >= n : (v as number) <= n;
    }
    case 'date': {
      const at = Date.parse(v as string);
      const isDay = raw.length === 10;
      const from = Date.parse(raw);
      if (isDay) return op === 'eq' ? at >= from && at < from + DAY : op === 'gte' ? at >= from : at < from + DAY;
      return op === 'eq' ? at === from : op === 'gte' ? at >= from : at <= from;
    }
  }
}

describe('filtering the issue list by custom values', () => {
  let world: World;

  beforeAll(async () => {
    const { api } = ctx();
    const { ws, project } = await setup(api);
    const make = (name: string, type: string, options?: string[]) => createProperty(api, ws, project.id, { name, type, ...(options && { options }) });
    const props = {
      text: await make('Text', 'text'),
      number: await make('Number', 'number'),
      date: await make('Date', 'date'),
      select: await make('Select', 'select', OPTIONS),
      multi: await make('Multi', 'multi_select', OPTIONS),
      check: await make('Check', 'checkbox'),
      url: await make('Url', 'url'),
    };
    const valueSets = fc.sample(
      fc.record(
        {
          text: fc.constantFrom(...TEXTS),
          number: fc.constantFrom(...NUMBERS),
          date: fc.constantFrom(...DATES),
          select: fc.constantFrom(...OPTIONS),
          multi: fc.uniqueArray(fc.constantFrom(...OPTIONS)),
          check: fc.boolean(),
        },
        { requiredKeys: [] },
      ),
      { numRuns: 24, seed: 4242 },
    );
    const issues = [];
    for (const values of valueSets) {
      const issue = await createIssue(api, ws, project.id);
      for (const [key, value] of Object.entries(values)) await setValue(api, ws, issue.id, props[key as keyof Values].id, value);
      issues.push({ id: issue.id, values });
    }
    world = { ws, projectId: project.id, props, issues };
  }, 120_000);

  const list = (query: string) => ctx().api.get(`${issuesPath(world.ws, world.projectId)}?per_page=100&${query}`, { token: world.ws.admin.token });

  it('finds exactly the issues whose values match, for any combination of filters', async () => {
    const filterArb = fc.oneof(
      fc.record({ key: fc.constant('text' as const), op: fc.constant('eq' as const), raw: fc.constantFrom(...TEXTS, 'nothing') }),
      fc.record({ key: fc.constant('select' as const), op: fc.constant('eq' as const), raw: fc.constantFrom(...OPTIONS) }),
      fc.record({ key: fc.constant('multi' as const), op: fc.constant('eq' as const), raw: fc.constantFrom(...OPTIONS) }),
      fc.record({ key: fc.constant('check' as const), op: fc.constant('eq' as const), raw: fc.constantFrom('true', 'false') }),
      fc.record({
        key: fc.constant('number' as const),
        op: fc.constantFrom('eq' as const, 'gte' as const, 'lte' as const),
        raw: fc.oneof(fc.constantFrom(...NUMBERS.map(String), '-0', '2.50', '1e20'), fc.integer({ min: -10, max: 10 }).map(String)),
      }),
      fc.record({
        key: fc.constant('date' as const),
        op: fc.constantFrom('eq' as const, 'gte' as const, 'lte' as const),
        raw: fc.constantFrom(...DATES, '2025-12-31', '2026-01-01T00:00:00Z', '2026-01-01T23:30:00Z', '2026-01-02T10:00:00+00:00'),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(filterArb, { minLength: 1, maxLength: 3 }), async (filters) => {
        const params = new URLSearchParams();
        for (const f of filters) params.append(`custom.${world.props[f.key].id}${f.op === 'eq' ? '' : `.${f.op}`}`, f.raw);
        const res = await list(params.toString());
        expect(res.status, res.text).toBe(200);
        const expected = world.issues.filter((i) => filters.every((f) => matches(i.values, f.key, f.op, f.raw))).map((i) => i.id);
        expect(res.body.total).toBe(expected.length);
        expect([...res.body.results.map((i: any) => i.id)].sort()).toEqual([...expected].sort());
      }),
      { numRuns: 80 },
    );
  }, 120_000);

  it('answers arbitrary filter values with 200 or 400, never a 500', async () => {
    const keys = Object.values(world.props).flatMap((p) => [`custom.${p.id}`, `custom.${p.id}.gte`, `custom.${p.id}.lte`]);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...keys), fc.string({ unit: 'binary', maxLength: 40 }), async (key, raw) => {
        const res = await list(new URLSearchParams([[key, raw]]).toString());
        expect([200, 400], res.text).toContain(res.status);
      }),
      { numRuns: 100 },
    );
  }, 120_000);

  it('answers raw, badly encoded query strings with 200 or 400', async () => {
    const p = world.props;
    for (const raw of ['%ED%A0%80', '%FF%FE', '%00', '%', '%E0%A4%A', '%C3%28']) {
      for (const key of [`custom.${p.text.id}`, `custom.${p.select.id}`, `custom.${p.date.id}.gte`, `custom.${raw}`]) {
        const res = await list(`${key}=${raw}`);
        expect([200, 400], `${key}=${raw}: ${res.text}`).toContain(res.status);
      }
    }
  });

  it('ANDs a repeated multi_select key: the list must contain every option named', async () => {
    const id = world.props.multi.id;
    const res = await list(`custom.${id}=red&custom.${id}=green`);
    const expected = world.issues.filter((i) => i.values.multi?.includes('red') && i.values.multi.includes('green')).map((i) => i.id);
    expect(res.body.results.map((i: any) => i.id).sort()).toEqual(expected.sort());
  });

  it('combines with the core filters and pagination', async () => {
    const { api } = ctx();
    const { ws } = world;
    const issue = await createIssue(api, ws, world.projectId, { priority: 'urgent' });
    await setValue(api, ws, issue.id, world.props.url.id, 'https://example.com/x');
    const other = await createIssue(api, ws, world.projectId, { priority: 'low' });
    await setValue(api, ws, other.id, world.props.url.id, 'https://example.com/x');
    const res = await list(`priority=urgent&custom.${world.props.url.id}=${encodeURIComponent('https://example.com/x')}`);
    expect(res.body.results.map((i: any) => i.id)).toEqual([issue.id]);
    const page = await api.get(`${issuesPath(ws, world.projectId)}?per_page=1&custom.${world.props.url.id}=${encodeURIComponent('https://example.com/x')}`, {
      token: ws.admin.token,
    });
    expect(page.body.total).toBe(2);
    expect(page.body.results).toHaveLength(1);
  });

  it('answers 400 naming the parameter for an unknown property, one of another project, or a bad key', async () => {
    const { api } = ctx();
    const other = await createProject(api, world.ws);
    const foreign = await createProperty(api, world.ws, other.id, { type: 'text' });
    const missing = '01900000-0000-7000-8000-000000000000';
    for (const key of [`custom.${missing}`, `custom.${foreign.id}`, 'custom.not-a-uuid', `custom.${world.props.number.id}.gt`, 'custom.']) {
      const res = await list(`${encodeURIComponent(key)}=1`);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toEqual([{ path: `/querystring/${key}`, message: expect.any(String) }]);
    }
  });

  it('answers 400 for values that do not fit the property', async () => {
    const p = world.props;
    for (const [key, raw] of [
      [`custom.${p.number.id}`, 'abc'],
      [`custom.${p.number.id}.gte`, ''],
      [`custom.${p.number.id}`, 'Infinity'],
      [`custom.${p.date.id}`, '2026-02-30'],
      [`custom.${p.date.id}.lte`, 'yesterday'],
      [`custom.${p.check.id}`, 'yes'],
      [`custom.${p.select.id}`, 'purple'],
      [`custom.${p.multi.id}`, 'RED'],
      [`custom.${p.text.id}.gte`, 'a'],
      [`custom.${p.select.id}.lte`, 'red'],
      [`custom.${p.text.id}`, 'nul\u0000'],
    ] as const) {
      const res = await list(`${encodeURIComponent(key)}=${encodeURIComponent(raw)}`);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors[0].path, `${key}=${raw}`).toBe(`/querystring/${key}`);
    }
  });

  it('matches a checkbox false only where false is set, not where nothing is', async () => {
    const res = await list(`custom.${world.props.check.id}=false`);
    const expected = world.issues.filter((i) => i.values.check === false).map((i) => i.id);
    expect(res.body.results.map((i: any) => i.id).sort()).toEqual(expected.sort());
  });
});
