import fc from 'fast-check';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/test-app.js';
import { coreFixture } from './support.js';

/**
 * The label totals the database keeps (migration 1080: appended +1/-1 rows, folded by the labels.counts job) always
 * equal a full count of the issues carrying the label, through any sequence of writes and folds; and a label deleted
 * under concurrent writers is never left on an issue.
 */
const ctx = useTestApp();

type Op =
  | { kind: 'create'; labels: number[] }
  | { kind: 'patch'; pick: number; labels: number[] }
  | { kind: 'bulk'; picks: number[]; add: number[]; remove: number[] }
  | { kind: 'delete'; pick: number }
  | { kind: 'delete-label'; label: number }
  | { kind: 'fold' };

const LABELS = 4;
const labelSet = fc.uniqueArray(fc.integer({ min: 0, max: LABELS - 1 }), { maxLength: 3 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('create' as const), labels: labelSet }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('patch' as const), pick: fc.nat(), labels: labelSet }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('bulk' as const),
      picks: fc.uniqueArray(fc.nat(20), { minLength: 1, maxLength: 4 }),
      add: labelSet,
      remove: labelSet,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete-label' as const), label: fc.integer({ min: 0, max: LABELS - 1 }) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'fold' as const }) },
);

describe('kept label counts', () => {
  it('equal a full count after any sequence of creates, edits, bulk edits, deletes, label deletes and folds', async () => {
    const { api, app, database } = ctx();
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 14 }), async (ops) => {
        const f = await coreFixture(api);
        const labels: (string | null)[] = [];
        for (let i = 0; i < LABELS; i++) labels.push((await f.label(`l${i}`)).id);
        const issues: string[] = [];
        const ids = (picks: number[]) => picks.map((n) => labels[n]).filter((id): id is string => id !== null);
        for (const op of ops) {
          if (op.kind === 'create') issues.push((await f.issue({ label_ids: ids(op.labels) })).id);
          else if (op.kind === 'patch' && issues.length) {
            expect((await api.patch(f.issueUrl(issues[op.pick % issues.length]!), { label_ids: ids(op.labels) }, f.t)).status).toBe(200);
          } else if (op.kind === 'bulk' && issues.length) {
            const picked = [...new Set(op.picks.map((p) => issues[p % issues.length]!))];
            const set = { add_label_ids: ids(op.add), remove_label_ids: ids(op.remove) };
            expect((await api.post(`${f.base}/issues/bulk/`, { issue_ids: picked, set }, f.t)).status).toBe(200);
          } else if (op.kind === 'delete' && issues.length) {
            const [gone] = issues.splice(op.pick % issues.length, 1);
            expect((await api.delete(f.issueUrl(gone!), f.t)).status).toBe(204);
          } else if (op.kind === 'delete-label' && labels[op.label]) {
            expect((await api.delete(`${f.base}/labels/${labels[op.label]}/`, f.t)).status).toBe(204);
            labels[op.label] = null;
          } else if (op.kind === 'fold') {
            await app.services.workItems.runLabelCounts();
          }
          for (const label of labels) {
            if (!label) continue;
            const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM issues WHERE label_ids @> ARRAY[${label}::uuid]`.execute(database.db);
            const listed = await api.get(`${f.base}/issues/?label_id=${label}&per_page=1`, f.t);
            expect(listed.body.total).toBe(rows[0]!.n);
          }
        }
      }),
      { numRuns: 8 },
    );
  }, 120_000);

  it('never leaves a deleted label on an issue labelled concurrently', async () => {
    const { api, database } = ctx();
    const f = await coreFixture(api);
    const issues = await Promise.all(Array.from({ length: 6 }, () => f.issue()));
    for (let round = 0; round < 4; round++) {
      const label = await f.label(`race-${round}`);
      const writes = issues.map((issue) => api.patch(f.issueUrl(issue.id), { label_ids: [label.id] }, f.t));
      const deleted = api.delete(`${f.base}/labels/${label.id}/`, f.t);
      const statuses = await Promise.all([...writes, deleted].map(async (r) => (await r).status));
      // Each write either went first (and the delete took the label off again) or saw the label gone (400).
      expect(statuses.every((s) => s === 200 || s === 400 || s === 204)).toBe(true);
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM issues WHERE label_ids @> ARRAY[${label.id}::uuid]`.execute(database.db);
      expect(rows[0]!.n).toBe(0);
    }
  });
});
