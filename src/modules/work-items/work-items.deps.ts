import type { Static } from 'typebox';
import type { Db, Executor, Tx } from '../../db/database.js';
import type { Clock } from '../../kernel/clock.js';
import type { EventBus } from '../../kernel/events.js';
import type { Outbox } from '../../kernel/outbox.js';
import type { PlanGate } from '../../kernel/plan-gate.js';
import type { IdentityService } from '../identity/index.js';
import type { IssueCondition, IssueSortKey, WorkItemsRepository } from './work-items.repository.js';
import type { Attachment } from './work-items.schemas.js';

// What the parts of the work-item core share, in a file of its own so that no part imports the file that composes
// them (work-items.service.ts): imports never run in a circle.

/**
 * Sorts of the issue list another module owns (custom properties: `custom.<id>`): a sort key, or null if not its key.
 * `projectId` is the project of the list, or null for the workspace-wide list (contract 23.2).
 */
export type IssueSortProvider = (ctx: {
  tx: Executor;
  workspaceId: string;
  projectId: string | null;
  key: string;
  /** The list's whole query (a sort may depend on a filter: `relevance` on `q`). */
  query: Record<string, unknown>;
}) => Promise<IssueSortKey | null>;

/**
 * Lets another module narrow the issue list by query parameters it owns (custom properties: `custom.<id>`).
 * `projectId` is the project of the list, or null for the workspace-wide list (contract 23.2).
 */
export type IssueFilterProvider = (ctx: {
  tx: Executor;
  workspaceId: string;
  projectId: string | null;
  query: Record<string, unknown>;
}) => Promise<IssueCondition[]>;

/** A file on an issue or one of its comments as the API shows it (contract 25.1); the attachments module makes these. */
export type AttachmentView = Static<typeof Attachment>;

/**
 * The attachments of these comments (of one workspace), from the module that owns them (attachments): one call per
 * list of comments, never one per comment. A comment without any may be absent from the map.
 */
export type CommentAttachmentsProvider = (tx: Executor, workspaceId: string, commentIds: string[]) => Promise<Map<string, AttachmentView[]>>;

/**
 * Which of these issues (of one workspace) the user watches, from the module that owns watchers (notifications): one
 * call per page or answer, never one per issue. An issue absent from the set is not watched.
 */
export type IssueWatchingProvider = (tx: Executor, workspaceId: string, userId: string, issueIds: string[]) => Promise<Set<string>>;

export interface WorkItemsDeps {
  db: Db;
  repo: WorkItemsRepository;
  clock: Clock;
  events: EventBus<Tx>;
  planGate: PlanGate<Tx>;
  identity: Pick<IdentityService, 'access' | 'assertMembers'>;
  /** Events that leave the service (webhooks), recorded in the transaction of the change. */
  outbox: Outbox<Tx>;
}
