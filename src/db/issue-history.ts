import type { Executor } from './database.js';
import type { HistoryKind } from './tables/sla.js';

/** One entry of an issue's history (contract 11.3); `from`/`to` are any JSON, null included. */
export interface IssueHistoryEntry {
  id: string;
  workspace_id: string;
  issue_id: string;
  at: Date;
  actor_id: string | null;
  kind: HistoryKind;
  from: unknown;
  to: unknown;
}

/**
 * Appends entries to the issue history in one statement, in the transaction of the change. Every module that writes a
 * kind of its own (SLA: state, priority, comment; planning: dates, estimate; the work-item core: labels, parent)
 * writes through here.
 */
export async function appendIssueHistory(tx: Executor, entries: IssueHistoryEntry[]): Promise<void> {
  if (!entries.length) return;
  await tx
    .insertInto('issue_history')
    .values(entries.map((e) => ({ ...e, from: e.from === null ? null : JSON.stringify(e.from), to: e.to === null ? null : JSON.stringify(e.to) })))
    .execute();
}
