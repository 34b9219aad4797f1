import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle, Db } from '../../src/db/database.js';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { slaRepository } from '../../src/modules/sla/index.js';
import { createIssue, createProject, createWorkspace, projectStates, type WorkspaceFixture } from '../helpers/factories.js';
import type { Api } from '../helpers/http.js';
import { openEmptyDatabase } from '../helpers/databases.js';
import { useTestApp } from '../helpers/test-app.js';
import { comment, createPolicy, patchIssue, patchPolicy, STANDARD_RULES } from './sla-fixtures.js';

/**
 * Flat list totals (migration 1070): the breached and at-risk totals kept by the database, and the issue list's
 * unfiltered total, always equal a full count of what the lists select, through any sequence of changes, clock moves
 * (both ways) and runs of the `sla.totals` job.
 */
const ctx = useTestApp();

/** The lists' definitions, counted over every row: what the kept totals must equal. */
async function fullCounts(db: Db, workspaceId: string, projectId: string, now: Date) {
  const { rows } = await sql<{ breached: number; at_risk: number; issues: number }>`
    SELECT
      (SELECT count(*) FROM sla_trackers WHERE workspace_id = ${workspaceId} AND breach_at < ${now})::int AS breached,
      (SELECT count(*) FROM sla_trackers WHERE workspace_id = ${workspaceId} AND NOT paused AND (
         (response_risk_at IS NOT NULL AND responded_at IS NULL AND response_risk_at <= ${now} AND response_breach_at > ${now})
         OR (resolution_risk_at IS NOT NULL AND resolved_at IS NULL AND resolution_risk_at <= ${now} AND resolution_breach_at > ${now})))::int AS at_risk,
      (SELECT count(*) FROM issues WHERE workspace_id = ${workspaceId} AND project_id = ${projectId})::int AS issues`.execute(db);
  return rows[0]!;
}

/** The totals as the API answers them (an offset past the end, so the total is always the counted one). */
async function apiTotals(api: Api, ws: WorkspaceFixture, projectId: string) {
  const get = async (path: string) => {
    const res = await api.get(`/api/workspaces/${ws.slug}/${path}?offset=100000&per_page=1`, { token: ws.admin.token });
    expect(res.status, res.text).toBe(200);
    return res.body.total as number;
  };
  return {
    breached: await get('sla-breached/'),
    at_risk: await get('sla-at-risk/'),
    issues: await get(`projects/${projectId}/issues/`),
  };
}

type Op =
  | { kind: 'create'; priority: 'urgent' | 'high' | 'medium' | 'low' | 'none'; paused: boolean }
  | { kind: 'respond' | 'resolve' | 'reopen' | 'pause' | 'delete'; pick: number }
  | { kind: 'clock'; minutes: number }
  | { kind: 'policy'; scale: number }
  | { kind: 'job' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('create' as const), priority: fc.constantFrom('urgent', 'high', 'medium', 'low', 'none'), paused: fc.boolean() }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constantFrom('respond' as const, 'resolve' as const, 'reopen' as const, 'pause' as const, 'delete' as const),
      pick: fc.nat(),
    }),
  },
  // mostly forwards by up to two days, sometimes back by up to a day
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('clock' as const), minutes: fc.integer({ min: -1440, max: 2880 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('policy' as const), scale: fc.constantFrom(0.5, 1, 2, 3) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'job' as const }) },
);

