import { type Expression, type SqlBool, sql } from 'kysely';
import type { Executor } from '../../db/database.js';

/** The nil UUID of the kept counts (migration 1090): "not by assignee" and "no assignee". */
export const NO_ASSIGNEE = '00000000-0000-0000-0000-000000000000';

/** Advisory-lock namespace of the issue-count fold. */
const ISSUE_COUNTS_LOCK = 0x243;

/**
 * A filter of the issue list that the kept counts answer (migration 1090): any of these dimensions, each a set of
 * values (ORed), together ANDed. `assignees`: the issues assigned to one member (`ids` of at most one) and/or those
 * without assignees (`none`); undefined: whatever their assignees.
 */
export interface KeptCountFilter {
  projectIds?: string[];
  stateIds?: string[];
  stateGroups?: string[];
  priorities?: string[];
  createdBy?: string[];
  assignees?: { ids: string[]; none: boolean };
}

/** The kind of rows a kept-count filter sums: those of its assignees, or one per issue. */
function kindOf(f: KeptCountFilter): Expression<SqlBool> {
  return f.assignees
    ? sql<SqlBool>`(by_assignee AND assignee_id = ANY(${[...f.assignees.ids, ...(f.assignees.none ? [NO_ASSIGNEE] : [])]}::uuid[]))`
    : sql<SqlBool>`(NOT by_assignee AND assignee_id = ${NO_ASSIGNEE}::uuid)`;
}

/** The other conditions of a kept-count filter, on the columns both tables share. */
function dimensionsOf(f: KeptCountFilter): Expression<SqlBool> {
  const parts = [sql`true`];
  if (f.projectIds) parts.push(sql`project_id = ANY(${f.projectIds}::uuid[])`);
  if (f.stateIds) parts.push(sql`state_id = ANY(${f.stateIds}::uuid[])`);
  if (f.stateGroups) parts.push(sql`state_group = ANY(${f.stateGroups}::text[])`);
  if (f.priorities) parts.push(sql`priority = ANY(${f.priorities}::text[])`);
  if (f.createdBy) parts.push(sql`created_by = ANY(${f.createdBy}::uuid[])`);
  return sql<SqlBool>`(${sql.join(parts, sql` AND `)})`;
}

/**
 * How many issues of the workspace match a kept-count filter (`n`): the sum of the folded counts and of the changes not
 * yet folded, in one snapshot, so exact whatever the `issues.counts` job's lag; a few hundred rows at most. With
 * `assigned`, also how many issues the filter's assignees hold in the whole workspace (`assigned`: what the assignee
 * index yields before the other conditions); otherwise `assigned` is `n`.
 */
export function keptIssueCount(tx: Executor, workspaceId: string, filter: KeptCountFilter, assigned = false) {
  const kind = kindOf(filter);
  const dimensions = dimensionsOf(filter);
  const rows = (table: 'issue_counts' | 'issue_count_changes') => {
    const q = tx
      .selectFrom(table)
      .select(['n', sql<boolean>`${dimensions}`.as('hit')])
      .where('workspace_id', '=', workspaceId)
      .where(kind);
    return assigned ? q : q.where(dimensions);
  };
  return tx
    .selectFrom(rows('issue_counts').unionAll(rows('issue_count_changes')).as('c'))
    .select([sql<number>`coalesce(sum(c.n) FILTER (WHERE c.hit), 0)::bigint`.as('n'), sql<number>`coalesce(sum(c.n), 0)::bigint`.as('assigned')])
    .executeTakeFirstOrThrow();
}

/** The fold of the issue counts the database keeps (migration 1090), spread into the work-items repository. */
export function issueCountQueries() {
  return {
    /**
     * Moves up to `limit` rows of changes into the counts (one row per combination), then drops the combinations they
     * brought to zero. One fold at a time (a try-lock); writers only append changes, so the fold is the only writer of
     * `issue_counts` and nobody waits on a counter row. Answers how many changes it moved.
     */
    async foldIssueCounts(tx: Executor, limit: number) {
      const lock = await sql<{ ok: boolean }>`SELECT pg_try_advisory_xact_lock(${ISSUE_COUNTS_LOCK}::int4, 0) AS ok`.execute(tx);
      if (!lock.rows[0]?.ok) return 0;
      const { rows } = await sql<{ moved: number; zero: { w: string; b: boolean; a: string; p: string; s: string; g: string; r: string; c: string }[] | null }>`
        WITH moved AS (
          DELETE FROM issue_count_changes
          WHERE ctid = ANY(ARRAY(SELECT ctid FROM issue_count_changes LIMIT ${limit}))
          RETURNING workspace_id, by_assignee, assignee_id, project_id, state_id, state_group, priority, created_by, n
        ), summed AS (
          SELECT workspace_id, by_assignee, assignee_id, project_id, state_id, state_group, priority, created_by, sum(n) AS n, count(*) AS k
          FROM moved GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
        ), upserted AS (
          INSERT INTO issue_counts (workspace_id, by_assignee, assignee_id, project_id, state_id, state_group, priority, created_by, n)
          SELECT workspace_id, by_assignee, assignee_id, project_id, state_id, state_group, priority, created_by, n FROM summed
          ON CONFLICT (workspace_id, by_assignee, assignee_id, project_id, state_id, state_group, priority, created_by)
            DO UPDATE SET n = issue_counts.n + excluded.n
          RETURNING workspace_id, by_assignee, assignee_id, project_id, state_id, state_group, priority, created_by, n
        )
        SELECT (SELECT coalesce(sum(k), 0)::int FROM summed) AS moved,
               (SELECT json_agg(json_build_object('w', workspace_id, 'b', by_assignee, 'a', assignee_id, 'p', project_id,
                                                  's', state_id, 'g', state_group, 'r', priority, 'c', created_by))
                FROM upserted WHERE n = 0) AS zero`.execute(tx);
      const zero = rows[0]?.zero ?? [];
      if (zero.length) {
        // A combination left empty (its issues moved or deleted, a project or workspace gone): dropped. A change
        // appended meanwhile is in issue_count_changes, so the drop loses nothing.
        await sql`
          DELETE FROM issue_counts c
          USING json_to_recordset(${JSON.stringify(zero)}::json)
            AS z(w uuid, b boolean, a uuid, p uuid, s uuid, g text, r text, c uuid)
          WHERE (c.workspace_id, c.by_assignee, c.assignee_id, c.project_id, c.state_id, c.state_group, c.priority, c.created_by)
              = (z.w, z.b, z.a, z.p, z.s, z.g, z.r, z.c)
            AND c.n = 0`.execute(tx);
      }
      return rows[0]?.moved ?? 0;
    },
  };
}
