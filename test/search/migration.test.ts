/** Migration 1092 on data written before it: existing issues, comments and text values are searchable at once. */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { searchRepository } from '../../src/modules/search/search.repository.js';
import { parseSearchQuery, tsqueryText } from '../../src/modules/search/search.rules.js';
import { openEmptyDatabase } from '../helpers/databases.js';

describe('migration 1092 on data written before it', () => {
  let handle: DatabaseHandle;
  const now = new Date('2026-10-01T10:00:00Z');
  const user = randomUUID();
  const workspace = randomUUID();
  const project = randomUUID();
  const state = randomUUID();
  const issue = randomUUID();
  const other = randomUUID();
  const comment = randomUUID();
  const property = randomUUID();

  beforeAll(async () => {
    handle = await openEmptyDatabase();
    await migrateTo(handle.db, '1091_saved_views');
    const db = handle.db;
    await sql`INSERT INTO users (id, email, display_name, password_hash, created_at, updated_at)
              VALUES (${user}, 'old@example.com', 'Old', 'x', ${now}, ${now})`.execute(db);
    await sql`INSERT INTO workspaces (id, slug, name, created_by, created_at, updated_at)
              VALUES (${workspace}, 'old-search', 'Old', ${user}, ${now}, ${now})`.execute(db);
    await sql`INSERT INTO projects (id, workspace_id, name, identifier, description, created_by, created_at, updated_at)
              VALUES (${project}, ${workspace}, 'Desk', 'SD', '', ${user}, ${now}, ${now})`.execute(db);
    await sql`INSERT INTO states (id, workspace_id, project_id, name, "group", color, sequence, is_default, created_at, updated_at)
              VALUES (${state}, ${workspace}, ${project}, 'Backlog', 'backlog', '#888888', 1000, true, ${now}, ${now})`.execute(db);
    const insertIssue = (id: string, seq: number, name: string, description: string) =>
      sql`INSERT INTO issues (id, workspace_id, project_id, sequence_id, name, description, state_id, state_group, priority, created_by, created_at, updated_at)
          VALUES (${id}, ${workspace}, ${project}, ${seq}, ${name}, ${description}, ${state}, 'backlog', 'none', ${user}, ${now}, ${now})`.execute(db);
    await insertIssue(issue, 1, 'Ödeme sayfası açılmıyor', 'İSTANBUL şubesinde');
    await insertIssue(other, 2, 'Deployment pipeline', '');
    await sql`INSERT INTO comments (id, workspace_id, issue_id, author_id, body, created_at, updated_at)
              VALUES (${comment}, ${workspace}, ${other}, ${user}, 'IŞIK arızası yüzünden', ${now}, ${now})`.execute(db);
    await sql`INSERT INTO custom_properties (id, workspace_id, project_id, name, name_key, type, created_at, updated_at)
              VALUES (${property}, ${workspace}, ${project}, 'Customer', 'customer', 'text', ${now}, ${now})`.execute(db);
    await sql`INSERT INTO custom_values (workspace_id, issue_id, property_id, value, value_text, updated_at)
              VALUES (${workspace}, ${issue}, ${property}, '"Zeppelin Lojistik"', 'Zeppelin Lojistik', ${now})`.execute(db);
    await migrateToLatest(db);
  });
  afterAll(async () => handle?.close());

  const search = async (q: string) => {
    const { rows } = await searchRepository().search(handle.db, {
      workspaceId: workspace,
      text: tsqueryText(parseSearchQuery(q)),
      keyIds: [],
      filter: {},
      offset: 0,
      limit: 20,
      now,
    });
    return rows.map((r) => r.id);
  };

  it('finds the issues written before it by name, description, comment and text value, accents and Turkish letters folded', async () => {
    expect(await search('odeme')).toEqual([issue]);
    expect(await search('istanbul')).toEqual([issue]);
    expect(await search('ışık')).toEqual([other]);
    expect(await search('zeppelin')).toEqual([issue]);
    expect(await search('deploy')).toEqual([other]);
  });

  it('sets every workspace to English, already built, and knows the words of the names for the fuzzy fallback', async () => {
    const ws = await sql<{ search_language: string; search_language_built: string }>`
      SELECT search_language, search_language_built FROM workspaces WHERE id = ${workspace}`.execute(handle.db);
    expect(ws.rows).toEqual([{ search_language: 'english', search_language_built: 'english' }]);
    const words = await sql<{ word: string }>`SELECT word FROM search_words WHERE workspace_id = ${workspace} ORDER BY word`.execute(handle.db);
    expect(words.rows.map((r) => r.word)).toEqual(expect.arrayContaining(['odeme', 'deployment', 'pipeline']));
  });

  it('knows the words of the names and descriptions for the type-ahead (migration 1099)', async () => {
    expect(await searchRepository().completions(handle.db, workspace, 'Öde')).toEqual(['odeme']);
    expect(await searchRepository().completions(handle.db, workspace, 'istan')).toEqual(['istanbul']);
    expect(await searchRepository().completions(handle.db, workspace, 'pipe')).toEqual(['pipeline']);
  });
});

