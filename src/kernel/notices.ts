/**
 * Ports of "being told" (contract 26): how one module tells a person something without importing the module that
 * does it. The notifications module implements `Notifier` (the inbox); the mail module implements `MailQueue` (the
 * mail outbox) and listens to new notifications through `NotificationListener`. Every call runs inside the
 * transaction of the change, so a rolled-back change tells no one.
 */

export const NOTIFICATION_KINDS = [
  'assigned',
  'mentioned',
  'commented',
  'state_changed',
  'priority_changed',
  'due_date_changed',
  'sla_at_risk',
  'sla_breached',
  'invited',
] as const;

export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** A notification to write: one recipient, one change. */
export interface NotificationInput {
  workspaceId: string;
  userId: string;
  /** Null for notifications about no issue (`invited`). */
  issueId: string | null;
  kind: NotificationKind;
  /** Null for the system (SLA). */
  actorId: string | null;
  /** What changed, as the inbox shows it (JSON only). */
  data: Record<string, unknown>;
}

/** A notification as written, handed to the listeners (the mail module) in the same transaction. */
export interface NotificationCreated extends NotificationInput {
  id: string;
  createdAt: Date;
}

export interface Notifier<Tx> {
  /** Writes the notifications in `tx` (the actor is never told; non-members are dropped); answers those written. */
  notify(tx: Tx, notifications: NotificationInput[]): Promise<NotificationCreated[]>;
}

export type NotificationListener<Tx> = (tx: Tx, notifications: NotificationCreated[]) => Promise<void>;

/** One e-mail to queue in the mail outbox; it is sent after the transaction commits, with retries. */
export interface MailInput {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** What the mail is for (`invitation`, `password_reset`, `notification`, `digest`, `test`): shown to the admin. */
  category: string;
  /** The recipient's account, when there is one. */
  userId?: string | null;
  workspaceId?: string | null;
  /** Extra headers (`List-Unsubscribe`, ...). */
  headers?: Record<string, string>;
}

export interface MailQueue<Tx> {
  /** Queues the mail in `tx`; answers its id. */
  enqueue(tx: Tx, mail: MailInput): Promise<string>;
}

export const noNotifier: Notifier<unknown> = { notify: async () => [] };
export const noMailQueue: MailQueue<unknown> = { enqueue: async () => '' };
