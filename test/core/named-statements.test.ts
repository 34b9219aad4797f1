import { PGlite } from '@electric-sql/pglite';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { type Executor, wrapPglite } from '../../src/db/database.js';
import { CUSTOM_PLAN } from '../../src/db/named-statements.js';
import { createIssue, createProject, createWorkspace } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';

const ctx = useTestApp();

/** The statements prepared in the session that runs this (on PostgreSQL, one of the pool's). */
const prepared = async (db: Executor) =>
  (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db)).rows.map((r) => r.statement);

describe('named prepared statements (issue 28)', () => {
  it('parses each parameterised statement of a request once per session, and answers the same on every later run', async () => {
    const { api, database } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const first = await createIssue(api, ws, project.id, { name: 'One' });
    // The embedded database is one session; PostgreSQL's pool has ten, each with its own statements.
    const embedded = database.kind === 'pglite';
    const before = await prepared(database.db);
    if (embedded) expect(before.some((s) => s.includes('"api_tokens"'))).toBe(true);
    // The same requests again prepare nothing new, and read what they wrote.
    const second = await createIssue(api, ws, project.id, { name: 'Two' });
    if (embedded) expect(new Set(await prepared(database.db))).toEqual(new Set(before));
    expect(second.sequence_id).toBe(first.sequence_id + 1);
    const got = await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/${second.id}/`, { token: ws.admin.token });
    expect(got.body).toMatchObject({ id: second.id, name: 'Two' });
  });

  it('runs statements without parameters (transactions, scripts of several statements) unnamed', async () => {
    const { database } = ctx();
    // One transaction: one session, on PostgreSQL too.
    const statements = await database.db.transaction().execute(async (tx) => {
      await sql.raw('select 1; select 2').execute(tx);
      expect((await sql<{ n: number }>`select ${1}::int as n`.execute(tx)).rows).toEqual([{ n: 1 }]);
      return prepared(tx);
    });
    expect(statements.some((s) => /^\s*(begin|commit|select 1; select 2)/i.test(s))).toBe(false);
    expect(statements.some((s) => s.includes('$1::int as n'))).toBe(true);
  });

  it('runs a statement marked CUSTOM_PLAN unnamed, planned with its values each time (the label-filtered issue list)', async () => {
    const { api, database } = ctx();
    const ws = await createWorkspace(api);
    const project = await createProject(api, ws);
    const label = await api.post(`/api/workspaces/${ws.slug}/projects/${project.id}/labels/`, { name: 'l' }, { token: ws.admin.token });
    await createIssue(api, ws, project.id, { label_ids: [label.body.id] });
    const statements = await database.db.transaction().execute(async (tx) => {
      expect((await sql<{ n: number }>`select ${2}::int as n ${sql.raw(CUSTOM_PLAN)}`.execute(tx)).rows).toEqual([{ n: 2 }]);
      return prepared(tx);
    });
    expect(statements.some((s) => s.includes(CUSTOM_PLAN))).toBe(false);
    for (let i = 0; i < 7; i++) {
      const res = await api.get(`/api/workspaces/${ws.slug}/projects/${project.id}/issues/?label_id=${label.body.id}&state_group=backlog`, {
        token: ws.admin.token,
      });
      expect(res.body.total).toBe(1);
    }
    if (database.kind === 'pglite') expect((await prepared(database.db)).some((s) => s.includes('label_ids &&'))).toBe(false);
  });

  it('keeps two pools on one embedded session apart: each names its statements under its own prefix', async () => {
    const pglite = await PGlite.create();
    const a = await wrapPglite(pglite);
    const b = await wrapPglite(pglite);
    try {
      const q = (n: number) => sql<{ n: number }>`select ${n}::int + 1 as n`;
      expect((await q(1).execute(a.db)).rows).toEqual([{ n: 2 }]);
      expect((await q(2).execute(b.db)).rows).toEqual([{ n: 3 }]);
      expect((await q(3).execute(a.db)).rows).toEqual([{ n: 4 }]);
      expect((await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements`.execute(a.db)).rows[0]!.n).toBe(2);
    } finally {
      await a.db.destroy();
      await b.db.destroy();
      await pglite.close();
    }
  });

  it('prepares a statement anew after a schema change altered its result columns under it (a migration by another instance)', async () => {
    const pglite = await PGlite.create();
    const handle = await wrapPglite(pglite);
    try {
      await sql`create table t (a int)`.execute(handle.db);
      await sql`insert into t values (1)`.execute(handle.db);
      const read = () => sql<Record<string, number>>`select * from t where a = ${1}`.execute(handle.db);
      expect((await read()).rows).toEqual([{ a: 1 }]);
      // Another connection of the same database adds a column (here: the same session, as PGlite has one).
      await sql`alter table t add column b int default 2`.execute(handle.db);
      const afterChange = await read().then(
        (r) => r.rows,
        (error: { code?: string }) => error.code,
      );
      // PostgreSQL refuses the old plan at most once; every run after it sees the new columns.
      expect([[{ a: 1, b: 2 }], '0A000']).toContainEqual(afterChange);
      expect((await read()).rows).toEqual([{ a: 1, b: 2 }]);
    } finally {
      await handle.close();
    }
  });
});
