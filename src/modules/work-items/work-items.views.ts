import type { IssueSnapshot } from '../../kernel/events.js';
import { iso, isoOrNull } from '../../kernel/time.js';
import type { WorkItemsRepository } from './work-items.repository.js';

/** Rows of the work-item tables as the API shows them (and as events and webhooks carry them). */

type ProjectRow = Awaited<ReturnType<WorkItemsRepository['insertProject']>> & {};
type StateRow = Awaited<ReturnType<WorkItemsRepository['listStates']>>[number];
type IssueRow = Awaited<ReturnType<WorkItemsRepository['insertIssue']>>;
type CommentRow = Awaited<ReturnType<WorkItemsRepository['insertComment']>>;

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
});

/**
 * What `remaining_minutes` reads (contract 18.2, Jira's "leave remaining estimate"): the user's own figure when set,
 * which logging never changes; else the original estimate minus the time spent, never below 0; null without either.
 */
export const remainingMinutes = (i: { estimate_minutes: number | null; remaining_minutes: number | null; time_spent_minutes: number }): number | null =>
  i.remaining_minutes ?? (i.estimate_minutes === null ? null : Math.max(0, i.estimate_minutes - i.time_spent_minutes));

export const commentView = (c: CommentRow) => ({
  id: c.id,
  issue_id: c.issue_id,
  author_id: c.author_id,
  body: c.body,
  created_at: iso(c.created_at),
  updated_at: iso(c.updated_at),
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
