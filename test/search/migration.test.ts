/** Migration 1092 on data written before it: existing issues, comments and text values are searchable at once. */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { searchRepository } from '../../src/modules/search/search.repository.js';
import { parseSearchQuery, tsqueryText } from '../../src/modules/search/search.rules.js';
import { openEmptyDatabase } from '../helpers/databases.js';

/** An issue in the backlog of `insertWorkspaceRows`' project, written by SQL; `at` is its creation (and update) time. */
const insertIssueRow = (
  db: DatabaseHandle['db'],
  ids: { user: string; workspace: string; project: string; state: string },
  issue: { id: string; seq: number; name: string; description?: string; at: Date | string },
) =>
  sql`INSERT INTO issues (id, workspace_id, project_id, sequence_id, name, description, state_id, state_group, priority, created_by, created_at, updated_at)
      VALUES (${issue.id}, ${ids.workspace}, ${ids.project}, ${issue.seq}, ${issue.name}, ${issue.description ?? ''}, ${ids.state}, 'backlog', 'none',
              ${ids.user}, ${issue.at}::timestamptz, ${issue.at}::timestamptz)`.execute(db);

/** The ids of the first page of a search, as the service ranks them. */
const searchIds = async (db: DatabaseHandle['db'], workspaceId: string, q: string, now: Date) =>
  (
    await searchRepository().search(db, {
      workspaceId,
      text: tsqueryText(parseSearchQuery(q)),
      keyIds: [],
      filter: {},
      offset: 0,
      limit: 20,
      now,
    })
  ).rows.map((r) => r.id);

/** A user, a workspace, a project and its backlog state, written by SQL (as a release before a migration wrote them). */
async function insertWorkspaceRows(
  db: DatabaseHandle['db'],
  ids: { user: string; workspace: string; project: string; state: string },
  names: { email: string; slug: string; project: string; identifier: string },
  now: Date,
) {
  await sql`INSERT INTO users (id, email, display_name, password_hash, created_at, updated_at)
            VALUES (${ids.user}, ${names.email}, 'Old', 'x', ${now}, ${now})`.execute(db);
  await sql`INSERT INTO workspaces (id, slug, name, created_by, created_at, updated_at)
            VALUES (${ids.workspace}, ${names.slug}, 'Old', ${ids.user}, ${now}, ${now})`.execute(db);
  await sql`INSERT INTO projects (id, workspace_id, name, identifier, description, created_by, created_at, updated_at)
            VALUES (${ids.project}, ${ids.workspace}, ${names.project}, ${names.identifier}, '', ${ids.user}, ${now}, ${now})`.execute(db);
  await sql`INSERT INTO states (id, workspace_id, project_id, name, "group", color, sequence, is_default, created_at, updated_at)
            VALUES (${ids.state}, ${ids.workspace}, ${ids.project}, 'Backlog', 'backlog', '#888888', 1000, true, ${now}, ${now})`.execute(db);
}

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
    await insertWorkspaceRows(
      db,
      { user, workspace, project, state },
      { email: 'old@example.com', slug: 'old-search', project: 'Desk', identifier: 'SD' },
      now,
    );
    const insertIssue = (id: string, seq: number, name: string, description: string) =>
      insertIssueRow(db, { user, workspace, project, state }, { id, seq, name, description, at: now });
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

  const search = (q: string) => searchIds(handle.db, workspace, q, now);

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
    await insertWorkspaceRows(
      db,
      { user, workspace, project, state },
      { email: 'older@example.com', slug: 'old-docs', project: 'Till', identifier: 'TL' },
      now,
    );
    for (const [n, i] of issues.entries()) {
      await insertIssueRow(db, { user, workspace, project, state }, { id: i.id, seq: n + 1, name: i.name, at: i.at });
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
    expect(await searchIds(handle.db, workspace, 'kasa', new Date())).toEqual(issues.map((i) => i.id));
  });
});

