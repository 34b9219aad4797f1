import { Type } from 'typebox';
import { NullableTimestamp, PageQuery, Slug, Timestamp, Uuid } from '../../http/schemas.js';
import { WEBHOOK_EVENT_TYPES } from '../../kernel/outbox.js';
import { MAX_URL_LENGTH } from './webhooks.domain.js';

export const WorkspaceParams = Type.Object({ slug: Slug });
export const WebhookParams = Type.Object({ slug: Slug, webhookId: Uuid });
export const DeliveryParams = Type.Object({ slug: Slug, webhookId: Uuid, deliveryId: Uuid });

const Url = Type.String({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  description: 'Absolute http(s) URL without user info; hosts resolving to loopback, private, link-local, multicast or unspecified addresses are refused',
});
const EventTypes = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  minItems: 1,
  maxItems: 32,
  description: `Event types to receive: any of ${WEBHOOK_EVENT_TYPES.join(', ')}; or ["*"] for all`,
});
const Description = Type.Union([Type.String({ maxLength: 1000 }), Type.Null()]);

export const Webhook = Type.Object({
  id: Uuid,
  workspace_id: Uuid,
  url: Type.String(),
  description: Description,
  event_types: Type.Array(Type.String()),
  is_active: Type.Boolean(),
  disabled_reason: Type.Union([Type.Literal('gone'), Type.Literal('failing'), Type.Null()], {
    description:
      'Why the service turned it off: "gone" (the receiver answered 410), "failing" (deliveries in a row failed); null when on or turned off by hand',
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const Secret = Type.String({ description: 'Signing secret: "whsec_" + base64 of 32 random bytes. Shown only now.' });
export const WebhookWithSecret = Type.Intersect([Webhook, Type.Object({ secret: Secret })]);
export const RotatedSecret = Type.Object({ secret: Secret });

export const CreateWebhookBody = Type.Object({ url: Url, description: Type.Optional(Description), event_types: EventTypes }, { additionalProperties: false });
export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    description: Type.Optional(Description),
    event_types: Type.Optional(EventTypes),
    is_active: Type.Optional(Type.Boolean({ description: 'true turns it back on and clears disabled_reason' })),
  },
  { additionalProperties: false },
);

const DeliveryStatus = Type.Enum(['pending', 'succeeded', 'failed']);
export const Delivery = Type.Object({
  id: Uuid,
  webhook_id: Uuid,
  event_id: Type.String({ description: 'The event id: the webhook-id header of every attempt' }),
  event_type: Type.String(),
  status: DeliveryStatus,
  attempts: Type.Integer(),
  next_attempt_at: NullableTimestamp,
  last_status_code: Type.Union([Type.Integer(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  succeeded_at: NullableTimestamp,
});
export const DeliveryDetail = Type.Intersect([
  Delivery,
  Type.Object({
    payload: Type.Unknown({ description: 'The JSON body sent: {id, type, timestamp, workspace_id, data}' }),
    attempt_log: Type.Array(
      Type.Object({
        at: Timestamp,
        status_code: Type.Union([Type.Integer(), Type.Null()]),
        duration_ms: Type.Integer(),
        error: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
  }),
]);

export const DeliveriesQuery = Type.Object({ ...PageQuery.properties, status: Type.Optional(DeliveryStatus) });
