/**
 * The transactional outbox: a change records the events it causes in its own transaction, so a committed change
 * always has its events and a rolled-back one never does. Delivery (webhooks) happens later, in the background.
 */
export const WEBHOOK_EVENT_TYPES = [
  'issue.created',
  'issue.updated',
  'issue.deleted',
  'comment.created',
  'sla.at_risk',
  'sla.breached',
  'baseline.created',
  'payment.succeeded',
  'payment.failed',
  'payment.refunded',
  'invoice.created',
  'subscription.updated',
  'subscription.renewal_upcoming',
  'subscription.trial_will_end',
  'payment_method.expiring',
  'worklog.created',
  'worklog.updated',
  'worklog.deleted',
  'attachment.created',
  'attachment.deleted',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** `webhook.ping` is only ever sent to one endpoint on request; it is never recorded in the outbox. */
export type OutboxEventType = WebhookEventType;

export interface OutboxEvent {
  workspaceId: string;
  type: OutboxEventType;
  /** The resource as the API shows it (built by the same view functions the routes use). JSON only. */
  data: unknown;
}

export interface Outbox<Tx> {
  /** Records the event inside `tx`; returns the event id (the `webhook-id` of every delivery of it). */
  record(tx: Tx, event: OutboxEvent): Promise<string>;
  /** Records several events inside `tx` in a fixed number of statements (not one per event); their ids, in order. */
  recordMany(tx: Tx, events: OutboxEvent[]): Promise<string[]>;
}