describe('migration 1101 (lighter search triggers) on data written before it', () => {
  let handle: DatabaseHandle;
  const now = new Date();
  const user = randomUUID();
  const workspace = randomUUID();
  const project = randomUUID();
  const state = randomUUID();
  const old = randomUUID();
  const fresh = randomUUID();
  const oldComment = randomUUID();
  const freshComment = randomUUID();
  let before: { documents: unknown[]; parts: unknown[]; terms: string[] };
  const snapshot = async () => ({
    documents: (await sql`SELECT issue_id, document::text, name_folded FROM issue_search ORDER BY issue_id`.execute(handle.db)).rows,
    parts: (await sql`SELECT issue_id, part_id, document::text FROM issue_search_parts ORDER BY part_id`.execute(handle.db)).rows,
    terms: (await sql<{ word: string }>`SELECT word FROM search_terms ORDER BY word`.execute(handle.db)).rows.map((r) => r.word),
  });
  const insertIssue = (id: string, seq: number, name: string, description: string) =>
    insertIssueRow(handle.db, { user, workspace, project, state }, { id, seq, name, description, at: now });
  const insertComment = (id: string, issueId: string, body: string) =>
    sql`INSERT INTO comments (id, workspace_id, issue_id, author_id, body, created_at, updated_at)
        VALUES (${id}, ${workspace}, ${issueId}, ${user}, ${body}, ${now}, ${now})`.execute(handle.db);

  beforeAll(async () => {
    handle = await openEmptyDatabase();
    await migrateTo(handle.db, '1100_search_partitions');
    const db = handle.db;
    await insertWorkspaceRows(
      db,
      { user, workspace, project, state },
      { email: 'lighter@example.com', slug: 'old-terms', project: 'Pay', identifier: 'PY' },
      now,
    );
    await insertIssue(old, 1, 'Ödeme sayfası açılmıyor', 'Görülen adres: https://pay.example.com/checkout');
    await insertComment(oldComment, old, 'Kasadaki yazıcı arızalı');
    before = await snapshot();
    await migrateToLatest(db);
  });
  afterAll(async () => handle?.close());

  const search = (q: string) => searchIds(handle.db, workspace, q, now);

  it('reads back every document, part and word as written before it', async () => {
    expect(await snapshot()).toEqual(before);
    // the old words split hosts into parts, which stay (only added to)
    expect(before.terms).toEqual(expect.arrayContaining(['odeme', 'example', 'checkout']));
  });

  it('writes a new issue the same document, and as words the lexemes its document can match', async () => {
    await insertIssue(fresh, 2, 'Yazıcı bağlantısı kopuyor', 'Durum sayfası status.vendorhost.io, sürüm v2.1.3');
    const row = await sql<{ same: boolean }>`
      SELECT s.document = search_issue_doc('english', i.name, i.description) AS same
      FROM issue_search s JOIN issues i ON i.id = s.issue_id WHERE s.issue_id = ${fresh}`.execute(handle.db);
    expect(row.rows[0]!.same).toBe(true);
    const terms = (await snapshot()).terms;
    expect(terms).toEqual(expect.arrayContaining(['yazici', 'baglantisi', 'kopuyor', 'durum', 'sayfasi', 'surum']));
    // a host or a version is one lexeme of the document, with punctuation: neither it nor its parts are completions
    expect(terms.filter((t) => t.includes('vendorhost') || t.includes('2.1'))).toEqual([]);
    expect(await searchRepository().completions(handle.db, workspace, 'yazı')).toEqual(['yazici']);
    expect(await search('bağlantı')).toEqual([fresh]);
  });

  it('gives the snippet of an issue whose creation time has microseconds (written by SQL, not by the service)', async () => {
    const id = randomUUID();
    await insertIssueRow(handle.db, { user, workspace, project, state }, { id, seq: 3, name: 'Mikrosaniye kaydı', at: '2026-11-02 10:00:00.123456+00' });
    const { rows } = await searchRepository().search(handle.db, {
      workspaceId: workspace,
      text: tsqueryText(parseSearchQuery('mikrosaniye')),
      keyIds: [],
      filter: {},
      offset: 0,
      limit: 20,
      now,
    });
    expect(rows.map((r) => r.id)).toEqual([id]);
    const hits = await searchRepository().hits(handle.db, { workspaceId: workspace, language: 'english', anyText: "'mikrosaniye'", issues: rows });
    expect(hits.map((h) => [h.issue_id, h.snippet_field, h.name_hit])).toEqual([[id, 'name', true]]);
  });

  it('indexes a new comment at once, and an edited one anew', async () => {
    await insertComment(freshComment, fresh, 'Kablo değişti, sorun sürüyor');
    expect(await search('kablo')).toEqual([fresh]);
    await sql`UPDATE comments SET body = 'Adaptör değişti' WHERE id = ${freshComment}`.execute(handle.db);
    expect(await search('kablo')).toEqual([]);
    expect(await search('adaptör')).toEqual([fresh]);
    await sql`UPDATE comments SET body = 'Kasadaki yazıcı yine arızalı' WHERE id = ${oldComment}`.execute(handle.db);
    expect(await search('yine')).toEqual([old]);
  });
});

