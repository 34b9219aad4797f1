import type { IssueSnapshot } from '../../kernel/events.js';
import { iso, isoOrNull } from '../../kernel/time.js';
import type { AttachmentView } from './work-items.deps.js';
import type { WorkItemsRepository } from './work-items.repository.js';

/** Rows of the work-item tables as the API shows them (and as events and webhooks carry them). */

type ProjectRow = Awaited<ReturnType<WorkItemsRepository['insertProject']>> & {};
type StateRow = Awaited<ReturnType<WorkItemsRepository['listStates']>>[number];
type IssueRow = Awaited<ReturnType<WorkItemsRepository['insertIssue']>>;
type IssueCardRow = Awaited<ReturnType<WorkItemsRepository['issueCards']>>[number];
type CommentRow = Awaited<ReturnType<WorkItemsRepository['insertComment']>>;
type LabelRow = Awaited<ReturnType<WorkItemsRepository['listLabels']>>[number];
type RelationRow = Awaited<ReturnType<WorkItemsRepository['listRelations']>>[number];

export const projectView = (p: ProjectRow) => ({
  id: p.id,
  workspace_id: p.workspace_id,
  name: p.name,
  identifier: p.identifier,
  description: p.description,
  sla_policy_id: p.sla_policy_id,
  created_by: p.created_by,
  created_at: iso(p.created_at),
  updated_at: iso(p.updated_at),
});

export const stateView = (s: StateRow) => ({
  id: s.id,
  project_id: s.project_id,
  name: s.name,
  group: s.group,
  color: s.color,
  sequence: s.sequence,
  is_default: s.is_default,
  pauses_sla: s.pauses_sla,
  created_at: iso(s.created_at),
  updated_at: iso(s.updated_at),
});

export const issueView = (i: IssueRow) => ({
  id: i.id,
  workspace_id: i.workspace_id,
  project_id: i.project_id,
  sequence_id: i.sequence_id,
  name: i.name,
  description: i.description,
  state_id: i.state_id,
  state_group: i.state_group,
  priority: i.priority,
  assignee_ids: i.assignee_ids,
  created_by: i.created_by,
  created_at: iso(i.created_at),
  updated_at: iso(i.updated_at),
  completed_at: isoOrNull(i.completed_at),
  start_date: i.start_date,
  target_date: i.target_date,
  estimate_minutes: i.estimate_minutes,
  remaining_minutes: remainingMinutes(i),
  time_spent_minutes: i.time_spent_minutes,
  label_ids: i.label_ids,
  parent_id: i.parent_id,
  sub_issues: { total: i.sub_issues[0], completed: i.sub_issues[1] },
  blocked: i.blocked,
  attachment_count: i.attachment_count,
});

export const labelView = (l: LabelRow) => ({
  id: l.id,
  project_id: l.project_id,
  name: l.name,
  color: l.color,
  description: l.description,
  created_at: iso(l.created_at),
  updated_at: iso(l.updated_at),
});

/** The inverse of each relation type: how the other side reads a stored relation. */
export const INVERSE_RELATION = {
  blocks: 'blocked_by',
  blocked_by: 'blocks',
  duplicate_of: 'duplicates',
  duplicates: 'duplicate_of',
  relates_to: 'relates_to',
} as const;
export type RelationType = keyof typeof INVERSE_RELATION;

/** A relation as seen from one of its issues: the type from that side, and the other issue (contract 24.3). */
export const relationView = (r: RelationRow) => ({
  id: r.id,
  type: (r.outgoing ? r.type : INVERSE_RELATION[r.type]) as RelationType,
  issue: {
    id: r.other_id,
    key: `${r.identifier}-${r.other_sequence_id}`,
    name: r.other_name,
    sequence_id: r.other_sequence_id,
    project_id: r.other_project_id,
    state: { id: r.state_id, name: r.state_name, group: r.state_group },
  },
  created_at: iso(r.created_at),
});

/**
 * What `remaining_minutes` reads (contract 18.2, Jira's "leave remaining estimate"): the user's own figure when set,
 * which logging never changes; else the original estimate minus the time spent, never below 0; null without either.
 */
export const remainingMinutes = (i: { estimate_minutes: number | null; remaining_minutes: number | null; time_spent_minutes: number }): number | null =>
  i.remaining_minutes ?? (i.estimate_minutes === null ? null : Math.max(0, i.estimate_minutes - i.time_spent_minutes));

/** A comment with its attachments (the attachments module's records, read by the registered provider). */
export const commentView = (c: CommentRow, attachments: AttachmentView[]) => ({
  id: c.id,
  issue_id: c.issue_id,
  author_id: c.author_id,
  body: c.body,
  created_at: iso(c.created_at),
  updated_at: iso(c.updated_at),
  edited_at: isoOrNull(c.edited_at),
  attachments,
});

export const issueSnapshot = (i: IssueRow): IssueSnapshot => ({
  id: i.id,
  workspaceId: i.workspace_id,
  projectId: i.project_id,
  priority: i.priority,
  stateId: i.state_id,
  stateGroup: i.state_group,
  createdBy: i.created_by,
  createdAt: i.created_at,
});

/** An issue as a search result or a similar issue shows it (contract 23.1): the record, its key and its state by name. */
export const issueCardView = (i: IssueCardRow) => ({
  ...issueView(i),
  key: `${i.identifier}-${i.sequence_id}`,
  state: { id: i.state_id, name: i.state_name, group: i.state_group },
});