describe('kept totals', () => {
  it('equal a full count of the lists after any sequence of changes, clock moves and job runs', async () => {
    const { api, clock, app, database } = ctx();
    const totalsJob = app.jobs.find((j) => j.name === 'sla.totals')!;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 4, maxLength: 18 }), async (ops) => {
        const ws = await createWorkspace(api);
        const policy = await createPolicy(api, ws, { is_default: true });
        const project = await createProject(api, ws);
        const { byGroup } = await projectStates(api, ws, project.id);
        const waiting = await api.post(
          `/api/workspaces/${ws.slug}/projects/${project.id}/states/`,
          { name: 'Waiting on customer', group: 'started', pauses_sla: true },
          { token: ws.admin.token },
        );
        expect(waiting.status, waiting.text).toBe(201);
        const member = await ws.addUser('member');
        const issues: string[] = [];
        const pick = (n: number) => issues[n % issues.length]!;
        for (const op of ops) {
          switch (op.kind) {
            case 'create':
              issues.push((await createIssue(api, ws, project.id, { priority: op.priority, ...(op.paused ? { state_id: waiting.body.id } : {}) })).id);
              break;
            case 'clock':
              clock.advance(op.minutes * 60_000);
              break;
            case 'job':
              await totalsJob.run();
              break;
            case 'policy':
              await patchPolicy(api, ws, policy.id, {
                rules: STANDARD_RULES.map((r) => ({ ...r, response_time_h: r.response_time_h * op.scale, resolution_time_h: r.resolution_time_h * op.scale })),
              });
              break;
            default: {
              if (!issues.length) break;
              const id = pick(op.pick);
              if (op.kind === 'respond') await comment(api, ws, project.id, id, member.token);
              else if (op.kind === 'resolve') await patchIssue(api, ws, project.id, id, { state_id: byGroup('completed') });
              else if (op.kind === 'reopen') await patchIssue(api, ws, project.id, id, { state_id: byGroup('unstarted') });
              else if (op.kind === 'pause') await patchIssue(api, ws, project.id, id, { state_id: waiting.body.id });
              else {
                const res = await api.delete(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/${id}/`, { token: ws.admin.token });
                expect(res.status, res.text).toBe(204);
                issues.splice(issues.indexOf(id), 1);
              }
            }
          }
          expect(await apiTotals(api, ws, project.id)).toEqual(await fullCounts(database.db, ws.workspaceId, project.id, clock.now()));
        }
      }),
      { numRuns: 12 },
    );
  });

  it('stay exact while writers and the job run at the same time', async () => {
    const { api, clock, app, database } = ctx();
    const totalsJob = app.jobs.find((j) => j.name === 'sla.totals')!;
    const ws = await createWorkspace(api);
    await createPolicy(api, ws, { is_default: true });
    const project = await createProject(api, ws);
    const { byGroup } = await projectStates(api, ws, project.id);
    const first = await Promise.all(Array.from({ length: 12 }, (_, i) => createIssue(api, ws, project.id, { priority: i % 2 ? 'urgent' : 'high' })));
    clock.advanceHours(3); // urgent ones breached, high ones at risk
    await totalsJob.run();
    let jobs = 0;
    let writing = true;
    const jobLoop = (async () => {
      while (writing) {
        clock.advance(60_000);
        await totalsJob.run();
        jobs++;
        // PGlite answers in microtasks: let the requests' I/O in between runs.
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    await Promise.all([
      ...first.slice(0, 6).map((issue) => patchIssue(api, ws, project.id, issue.id, { state_id: byGroup('completed') })),
      ...Array.from({ length: 6 }, () => createIssue(api, ws, project.id, { priority: 'urgent' })),
      ...first.slice(6).map((issue) => api.delete(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/${issue.id}/`, { token: ws.admin.token })),
    ]);
    writing = false;
    await jobLoop;
    expect(jobs).toBeGreaterThan(0);
    clock.advanceHours(1);
    expect(await apiTotals(api, ws, project.id)).toEqual(await fullCounts(database.db, ws.workspaceId, project.id, clock.now()));
    await totalsJob.run();
    expect(await apiTotals(api, ws, project.id)).toEqual(await fullCounts(database.db, ws.workspaceId, project.id, clock.now()));
  });

  it('keeps other workspaces apart, and the job leaves a workspace deleted with its trackers without a trace', async () => {
    const { api, clock, app, database } = ctx();
    const totalsJob = app.jobs.find((j) => j.name === 'sla.totals')!;
    const [a, b] = [await createWorkspace(api), await createWorkspace(api)];
    const projects = [];
    for (const ws of [a, b]) {
      await createPolicy(api, ws, { is_default: true });
      projects.push(await createProject(api, ws));
    }
    for (let i = 0; i < 3; i++) await createIssue(api, a, projects[0]!.id, { priority: 'urgent' });
    await createIssue(api, b, projects[1]!.id, { priority: 'urgent' });
    clock.advanceHours(2);
    await totalsJob.run();
    expect((await apiTotals(api, a, projects[0]!.id)).breached).toBe(3);
    expect((await apiTotals(api, b, projects[1]!.id)).breached).toBe(1);
    const res = await api.delete(`/api/workspaces/${b.slug}/`, { token: b.admin.token });
    expect(res.status, res.text).toBe(204);
    await totalsJob.run();
    const left = await sql<{ n: number }>`
      SELECT (SELECT count(*) FROM sla_counts WHERE workspace_id = ${b.workspaceId})::int + (SELECT count(*) FROM sla_count_changes WHERE workspace_id = ${b.workspaceId})::int AS n`.execute(
      database.db,
    );
    expect(left.rows[0]!.n).toBe(0);
    expect((await apiTotals(api, a, projects[0]!.id)).breached).toBe(3);
    // The metric reads the same kept counts: every workspace of this database, as a full count gives it.
    const everywhere = await sql<{ n: number }>`SELECT count(*)::int AS n FROM sla_trackers WHERE breach_at < ${clock.now()}`.execute(database.db);
    const metrics = await api.get('/metrics');
    expect(Number(/^sla_trackers_breached (\d+)$/m.exec(metrics.text)?.[1])).toBe(everywhere.rows[0]!.n);
  });
});

