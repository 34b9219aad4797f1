import { sql } from 'kysely';

/**
 * What an issue reads that is counted from other rows at read time (contract 24.2, 24.3, 25.1), so it is exact in
 * every snapshot with nothing to keep in step: `[total, completed]` of its direct children (an index-only probe of
 * issues_parent_idx), whether an open issue blocks it (a probe of issue_relations_related_idx) and how many files are
 * attached to it or to its comments (a probe of attachments_issue_idx). `t` is the name the statement gives the
 * issues table.
 */
export const derivedColumns = (t: 'i' | 'issues') => {
  const id = sql.ref(`${t}.id`);
  const ws = sql.ref(`${t}.workspace_id`);
  return [
    sql<[number, number]>`(SELECT ARRAY[count(*), count(*) FILTER (WHERE c.state_group = 'completed')]::int[]
      FROM issues c WHERE c.workspace_id = ${ws} AND c.parent_id = ${id})`.as('sub_issues'),
    sql<boolean>`EXISTS (SELECT 1 FROM issue_relations r JOIN issues b ON b.workspace_id = r.workspace_id AND b.id = r.issue_id
      WHERE r.workspace_id = ${ws} AND r.related_issue_id = ${id} AND r.type = 'blocks' AND b.state_group NOT IN ('completed', 'cancelled'))`.as('blocked'),
    sql<number>`(SELECT count(*)::int FROM attachments a WHERE a.workspace_id = ${ws} AND a.issue_id = ${id})`.as('attachment_count'),
  ];
};
