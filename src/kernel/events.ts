/**
 * Domain events of the work-item core. Publishers call `publish` inside the transaction of the change, and every
 * subscriber runs in that same transaction: a subscriber that throws rolls the whole change back, so derived data
 * (SLA trackers, ...) can never disagree with the issue it belongs to.
 */
import type { Priority, StateGroup } from './work-items.js';

export type { Priority, StateGroup };

export interface IssueSnapshot {
  id: string;
  workspaceId: string;
  projectId: string;
  priority: Priority;
  stateId: string;
  stateGroup: StateGroup;
  createdBy: string;
  createdAt: Date;
}

/** An issue's dates and estimates as stored (contract 18.1); `remaining_minutes` null: it follows the estimate. */
export interface IssuePlanning {
  start_date: string | null;
  target_date: string | null;
  estimate_minutes: number | null;
  remaining_minutes: number | null;
}

/** What notifications compare across a change (contract 26.2): who is assigned, what is mentioned, what moved. */
export interface IssueFacts {
  id: string;
  projectId: string;
  stateId: string;
  stateGroup: StateGroup;
  priority: Priority;
  assigneeIds: string[];
  description: string;
  targetDate: string | null;
}

export type DomainEvent =
  /** `assigneeIds` and `description` (notifications): the new issue's assignees and text. */
  | { type: 'issue.created'; at: Date; issue: IssueSnapshot; assigneeIds?: string[]; description?: string }
  /**
   * Issues of one workspace whose priority or state changed, in one change (a PATCH is one issue, a bulk edit up to
   * 500): subscribers handle the set in a fixed number of statements. `actorId`: who made the change (issue
   * history); absent for changes made by the system.
   */
  | { type: 'issues.updated'; at: Date; workspaceId: string; changes: { before: IssueSnapshot; after: IssueSnapshot }[]; actorId?: string }
  | { type: 'issue.deleted'; at: Date; issue: IssueSnapshot }
  /**
   * Issues of one workspace changed by one PATCH or bulk edit whose assignees, description, state, priority or
   * target date changed, all in one event (notifications handle the set in a fixed number of statements). `states`
   * names every state of `before`/`after` when a state changed (else empty).
   */
  | {
      type: 'issues.changed';
      at: Date;
      workspaceId: string;
      actorId: string;
      changes: { before: IssueFacts; after: IssueFacts }[];
      states: Record<string, { name: string; group: StateGroup }>;
    }
  /** An update changed the issue's dates or estimates (history kinds `dates` and `estimate`). */
  | { type: 'issue.planning_changed'; at: Date; workspaceId: string; issueId: string; before: IssuePlanning; after: IssuePlanning; actorId?: string }
  /** `body` (notifications: mentions, the excerpt). */
  | { type: 'comment.created'; at: Date; issue: IssueSnapshot; authorId: string; commentId: string; body?: string }
  | {
      type: 'project.sla_policy_changed';
      at: Date;
      workspaceId: string;
      projectId: string;
      policyId: string | null;
      /** The project's policy before the change (issue history); absent for a new project. */
      previousPolicyId?: string | null;
      actorId?: string;
    }
  /** A state's `pauses_sla` changed: the SLA clocks of the issues in it pause or resume now. */
  | {
      type: 'state.pauses_changed';
      at: Date;
      workspaceId: string;
      stateId: string;
      group: StateGroup;
      pausesSla: boolean;
      actorId?: string;
    };

export type EventType = DomainEvent['type'];
export type EventOf<T extends EventType> = Extract<DomainEvent, { type: T }>;
export type EventHandler<Tx, T extends EventType> = (tx: Tx, event: EventOf<T>) => Promise<void>;

export interface EventBus<Tx> {
  subscribe<T extends EventType>(type: T, handler: EventHandler<Tx, T>): void;
  publish(tx: Tx, event: DomainEvent): Promise<void>;
}

export function createEventBus<Tx>(): EventBus<Tx> {
  const handlers = new Map<EventType, EventHandler<Tx, never>[]>();
  return {
    subscribe(type, handler) {
      const list = handlers.get(type) ?? [];
      list.push(handler as unknown as EventHandler<Tx, never>);
      handlers.set(type, list);
    },
    async publish(tx, event) {
      for (const handler of handlers.get(event.type) ?? []) {
        await (handler as unknown as (tx: Tx, e: DomainEvent) => Promise<void>)(tx, event);
      }
    },
  };
}
