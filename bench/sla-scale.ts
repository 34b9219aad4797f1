/**
 * SLA on working time at scale (issue 12), part of `npm run bench` (also alone: `npx tsx bench/sla-scale.ts [--quick] [--keep] [--only=pages|retarget|create]`,
 * on DATABASE_URL's server in a scratch database `<db>_slabench`):
 * 1. `sla-at-risk` first page at 10k / 100k / 1M trackers (quick: 2k / 10k / 40k): grows with the page, not the
 *    workspace, like `sla-breached` (both measured, median of 7 in-process requests);
 * 2. a calendar edit that re-targets 100,000 open trackers (quick 20,000): one PATCH, timed (target <= 10 s on PostgreSQL);
 * 3. POST create issue under a working-hours calendar against no calendar (target >= 0.9x), alternating rounds.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { insertUserWithToken, insertWorkspace, seedWorkspace } from './seed.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const WEEKDAYS_9_17 = ['mon', 'tue', 'wed', 'thu', 'fri'].map((day) => ({ day, start: '09:00', end: '17:00' }));

export async function benchSlaScale({
  databaseUrl,
  quick,
  keep = false,
  only,
}: {
  databaseUrl: string;
  quick: boolean;
  keep?: boolean;
  /** one part alone: pages | retarget | create */
  only?: string;
}): Promise<string> {
  const url = new URL(databaseUrl);
  const name = `${url.pathname.slice(1) || 'postgres'}_slabench`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${name}"`);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString(), dataDir: '' });
  const lines: string[] = ['## SLA on working time at scale (PostgreSQL)', ''];
  try {
    await migrateToLatest(handle.db);
    const config = { ...loadConfig({ LOG_LEVEL: 'silent' }), apiRateLimit: 0 };
    const app = await buildApp({ config, database: handle });
    const raw = new pg.Pool({ connectionString: url.toString(), max: 2 });
    const q = async (text: string, values: readonly unknown[] = []) => {
      const r = await raw.query(text, [...values]);
      return { rows: r.rows, rowCount: r.rowCount ?? 0 };
    };
    const now = new Date();
    const owner = await insertUserWithToken(q, `owner.${randomUUID().slice(0, 8)}@bench.example`, now);
    const headers = { authorization: `Bearer ${owner.token}` };
    const call = async (method: 'GET' | 'POST' | 'PATCH', path: string, payload?: unknown) => {
      const res = await app.inject({ method, url: path, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
      if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${res.body}`);
      return res.json();
    };
    const timed = async (reps: number, f: () => Promise<unknown>) => {
      await f();
      const xs: number[] = [];
      for (let i = 0; i < reps; i++) {
        const t0 = performance.now();
        await f();
        xs.push(performance.now() - t0);
      }
      return Math.round(median(xs) * 10) / 10;
    };

    if (!only || only === 'pages') {
      // 1. first pages
      lines.push('| trackers | at risk | sla-at-risk first page | breached | sla-breached first page |', '|---:|---:|---:|---:|---:|');
      for (const [n, size] of (quick ? [2000, 10_000, 40_000] : [10_000, 100_000, 1_000_000]).entries()) {
        const slug = `sla-scale-${n}`;
        const ws = await insertWorkspace(q, owner.userId, slug, now);
        await seedWorkspace(q, {
          workspaceId: ws,
          ownerId: owner.userId,
          projects: [{ identifier: 'SCALE', issues: size }],
          comments: 0,
          trackers: true,
          customValues: false,
          members: 1,
          now,
          label: `sla ${size.toLocaleString('en')} trackers`,
        });
        await q('VACUUM (ANALYZE) sla_trackers');
        const atRisk = (await call('GET', `/api/workspaces/${slug}/sla-at-risk/`)) as { total: number };
        const breached = (await call('GET', `/api/workspaces/${slug}/sla-breached/`)) as { total: number };
        const riskMs = await timed(7, () => call('GET', `/api/workspaces/${slug}/sla-at-risk/`));
        const breachedMs = await timed(7, () => call('GET', `/api/workspaces/${slug}/sla-breached/`));
        lines.push(`| ${size.toLocaleString('en')} | ${atRisk.total} | ${riskMs} ms | ${breached.total} | ${breachedMs} ms |`);
        console.error(`  sla ${size}: at-risk ${atRisk.total} in ${riskMs} ms, breached ${breached.total} in ${breachedMs} ms`);
      }
    }
    if (!only || only === 'retarget') {
      // 2. a calendar edit re-targeting every open tracker of a workspace
      const open = quick ? 20_000 : 100_000;
      const slug = 'sla-retarget';
      const ws = await insertWorkspace(q, owner.userId, slug, now);
      await seedWorkspace(q, {
        workspaceId: ws,
        ownerId: owner.userId,
        projects: [{ identifier: 'OPEN', issues: Math.round(open * 1.25) }],
        comments: 0,
        trackers: true,
        customValues: false,
        members: 1,
        now,
        label: `retarget ${open.toLocaleString('en')} trackers`,
      });
      const cal = (await call('POST', `/api/workspaces/${slug}/sla-calendars/`, {
        name: 'Office',
        time_zone: 'Europe/Istanbul',
        working_hours: WEEKDAYS_9_17,
      })) as {
        id: string;
      };
      const policy = (await call('GET', `/api/workspaces/${slug}/sla-policies/`)) as { id: string }[];
      await call('PATCH', `/api/workspaces/${slug}/sla-policies/${policy[0]!.id}/`, { calendar_id: cal.id });
      // Every tracker with a rule open (the seed closes most issues): what a busy service desk has.
      const reopened = await q(
        `UPDATE sla_trackers SET responded_at = NULL, resolved_at = NULL, response_settled = false, resolution_settled = false
         WHERE workspace_id = $1 AND policy_id IS NOT NULL`,
        [ws],
      );
      await q('VACUUM (ANALYZE) sla_trackers');
      const t0 = performance.now();
      await call('PATCH', `/api/workspaces/${slug}/sla-calendars/${cal.id}/`, { holidays: [{ date: `${now.getUTCFullYear()}-12-31`, recurring: true }] });
      const retargetS = (performance.now() - t0) / 1000;
      lines.push('', `Calendar edit re-targeting ${reopened.rowCount.toLocaleString('en')} open trackers: ${retargetS.toFixed(2)} s (target <= 10 s)`);
      console.error(`  retarget ${reopened.rowCount}: ${retargetS.toFixed(2)} s`);
    }
    if (!only || only === 'create') {
      // 3. create issue under a calendar against none, alternating rounds of sequential requests
      const projectOf = async (s: string, withCalendar: boolean) => {
        await insertWorkspace(q, owner.userId, s, now);
        const c = withCalendar
          ? ((await call('POST', `/api/workspaces/${s}/sla-calendars/`, { name: 'Office', time_zone: 'Europe/Istanbul', working_hours: WEEKDAYS_9_17 })) as {
              id: string;
            })
          : null;
        await call('POST', `/api/workspaces/${s}/sla-policies/`, {
          name: 'Desk',
          is_default: true,
          calendar_id: c?.id ?? null,
          rules: [{ priority: 'high', response_time_h: 4, resolution_time_h: 24 }],
        });
        const p = (await call('POST', `/api/workspaces/${s}/projects/`, { name: 'Desk', identifier: 'DESK' })) as { id: string };
        return `/api/workspaces/${s}/projects/${p.id}/issues/`;
      };
      const plain = await projectOf('sla-create-plain', false);
      const calendared = await projectOf('sla-create-calendar', true);
      const rounds = quick ? 3 : 6;
      const per = quick ? 150 : 400;
      const rate = async (path: string) => {
        const t = performance.now();
        for (let i = 0; i < per; i++) await call('POST', path, { name: `Issue ${i}`, priority: 'high' });
        return per / ((performance.now() - t) / 1000);
      };
      await rate(plain);
      await rate(calendared);
      const plainRates: number[] = [];
      const calRates: number[] = [];
      for (let r = 0; r < rounds; r++) {
        plainRates.push(await rate(plain));
        calRates.push(await rate(calendared));
      }
      const ratio = median(calRates) / median(plainRates);
      lines.push(
        '',
        `POST create issue: ${Math.round(median(calRates))}/s under a working-hours calendar, ${Math.round(median(plainRates))}/s without: ${ratio.toFixed(2)}x (target >= 0.9x)`,
      );
      console.error(`  create issue: calendar ${Math.round(median(calRates))}/s, plain ${Math.round(median(plainRates))}/s (${ratio.toFixed(2)}x)`);
    }
    await raw.end();
    await app.close();
  } finally {
    await handle.close();
    if (!keep) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    console.error('DATABASE_URL is required (a PostgreSQL server on which a scratch database may be created)');
    process.exit(2);
  }
  benchSlaScale({
    databaseUrl,
    quick: process.argv.includes('--quick'),
    keep: process.argv.includes('--keep'),
    only: process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length),
  }).then(
    (report) => console.log(report),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
