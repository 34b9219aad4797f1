/**
 * Mail delivery (contract 26.3): 10,000 queued mails delivered to a local SMTP server (test/helpers/smtp.ts, the
 * suite's own, in this process) by the service's worker (pooled nodemailer, claims of 200 with SKIP LOCKED), each
 * once: the server counts distinct Message-IDs. Target: <= 60 s.
 *
 * Runs on an embedded database of its own (a temporary folder), and on PostgreSQL when DATABASE_URL is set (a scratch
 * database `<db>_bench_mail`), where a second run has two service builds (two "instances") draining one outbox.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config/config.js';
import { type DatabaseHandle, openDatabase, openPostgres } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createMailQueue, mailRepository } from '../src/modules/mail/index.js';
import { buildServices } from '../src/services.js';
import { startSmtpServer } from '../test/helpers/smtp.js';

const log = (...a: unknown[]) => console.error(...a);

interface Result {
  database: string;
  instances: number;
  mails: number;
  queueSeconds: number;
  deliverSeconds: number;
  received: number;
  distinct: number;
  sentRows: number;
}

async function deliver(database: DatabaseHandle, label: string, mails: number, instances: number): Promise<Result> {
  const smtp = await startSmtpServer({ parse: false });
  const base = loadConfig({ LOG_LEVEL: 'silent' });
  const config = { ...base, logLevel: 'silent', jobIntervalMs: 0, mail: { ...base.mail, smtpUrl: smtp.url, from: 'Bench <bench@bench.test>' } };
  const repo = mailRepository();
  try {
    // Queue: as modules do, in transactions (1,000 mails each); no worker is woken (the clock of the run starts after).
    const queue = createMailQueue({ repo, clock: { now: () => new Date() }, from: config.mail.from });
    let started = performance.now();
    for (let done = 0; done < mails; done += 1000) {
      const batch = Array.from({ length: Math.min(1000, mails - done) }, (_, i) => ({
        to: `user${done + i}@example.test`,
        subject: `Bench mail ${done + i}`,
        text: `Hello ${done + i},\n\nA notification with a link: https://wis.example.test/app/w/acme/p/x/issues/${done + i}\n`,
        html: `<p>Hello ${done + i},</p><p><a href="https://wis.example.test/app/w/acme/p/x/issues/${done + i}">A notification</a></p>`,
        category: 'notification',
        headers: { 'List-Unsubscribe': '<https://wis.example.test/api/mail/unsubscribe/x/>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
      }));
      await database.db.transaction().execute((tx) => queue.enqueueMany(tx, batch));
    }
    const queueSeconds = (performance.now() - started) / 1000;

    const builds = Array.from({ length: instances }, () => buildServices(config, database));
    started = performance.now();
    try {
      // Each instance drains the outbox as its periodic job would (a run sends every due mail, claim after claim).
      await Promise.all(builds.map((b) => b.jobs.find((j) => j.name === 'mail.deliver')!.run()));
      await smtp.waitFor(mails, 120_000);
    } finally {
      await Promise.all(builds.map((b) => b.close()));
    }
    const deliverSeconds = (performance.now() - started) / 1000;
    const ids = smtp.messages.map((m) => m.messageId);
    const sentRows = (await repo.listMails(database.db, 'sent', 0, 1)).total;
    const result = { database: label, instances, mails, queueSeconds, deliverSeconds, received: ids.length, distinct: new Set(ids).size, sentRows };
    log(
      `  ${label}, ${instances} instance(s): queued in ${queueSeconds.toFixed(1)} s, delivered in ${deliverSeconds.toFixed(1)} s; received ${ids.length}, distinct ${result.distinct}`,
    );
    return result;
  } finally {
    await smtp.close();
  }
}

export async function runMailBench(opts: { databaseUrl: string | null; quick: boolean }): Promise<string> {
  const mails = opts.quick ? 2_000 : 10_000;
  const results: Result[] = [];
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

  log(`mail bench: ${mails.toLocaleString('en')} mails`);
  const dir = mkdtempSync(join(tmpdir(), 'wis-bench-mail-'));
  try {
    const database = await openDatabase({ databaseUrl: null, dataDir: join(dir, 'data') });
    try {
      await migrateToLatest(database.db);
      results.push(await deliver(database, 'PGlite', mails, 1));
    } finally {
      await database.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  if (opts.databaseUrl) {
    const url = new URL(opts.databaseUrl);
    const name = `${url.pathname.slice(1) || 'postgres'}_bench_mail`;
    const admin = new pg.Client({ connectionString: opts.databaseUrl });
    await admin.connect();
    try {
      for (const instances of [1, 2]) {
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        await admin.query(`CREATE DATABASE "${name}"`);
        url.pathname = `/${name}`;
        const database = openPostgres(url.toString(), 10);
        try {
          await migrateToLatest(database.db);
          results.push(await deliver(database, 'PostgreSQL', mails, instances));
        } finally {
          await database.close();
        }
      }
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  }

  const rowsMd = results.map(
    (r) =>
      `| ${r.database} | ${r.instances} | ${r.mails.toLocaleString('en')} | ${r.queueSeconds.toFixed(1)} s | **${r.deliverSeconds.toFixed(1)} s** | ${Math.round(r.mails / r.deliverSeconds).toLocaleString('en')} | ${r.received.toLocaleString('en')} | ${r.distinct.toLocaleString('en')} | ${r.sentRows.toLocaleString('en')} | ${r.deliverSeconds <= 60 && r.distinct === r.mails && r.received === r.mails ? 'met' : 'MISSED'} |`,
  );
  return [
    '# Mail delivery benchmark',
    '',
    `\`npm run bench -- --mail\` (bench/mail.ts), ${new Date().toISOString().slice(0, 10)}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load average ${load} at the start.`,
    '',
    `${mails.toLocaleString('en')} mails queued in the outbox (transactions of 1,000), then delivered by the service's mail worker ` +
      '(nodemailer, a pool of 10 SMTP connections, 20 sends in flight, claims of 200 with `FOR UPDATE SKIP LOCKED` and a lease) to the ' +
      "test suite's SMTP server (npm `smtp-server`, in the same process, not parsing); the server counts the Message-IDs it received. " +
      'Target (26.3 brief): 10,000 mails in at most 60 s, each once.',
    '',
    '| database | instances | mails | queue | deliver | mails/s | received | distinct Message-IDs | rows `sent` | target |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rowsMd,
    '',
  ].join('\n');
}
