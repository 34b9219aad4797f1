/** The CLI demo in process, stopped or crashed midway and completed by the next run. */
import { sql } from 'kysely';
import type { DemoBackend } from '../../src/cli/demo/demo.backend.js';
import { type Db } from '../../src/db/database.js';
import { removeDemoFiles, freshDatabase, counts, demoOn, addedNothing } from './cli-demo.helpers.js';
import { afterAll, describe, expect, it } from 'vitest';

afterAll(removeDemoFiles);

describe('cli demo, in process', () => {
  it('a run that stopped after a step, or crashed in the middle of one, is completed by the next run: the same data as one run', async () => {
    const straight = await freshDatabase();
    const resumed = await freshDatabase();
    try {
      await demoOn(straight, { issueCount: 24 });

      const stopped = await demoOn(resumed, { issueCount: 24, stopAfter: 6 });
      expect(stopped.text).toMatch(/Stopped after 6 of \d+ steps; run the demo again to complete it/);
      // A crash while the second sprint's issues get their custom values: one issue is left half-done.
      let calls = 0;
      const crashing = (api: DemoBackend): DemoBackend => ({
        ...api,
        setValue: async (...args) => {
          if (++calls === 30) throw new Error('the process died');
          return api.setValue(...args);
        },
      });
      await expect(demoOn(resumed, { issueCount: 24, wrap: crashing })).rejects.toThrow('the process died');

      const completed = await demoOn(resumed, { issueCount: 24 });
      expect(completed.text).toMatch(/account\s+nothing to add/);
      expect(completed.text).toMatch(/added \d+ issues?, [1-9]\d* custom values?/);
      expect(addedNothing(completed.result)).toBe(false);
      expect(await counts(resumed.db)).toEqual(await counts(straight.db));

      const again = await demoOn(resumed, { issueCount: 24 });
      expect(addedNothing(again.result)).toBe(true);

      // A demo made before labels, sub-issues and relations existed: the next run adds them to the issues it has.
      const snapshot = (db: Db) =>
        sql<{ name: string; labels: string; parent: string | null; relations: number }>`
          SELECT i.name, (SELECT string_agg(l.name, ',' ORDER BY l.name) FROM labels l WHERE l.id = ANY (i.label_ids)) AS labels,
                 p.name AS parent, (SELECT count(*)::int FROM issue_relations r WHERE i.id IN (r.issue_id, r.related_issue_id)) AS relations
          FROM issues i JOIN workspaces w ON w.id = i.workspace_id AND w.slug = 'demo' LEFT JOIN issues p ON p.id = i.parent_id
          ORDER BY i.project_id, i.sequence_id`
          .execute(db)
          .then((r) => r.rows);
      const whole = await snapshot(straight.db);
      await sql`DELETE FROM issue_relations`.execute(straight.db);
      await sql`UPDATE issues SET label_ids = '{}', parent_id = NULL`.execute(straight.db);
      const upgraded = await demoOn(straight, { issueCount: 24 });
      expect(upgraded.text).toMatch(/issues, first sprint\s+added 0 issues, 0 custom values, 0 comments, labels on [1-9]\d* issues/);
      // Each tree issue has a parent or labels (or both).
      expect(upgraded.text).toMatch(/sub-issues\s+added parents or labels set on 20 issues/);
      expect(upgraded.text).toMatch(/relations\s+added .*blocked by/);
      expect(await snapshot(straight.db)).toEqual(whole);
      expect(addedNothing((await demoOn(straight, { issueCount: 24 })).result)).toBe(true);
    } finally {
      await straight.close();
      await resumed.close();
    }
  }, 120_000);
});
