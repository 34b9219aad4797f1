/**
 * SLA policy simulation (contract 20.2) at scale, part of `npm run bench` (also alone:
 * `npx tsx bench/sla-simulation.ts [--quick] [--pglite]`, on DATABASE_URL's server in a scratch database `<db>_slasimbench`).
 * A workspace of 10,000 issues (quick: 2,000) created over 90 days, with trackers (most met, some open), a pause on one
 * in five and a priority change on one in three; one POST sla-policies/simulate/ over the whole range with a draft on a
 * working-hours calendar (the costlier clock), timed in process (median of 5 after a warm-up). Target: <= 2 s on PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { type DatabaseHandle, openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { insertUserWithToken, insertWorkspace, seedWorkspace } from './seed.js';

const TARGET_MS = 2000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const WEEKDAYS_9_17 = ['mon', 'tue', 'wed', 'thu', 'fri'].map((day) => ({ day, start: '09:00', end: '17:00' }));
const DRAFT_RULES = [
  { priority: 'urgent', response_time_h: 0.5, resolution_time_h: 4 },
  { priority: 'high', response_time_h: 2, resolution_time_h: 16 },
  { priority: 'medium', response_time_h: 8, resolution_time_h: 40 },
  { priority: 'low', response_time_h: 16, resolution_time_h: 80 },
];

export interface SlaSimulationRow {
  database: 'postgres' | 'pglite';
  issues: number;
  medianMs: number;
  changed: number;
  met: boolean | null;
}

async function measure(handle: DatabaseHandle, database: SlaSimulationRow['database'], issues: number): Promise<SlaSimulationRow> {
  await migrateToLatest(handle.db);
  const q = async (text: string, values: readonly unknown[] = []) => {
    const r = await handle.db.executeQuery(CompiledQuery.raw(text, [...values]));
    return { rows: r.rows as any[], rowCount: Number(r.numAffectedRows ?? r.rows.length) };
  };
  const config = { ...loadConfig({ LOG_LEVEL: 'silent' }), apiRateLimit: 0 };
  const app = await buildApp({ config, database: handle });
  try {
    const now = new Date();
    const owner = await insertUserWithToken(q, `owner.${randomUUID().slice(0, 8)}@bench.example`, now);
    const ws = await insertWorkspace(q, owner.userId, 'sla-simulation', now);
    await seedWorkspace(q, {
      workspaceId: ws,
      ownerId: owner.userId,
      projects: [{ identifier: 'SIM', issues }],
      comments: 0,
      trackers: true,
      customValues: false,
      members: 1,
      now,
      label: `simulation ${issues.toLocaleString('en')} issues`,
    });
    // A pause of four hours on one tracker in five, a priority change 30 minutes in on one issue in three.
    await q(
      `UPDATE sla_trackers t SET pauses = jsonb_build_array(jsonb_build_array(
         floor(extract(epoch FROM i.created_at) * 1000) + 3600000, floor(extract(epoch FROM i.created_at) * 1000) + 18000000))
       FROM issues i WHERE i.id = t.issue_id AND i.workspace_id = $1 AND i.sequence_id % 5 = 0`,
      [ws],
    );
    await q(
      `INSERT INTO issue_history (id, workspace_id, issue_id, at, actor_id, kind, "from", "to")
       SELECT gen_random_uuid(), i.workspace_id, i.id, i.created_at + interval '30 minutes', i.created_by, 'priority',
              to_jsonb(CASE WHEN i.priority = 'low' THEN 'medium' ELSE 'low' END), to_jsonb(i.priority)
       FROM issues i WHERE i.workspace_id = $1 AND i.sequence_id % 3 = 0`,
      [ws],
    );
    await q('ANALYZE');
    const headers = { authorization: `Bearer ${owner.token}` };
    const call = async (method: 'POST', url: string, payload: object) => {
      const res = await app.inject({ method, url, headers, payload });
      if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
      return res.json();
    };
    const calendar = (await call('POST', `/api/workspaces/sla-simulation/sla-calendars/`, {
      name: 'Office',
      time_zone: 'Europe/Istanbul',
      working_hours: WEEKDAYS_9_17,
    })) as { id: string };
    const day = (d: Date) => d.toISOString().slice(0, 10);
    const body = {
      policy: { rules: DRAFT_RULES, calendar_id: calendar.id, at_risk_percent: 80 },
      from: day(new Date(now.getTime() - 91 * 86_400_000)),
      to: day(now),
    };
    const url = '/api/workspaces/sla-simulation/sla-policies/simulate/';
    const first = (await call('POST', url, body)) as { issues: number; changed: { total: number } };
    if (first.issues !== issues) throw new Error(`simulated ${first.issues} issues, seeded ${issues}`);
    const xs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      await call('POST', url, body);
      xs.push(performance.now() - t0);
    }
    const medianMs = Math.round(median(xs));
    console.error(`  sla simulation (${database}): ${issues} issues in ${medianMs} ms (median of 5), ${first.changed.total} targets changed`);
    return { database, issues, medianMs, changed: first.changed.total, met: database === 'postgres' ? medianMs <= TARGET_MS : null };
  } finally {
    await app.close();
  }
}

export async function benchSlaSimulation({ databaseUrl, quick, pglite = false }: { databaseUrl?: string; quick: boolean; pglite?: boolean }): Promise<string> {
  const issues = quick ? 2_000 : 10_000;
  const rows: SlaSimulationRow[] = [];
  if (databaseUrl) {
    const url = new URL(databaseUrl);
    const name = `${url.pathname.slice(1) || 'postgres'}_slasimbench`;
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
    url.pathname = `/${name}`;
    const handle = await openDatabase({ databaseUrl: url.toString(), dataDir: '' });
    try {
      rows.push(await measure(handle, 'postgres', issues));
    } finally {
      await handle.close();
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  }
  if (pglite) {
    const dir = mkdtempSync(join(tmpdir(), 'wis-slasim-'));
    const handle = await openDatabase({ databaseUrl: null, dataDir: dir });
    try {
      rows.push(await measure(handle, 'pglite', issues));
    } finally {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const lines = [
    '## SLA policy simulation',
    '',
    `POST sla-policies/simulate/ over every issue of a 90-day range, draft on a working-hours calendar; target <= ${TARGET_MS} ms on PostgreSQL (median of 5).`,
    '',
    '| database | issues | median ms | targets changed | target | met |',
    '|---|---:|---:|---:|---:|:---:|',
    ...rows.map(
      (r) =>
        `| ${r.database} | ${r.issues.toLocaleString('en')} | ${r.medianMs} | ${r.changed} | ${TARGET_MS} ms | ${r.met === null ? 'n/a' : r.met ? 'yes' : 'no'} |`,
    ),
  ];
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const argv = process.argv.slice(2);
  benchSlaSimulation({ databaseUrl: process.env.DATABASE_URL, quick: argv.includes('--quick'), pglite: argv.includes('--pglite') })
    .then((md) => console.log(md))
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