describe('migration 1102 (updated_at beside the document) on data written before it', () => {
  let handle: DatabaseHandle;
  const now = new Date();
  const ids = { user: randomUUID(), workspace: randomUUID(), project: randomUUID(), state: randomUUID() };
  const [first, second, third] = [randomUUID(), randomUUID(), randomUUID()];
  const comment = randomUUID();
  let before: unknown[];
  const documents = async () =>
    (await sql`SELECT issue_id, created_at, language, name_folded, document::text FROM issue_search ORDER BY issue_id`.execute(handle.db)).rows;
  const times = async () =>
    (
      await sql<{ issue_id: string; same: boolean }>`
        SELECT s.issue_id, s.updated_at IS NOT DISTINCT FROM i.updated_at AS same FROM issue_search s JOIN issues i ON i.id = s.issue_id`.execute(handle.db)
    ).rows;
  const search = (q: string) => searchIds(handle.db, ids.workspace, q, now);
  const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000).toISOString();

  beforeAll(async () => {
    handle = await openEmptyDatabase();
    await migrateTo(handle.db, '1101_search_lighter_writes');
    await insertWorkspaceRows(handle.db, ids, { email: 'times@example.com', slug: 'old-times', project: 'Ops', identifier: 'OP' }, now);
    await insertIssueRow(handle.db, ids, { id: first, seq: 1, name: 'Yazıcı arızası', at: minutesAgo(30) });
    await insertIssueRow(handle.db, ids, { id: second, seq: 2, name: 'Yazıcı kağıt sıkıştı', at: minutesAgo(20) });
    await insertIssueRow(handle.db, ids, { id: third, seq: 3, name: 'Tarayıcı bozuk', at: minutesAgo(10) });
    await sql`INSERT INTO comments (id, workspace_id, issue_id, author_id, body, created_at, updated_at)
              VALUES (${comment}, ${ids.workspace}, ${third}, ${ids.user}, 'Yazıcı da bozuk', ${now}, ${now})`.execute(handle.db);
    // the oldest issue updated last: it ranks first among the names that match
    await sql`UPDATE issues SET priority = 'high', updated_at = ${minutesAgo(5)}::timestamptz WHERE id = ${first}`.execute(handle.db);
    before = await documents();
    await migrateToLatest(handle.db);
  });
  afterAll(async () => handle?.close());

  it('reads back every document as before, each with its issue’s updated_at', async () => {
    expect(await documents()).toEqual(before);
    expect(await times()).toEqual(expect.arrayContaining([first, second, third].map((issue_id) => ({ issue_id, same: true }))));
    // names by updated_at, then the match by a comment alone (its time read from the issue)
    expect(await search('yazıcı')).toEqual([first, second, third]);
  });

  it('follows every update of the issue, with or without its words', async () => {
    await sql`UPDATE issues SET state_group = 'started', updated_at = ${minutesAgo(1)}::timestamptz WHERE id = ${second}`.execute(handle.db);
    expect(await search('yazıcı')).toEqual([second, first, third]);
    await sql`UPDATE issues SET name = 'Yazıcı kağıt sıkışması', updated_at = ${now.toISOString()}::timestamptz WHERE id = ${first}`.execute(handle.db);
    expect(await search('sıkışması')).toEqual([first]);
    expect(await search('yazıcı')).toEqual([first, second, third]);
    // an update that leaves the time alone leaves the document's row alone
    await sql`UPDATE issues SET priority = 'low' WHERE id = ${third}`.execute(handle.db);
    expect((await times()).every((t) => t.same)).toBe(true);
  });

  it('writes a new issue its time', async () => {
    const id = randomUUID();
    await insertIssueRow(handle.db, ids, { id, seq: 4, name: 'Yazıcı yeni', at: minutesAgo(3) });
    expect((await times()).every((t) => t.same)).toBe(true);
    expect(await search('yazıcı')).toEqual([first, second, id, third]);
  });
});

