import { type Insertable, sql, type Updateable } from 'kysely';
import type { Executor } from '../../db/database.js';
import { appendIssueHistory } from '../../db/issue-history.js';
import { derivedColumns } from '../../db/issue-derived.js';
import type { Database } from '../../db/schema.js';

export type TimeTrackingRepository = ReturnType<typeof timeTrackingRepository>;

const worklogColumns = ['id', 'issue_id', 'project_id', 'user_id', 'started_at', 'duration_minutes', 'note', 'created_at', 'updated_at'] as const;

export type TimesheetGroup = 'user' | 'project' | 'issue';

/** One cell of the timesheet: the minutes of a key (user, project or issue) on one local day. */
export interface TimesheetCell {
  key: string;
  day: string;
  minutes: number;
}

export function timeTrackingRepository() {
  return {
    workspaceTimeZone(tx: Executor, workspaceId: string) {
      return tx
        .selectFrom('workspaces')
        .select('time_zone')
        .where('id', '=', workspaceId)
        .executeTakeFirstOrThrow()
        .then((r) => r.time_zone);
    },

    insertWorklog(tx: Executor, w: Insertable<Database['worklogs']>) {
      return tx.insertInto('worklogs').values(w).returning(worklogColumns).executeTakeFirstOrThrow();
    },

    findWorklog(tx: Executor, workspaceId: string, issueId: string, worklogId: string, lock = false) {
      let q = tx
        .selectFrom('worklogs')
        .select(worklogColumns)
        .where('workspace_id', '=', workspaceId)
        .where('issue_id', '=', issueId)
        .where('id', '=', worklogId);
      if (lock) q = q.forUpdate();
      return q.executeTakeFirst();
    },

    updateWorklog(
      tx: Executor,
      workspaceId: string,
      worklogId: string,
      patch: Pick<Updateable<Database['worklogs']>, 'started_at' | 'duration_minutes' | 'note' | 'updated_at'>,
    ) {
      return tx
        .updateTable('worklogs')
        .set(patch)
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', worklogId)
        .returning(worklogColumns)
        .executeTakeFirstOrThrow();
    },

    deleteWorklog(tx: Executor, workspaceId: string, worklogId: string) {
      return tx.deleteFrom('worklogs').where('workspace_id', '=', workspaceId).where('id', '=', worklogId).execute();
    },

    /** An issue's worklogs, newest `started_at` first (index worklogs_issue_idx). */
    async listWorklogs(tx: Executor, workspaceId: string, issueId: string, page: { offset: number; per_page: number }) {
      const q = tx.selectFrom('worklogs').where('workspace_id', '=', workspaceId).where('issue_id', '=', issueId);
      const [rows, count] = await Promise.all([
        q.select(worklogColumns).orderBy('started_at', 'desc').orderBy('id', 'desc').offset(page.offset).limit(page.per_page).execute(),
        q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: count.n };
    },

    /**
     * Adds `minutes` (negative: removes) to the issue's stored time spent, in the transaction of the worklog write,
     * and answers the issue as it now is. The row lock this takes also orders concurrent writes on one issue.
     */
    addTimeSpent(tx: Executor, workspaceId: string, issueId: string, minutes: number) {
      return tx
        .updateTable('issues')
        .set((eb) => ({ time_spent_minutes: eb('time_spent_minutes', '+', minutes) }))
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', issueId)
        .returningAll()
        .returning(derivedColumns('issues'))
        .executeTakeFirstOrThrow();
    },

    findTimer(tx: Executor, workspaceId: string, userId: string, lock = false) {
      let q = tx.selectFrom('timers').select(['issue_id', 'started_at']).where('workspace_id', '=', workspaceId).where('user_id', '=', userId);
      if (lock) q = q.forUpdate();
      return q.executeTakeFirst();
    },

    /** Takes the running timer away (stop), or nothing when none runs. */
    takeTimer(tx: Executor, workspaceId: string, userId: string) {
      return tx
        .deleteFrom('timers')
        .where('workspace_id', '=', workspaceId)
        .where('user_id', '=', userId)
        .returning(['issue_id', 'started_at'])
        .executeTakeFirst();
    },

    /**
     * Starts the member's timer. The caller stopped any running one first in its transaction; should two starts of one
     * member still cross, the later start wins rather than failing on the key (the lost run is a moment long).
     */
    insertTimer(tx: Executor, t: Insertable<Database['timers']>) {
      return tx
        .insertInto('timers')
        .values(t)
        .onConflict((oc) => oc.columns(['workspace_id', 'user_id']).doUpdateSet({ issue_id: t.issue_id, started_at: t.started_at }))
        .returning(['issue_id', 'started_at'])
        .executeTakeFirstOrThrow();
    },

    /**
     * The timesheet's cells: one range scan of worklogs_timesheet_idx (index only) over [first day start, day after
     * the last), each worklog counted on the local day whose start is the last of `dayStarts` not after its
     * `started_at` (`width_bucket`, a binary search of the thresholds: no time-zone conversion per row). `days[i]` is
     * the date of the day starting at `dayStarts[i]`.
     */
    async timesheetCells(
      tx: Executor,
      q: { workspaceId: string; days: string[]; dayStarts: Date[]; groupBy: TimesheetGroup; userId?: string; projectId?: string },
    ): Promise<TimesheetCell[]> {
      const key = sql.ref(q.groupBy === 'user' ? 'w.user_id' : q.groupBy === 'project' ? 'w.project_id' : 'w.issue_id');
      const starts = q.dayStarts.map((d) => d.toISOString());
      const result = await sql<{ key: string; day: number; minutes: number }>`
        SELECT ${key}::text AS key, width_bucket(w.started_at, ${starts}::timestamptz[])::int AS day,
               sum(w.duration_minutes)::int AS minutes
        FROM worklogs w
        WHERE w.workspace_id = ${q.workspaceId} AND w.started_at >= ${q.dayStarts[0]!} AND w.started_at < ${q.dayStarts[q.dayStarts.length - 1]!}
          ${q.userId !== undefined ? sql`AND w.user_id = ${q.userId}` : sql``}
          ${q.projectId !== undefined ? sql`AND w.project_id = ${q.projectId}` : sql``}
        GROUP BY 1, 2`.execute(tx);
      return result.rows.map((r) => ({ key: r.key, day: q.days[r.day - 1]!, minutes: r.minutes }));
    },

    /** Names of the users among `ids` who logged time in this workspace between `from` and `to` (the timesheet's range). */
    userLabels(tx: Executor, workspaceId: string, ids: string[], range: { from: Date; to: Date }) {
      if (!ids.length) return Promise.resolve([]);
      // Users are not tenant rows; the ids come from this workspace's worklogs of the range (a bounded index range).
      return tx
        .selectFrom('users')
        .select(['id', 'display_name as label'])
        .where(sql<boolean>`id = any(${ids}::uuid[])`)
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('worklogs as w')
              .select('w.id')
              .where('w.workspace_id', '=', workspaceId)
              .where('w.started_at', '>=', range.from)
              .where('w.started_at', '<', range.to)
              .whereRef('w.user_id', '=', 'users.id'),
          ),
        )
        .execute();
    },

    projectLabels(tx: Executor, workspaceId: string, ids: string[]) {
      if (!ids.length) return Promise.resolve([]);
      return tx
        .selectFrom('projects')
        .select(['id', 'name as label'])
        .where('workspace_id', '=', workspaceId)
        .where(sql<boolean>`id = any(${ids}::uuid[])`)
        .execute();
    },

    issueLabels(tx: Executor, workspaceId: string, ids: string[]) {
      if (!ids.length) return Promise.resolve([]);
      return tx
        .selectFrom('issues as i')
        .innerJoin('projects as p', (j) => j.onRef('p.id', '=', 'i.project_id').onRef('p.workspace_id', '=', 'i.workspace_id'))
        .select(['i.id', sql<string>`p.identifier || '-' || i.sequence_id || ' ' || i.name`.as('label')])
        .where('i.workspace_id', '=', workspaceId)
        .where(sql<boolean>`i.id = any(${ids}::uuid[])`)
        .execute();
    },

    /** History entries of the planning kinds (contract 18.1), written in the transaction of the change. */
    appendHistory: appendIssueHistory,
  };
}