describe('migration 1100 on documents written before it', () => {
  let handle: DatabaseHandle;
  const user = randomUUID();
  const workspace = randomUUID();
  const project = randomUUID();
  const state = randomUUID();
  // One issue of this month, one of two years ago (before the first monthly partition: the default one), one a year ago.
  const issues = [
    { id: randomUUID(), at: new Date(Date.now() - 2 * 86_400_000), name: 'Kasa raporu eksik' },
    { id: randomUUID(), at: new Date(Date.now() - 400 * 86_400_000), name: 'Kasa açılışı yavaş' },
    { id: randomUUID(), at: new Date(Date.now() - 800 * 86_400_000), name: 'Kasa kapanışı hatalı' },
  ];
  let before: { issue_id: string; document: string }[];

  beforeAll(async () => {
    handle = await openEmptyDatabase();
    await migrateTo(handle.db, '1099_search_terms');
    const db = handle.db;
    const now = new Date();
    await sql`INSERT INTO users (id, email, display_name, password_hash, created_at, updated_at)
              VALUES (${user}, 'older@example.com', 'Old', 'x', ${now}, ${now})`.execute(db);
    await sql`INSERT INTO workspaces (id, slug, name, created_by, created_at, updated_at)
              VALUES (${workspace}, 'old-docs', 'Old', ${user}, ${now}, ${now})`.execute(db);
    await sql`INSERT INTO projects (id, workspace_id, name, identifier, description, created_by, created_at, updated_at)
              VALUES (${project}, ${workspace}, 'Till', 'TL', '', ${user}, ${now}, ${now})`.execute(db);
    await sql`INSERT INTO states (id, workspace_id, project_id, name, "group", color, sequence, is_default, created_at, updated_at)
              VALUES (${state}, ${workspace}, ${project}, 'Backlog', 'backlog', '#888888', 1000, true, ${now}, ${now})`.execute(db);
    for (const [n, i] of issues.entries()) {
      await sql`INSERT INTO issues (id, workspace_id, project_id, sequence_id, name, description, state_id, state_group, priority, created_by, created_at, updated_at)
                VALUES (${i.id}, ${workspace}, ${project}, ${n + 1}, ${i.name}, '', ${state}, 'backlog', 'none', ${user}, ${i.at}, ${i.at})`.execute(db);
    }
    before = (await sql<{ issue_id: string; document: string }>`SELECT issue_id, document::text FROM issue_search ORDER BY issue_id`.execute(db)).rows;
    await migrateToLatest(db);
  });
  afterAll(async () => handle?.close());

  it('moves every document as it was into its month, the oldest into the default partition, all searchable', async () => {
    const after = await sql<{ issue_id: string; document: string; part: string }>`
      SELECT issue_id, document::text, tableoid::regclass::text AS part FROM issue_search ORDER BY issue_id`.execute(handle.db);
    expect(after.rows.map(({ issue_id, document }) => ({ issue_id, document }))).toEqual(before);
    const partOf = new Map(after.rows.map((r) => [r.issue_id, r.part]));
    const month = (d: Date) => `issue_search_${d.toISOString().slice(0, 7).replace('-', '')}`;
    expect(partOf.get(issues[0]!.id)).toBe(month(issues[0]!.at));
    expect(partOf.get(issues[1]!.id)).toBe(month(issues[1]!.at));
    expect(partOf.get(issues[2]!.id)).toBe('issue_search_default');
    const { rows } = await searchRepository().search(handle.db, {
      workspaceId: workspace,
      text: tsqueryText(parseSearchQuery('kasa')),
      keyIds: [],
      filter: {},
      offset: 0,
      limit: 20,
      now: new Date(),
    });
    expect(rows.map((r) => r.id)).toEqual(issues.map((i) => i.id));
  });
});
