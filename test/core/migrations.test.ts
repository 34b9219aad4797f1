import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { openEmptyDatabase, openTestDatabase } from '../helpers/databases.js';

/** Migrations run on databases that already hold data: each is tested on rows written before it. */
describe('migrations on data written before them', () => {
  let handle: DatabaseHandle;
  const now = new Date('2026-01-15T10:00:00Z');
  const user = randomUUID();
  const workspace = randomUUID();
  const other = randomUUID();
  const subscription = randomUUID();
  const gone = randomUUID();

  beforeAll(async () => {
    handle = await openEmptyDatabase();
    await migrateTo(handle.db, '0900_tenant_keys');
    const db = handle.db;
    await sql`INSERT INTO users (id, email, display_name, password_hash, created_at, updated_at)
              VALUES (${user}, 'old@example.com', 'Old', 'x', ${now}, ${now})`.execute(db);
    for (const [id, slug] of [
      [workspace, 'old-one'],
      [other, 'old-two'],
    ] as const) {
      await sql`INSERT INTO workspaces (id, slug, name, created_by, created_at, updated_at)
                VALUES (${id}, ${slug}, ${slug}, ${user}, ${now}, ${now})`.execute(db);
    }
    await sql`INSERT INTO plans (slug, name, max_users, max_projects, max_storage_gb, ai_tokens_monthly, price_month, currency)
              VALUES ('old-plan', 'Old plan', -1, -1, -1, -1, 1000, 'TRY')`.execute(db);
    await sql`INSERT INTO subscriptions (id, workspace_id, plan_slug, status, billing_interval, currency, amount_per_period,
                                         current_period_start, current_period_end, created_at, updated_at)
              VALUES (${subscription}, ${workspace}, 'old-plan', 'active', 'month', 'TRY', 1000, ${now}, ${now}, ${now}, ${now})`.execute(db);
    // A notice of a live subscription, and one of a subscription that is gone (removed by hand before 0910).
    const notice = (sub: string, ws: string) =>
      sql`INSERT INTO subscription_notices (subscription_id, workspace_id, kind, period_end, sent_at)
          VALUES (${sub}, ${ws}, 'renewal_upcoming', ${now}, ${now})`.execute(db);
    await notice(subscription, workspace);
    await notice(gone, workspace);
    await migrateToLatest(db);
  });
  afterAll(async () => handle?.close());

  const fkey = async () =>
    (
      await sql<{ validated: boolean }>`SELECT convalidated AS validated FROM pg_constraint
                                        WHERE conname = 'subscription_notices_subscription_fkey'`.execute(handle.db)
    ).rows;

  it('0910 keeps every notice written before it, an orphan included, and leaves the key unvalidated while one exists', async () => {
    const rows = await sql<{ subscription_id: string }>`SELECT subscription_id FROM subscription_notices ORDER BY sent_at`.execute(handle.db);
    expect(rows.rows.map((r) => r.subscription_id).sort()).toEqual([subscription, gone].sort());
    expect(await fkey()).toEqual([{ validated: false }]);
  });

  it('0910 refuses a new notice of a missing subscription or of a subscription of another workspace', async () => {
    const insert = (sub: string, ws: string) =>
      sql`INSERT INTO subscription_notices (subscription_id, workspace_id, kind, period_end, sent_at)
          VALUES (${sub}, ${ws}, 'trial_will_end', ${now}, ${now})`.execute(handle.db);
    await expect(insert(randomUUID(), workspace)).rejects.toMatchObject({ code: '23503' });
    await expect(insert(subscription, other)).rejects.toMatchObject({ code: '23503' });
    await insert(subscription, workspace);
  });

  it('0910 validates once the orphans are gone, and a deleted subscription takes its notices with it', async () => {
    const db = handle.db;
    await sql`DELETE FROM subscription_notices WHERE subscription_id = ${gone}`.execute(db);
    await sql`ALTER TABLE subscription_notices VALIDATE CONSTRAINT subscription_notices_subscription_fkey`.execute(db);
    expect(await fkey()).toEqual([{ validated: true }]);
    await sql`DELETE FROM subscriptions WHERE id = ${subscription}`.execute(db);
    const left = await sql<{ n: number }>`SELECT count(*)::int AS n FROM subscription_notices`.execute(db);
    expect(left.rows[0]!.n).toBe(0);
  });

  it('0911 keeps the usage counts an index-only scan on an index that carries workspace_id', async () => {
    const rows = await sql<{ name: string; definition: string }>`
      SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE tablename = 'custom_values' AND indexdef LIKE '%md5%'`.execute(handle.db);
    expect(rows.rows).toHaveLength(1);
    expect(rows.rows[0]!.definition).toContain('INCLUDE (workspace_id)');
  });
});

describe('migrations on an empty database', () => {
  it('0910 validates the notices key at once when no notice is orphaned', async () => {
    // The tests' template database was migrated empty.
    const handle = await openTestDatabase({ pgliteTemplate: inject('pgliteTemplate'), postgresTemplate: inject('postgresTemplate') });
    try {
      const rows = await sql<{ validated: boolean }>`SELECT convalidated AS validated FROM pg_constraint
                                                     WHERE conname = 'subscription_notices_subscription_fkey'`.execute(handle.db);
      expect(rows.rows).toEqual([{ validated: true }]);
    } finally {
      await handle.close();
    }
  });
});