describe('migration 1103 (search work before the number) on data written before it', () => {
  let handle: DatabaseHandle;
  const now = new Date();
  const ids = { user: randomUUID(), workspace: randomUUID(), project: randomUUID(), state: randomUUID() };
  const first = randomUUID();
  let before: unknown[];
  const documents = async () =>
    (await sql`SELECT issue_id, created_at, updated_at, language, name_folded, document::text FROM issue_search ORDER BY issue_id`.execute(handle.db)).rows;
  const counter = async () => (await sql<{ n: number }>`SELECT issue_seq AS n FROM projects WHERE id = ${ids.project}`.execute(handle.db)).rows[0]!.n;
  /** An issue inserted as the service now inserts it: without a number. */
  const insertUnnumbered = (db: DatabaseHandle['db'], id: string, name: string, stateId = ids.state) =>
    sql<{ sequence_id: number }>`
      INSERT INTO issues (id, workspace_id, project_id, name, description, state_id, state_group, priority, created_by, created_at, updated_at)
      VALUES (${id}, ${ids.workspace}, ${ids.project}, ${name}, 'Kağıt sıkışıyor', ${stateId}, 'backlog', 'none', ${ids.user}, ${now}, ${now})
      RETURNING sequence_id`.execute(db);
  const search = (q: string) => searchIds(handle.db, ids.workspace, q, now);

  beforeAll(async () => {
    handle = await openEmptyDatabase();
    await migrateTo(handle.db, '1102_search_updated_at');
    await insertWorkspaceRows(handle.db, ids, { email: 'numbers@example.com', slug: 'old-numbers', project: 'Desk', identifier: 'DK' }, now);
    // as the release before created an issue: the counter first, then the insert with its number
    await sql`UPDATE projects SET issue_seq = issue_seq + 1 WHERE id = ${ids.project}`.execute(handle.db);
    await insertIssueRow(handle.db, ids, { id: first, seq: 1, name: 'Yazıcı arızası', description: 'Toner bitti', at: now });
    before = await documents();
    await migrateToLatest(handle.db);
  });
  afterAll(async () => handle?.close());

  it('reads back every document as before', async () => {
    expect(await documents()).toEqual(before);
    expect(await search('toner')).toEqual([first]);
  });

  it('numbers an insert that gives no number from the counter, with its document and words written in the same insert', async () => {
    const id = randomUUID();
    const { rows } = await insertUnnumbered(handle.db, id, 'Tarayıcı zımbalandı');
    expect(rows[0]!.sequence_id).toBe(2);
    expect(await counter()).toBe(2);
    const same = await sql<{ same: boolean }>`
      SELECT s.document = search_issue_doc('english', i.name, i.description) AS same
      FROM issue_search s JOIN issues i ON i.id = s.issue_id WHERE s.issue_id = ${id}`.execute(handle.db);
    expect(same.rows[0]!.same).toBe(true);
    expect(await searchRepository().completions(handle.db, ids.workspace, 'zımba')).toEqual(['zimbalandi']);
    expect(await search('tarayıcı')).toEqual([id]);
  });

  it('keeps the number an insert gives (the release before, during a rolling upgrade; a script)', async () => {
    const id = randomUUID();
    await sql`UPDATE projects SET issue_seq = issue_seq + 1 WHERE id = ${ids.project}`.execute(handle.db);
    await insertIssueRow(handle.db, ids, { id, seq: 3, name: 'Faks hattı', at: now });
    expect(await counter()).toBe(3);
    expect(await search('faks')).toEqual([id]);
  });

  it('leaves no gap, document or word behind an insert that fails', async () => {
    const words = async () => (await sql`SELECT count(*)::int AS n FROM search_terms`.execute(handle.db)).rows;
    const wordsBefore = await words();
    await expect(insertUnnumbered(handle.db, randomUUID(), 'Başarısız kayıt', randomUUID())).rejects.toThrow(/foreign key/);
    expect(await counter()).toBe(3);
    expect(await words()).toEqual(wordsBefore);
    expect(await search('başarısız')).toEqual([]);
    const { rows } = await insertUnnumbered(handle.db, randomUUID(), 'Sonraki kayıt');
    expect(rows[0]!.sequence_id).toBe(4);
  });

  it('checks a document’s issue at the commit, and deletes the document with its issue at once', async () => {
    await expect(
      handle.db.transaction().execute(async (tx) => {
        await sql`INSERT INTO issue_search (issue_id, workspace_id, project_id, language, created_at, updated_at, name_folded, document)
                  VALUES (${randomUUID()}, ${ids.workspace}, ${ids.project}, 'english', ${now}, ${now}, 'orphan', 'orphan'::tsvector)`.execute(tx);
      }),
    ).rejects.toThrow(/foreign key/);
    await handle.db.transaction().execute(async (tx) => {
      await sql`DELETE FROM issues WHERE id = ${first}`.execute(tx);
      const left = await sql`SELECT 1 FROM issue_search WHERE issue_id = ${first}`.execute(tx);
      expect(left.rows).toEqual([]);
    });
  });
});