/** 1070 on data written before it: the issue counts are backfilled, the SLA counts start at -infinity and read exact. */
describe('migration 1070 (flat totals) on data written before it', () => {
  let handle: DatabaseHandle;
  const now = new Date('2026-03-02T12:00:00Z');
  const hours = (h: number) => new Date(now.getTime() + h * 3_600_000);
  const user = randomUUID();
  const workspace = randomUUID();
  const projects = [randomUUID(), randomUUID()];

  beforeAll(async () => {
    handle = await openEmptyDatabase();
    await migrateTo(handle.db, '1061_sandbox_cards');
    const db = handle.db;
    await sql`INSERT INTO users (id, email, display_name, password_hash, created_at, updated_at)
              VALUES (${user}, 'old@example.com', 'Old', 'x', ${now}, ${now})`.execute(db);
    await sql`INSERT INTO workspaces (id, slug, name, created_by, created_at, updated_at)
              VALUES (${workspace}, 'old-totals', 'Old', ${user}, ${now}, ${now})`.execute(db);
    for (const [n, project] of projects.entries()) {
      const state = randomUUID();
      await sql`INSERT INTO projects (id, workspace_id, name, identifier, created_by, created_at, updated_at)
                VALUES (${project}, ${workspace}, ${'P' + n}, ${'P' + n}, ${user}, ${now}, ${now})`.execute(db);
      await sql`INSERT INTO states (id, workspace_id, project_id, name, "group", color, sequence, created_at, updated_at)
                VALUES (${state}, ${workspace}, ${project}, 'Backlog', 'backlog', '#999999', 1, ${now}, ${now})`.execute(db);
      for (let i = 1; i <= 3 + n * 2; i++) {
        const issue = randomUUID();
        await sql`INSERT INTO issues (id, workspace_id, project_id, sequence_id, name, state_id, state_group, priority, created_by, created_at, updated_at)
                  VALUES (${issue}, ${workspace}, ${project}, ${i}, ${'Issue ' + i}, ${state}, 'backlog', 'high', ${user}, ${now}, ${now})`.execute(db);
        // breached 1 h ago, at risk now, or neither yet
        const breach = [hours(-1), hours(1), hours(30)][i % 3]!;
        const risk = new Date(breach.getTime() - 2 * 3_600_000);
        await sql`INSERT INTO sla_trackers (id, workspace_id, issue_id, created_at, updated_at, response_risk_at, response_breach_at)
                  VALUES (${randomUUID()}, ${workspace}, ${issue}, ${now}, ${now}, ${risk}, ${breach})`.execute(db);
      }
    }
    await migrateToLatest(db);
  });
  afterAll(async () => handle?.close());

  it('counts the issues of each project', async () => {
    const rows = await handle.db.selectFrom('projects').select(['id', 'issue_count']).orderBy('name').execute();
    expect(rows).toEqual([
      { id: projects[0], issue_count: 3 },
      { id: projects[1], issue_count: 5 },
    ]);
  });

  it('starts the workspace at -infinity, reads exact totals, and keeps them exact once the job has brought it up', async () => {
    const repo = slaRepository();
    const expected = async (at: Date) => {
      const [p0, p1] = [await fullCounts(handle.db, workspace, projects[0]!, at), await fullCounts(handle.db, workspace, projects[1]!, at)];
      expect(p0.breached).toBe(p1.breached);
      return { breached: p0.breached, at_risk: p0.at_risk };
    };
    const read = async (at: Date) => ({
      breached: await repo.countBreached(handle.db, workspace, at),
      at_risk: await repo.countAtRisk(handle.db, workspace, at),
    });
    const counts = await sql<{ as_of: string }>`SELECT as_of::text AS as_of FROM sla_counts WHERE workspace_id = ${workspace}`.execute(handle.db);
    expect(counts.rows.map((r) => r.as_of)).toEqual(['-infinity']);
    expect(await read(now)).toEqual(await expected(now));
    expect(await read(now)).toEqual({ breached: 2, at_risk: 3 });
    await handle.db.transaction().execute((tx) => repo.advanceCounts(tx, now, now, 10));
    for (const at of [now, hours(2), hours(40), hours(-3)]) expect(await read(at)).toEqual(await expected(at));
  });
});
