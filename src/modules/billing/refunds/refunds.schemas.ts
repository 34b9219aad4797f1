import { Type } from 'typebox';
import { PageQuery, Uuid } from '../../../http/schemas.js';
import { Payment, PaymentStatusSchema } from '../billing.schemas.js';

/** Schemas of the operator's payments, refunds and reconciliation (contract section 13). */

export const PaymentParams = Type.Object({ paymentId: Uuid });

export const AdminPaymentsQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(PaymentStatusSchema),
  workspace: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Workspace slug' })),
});

export const AdminPayment = Type.Object({ ...Payment.properties, workspace_id: Uuid, workspace_slug: Type.String() });

export const RefundBody = Type.Object(
  {
    amount: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_000_000_000, description: 'Minor units; default: all that is left' })),
    reason: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
    cancel_subscription: Type.Optional(Type.Boolean({ description: 'Cancel the workspace subscription at once' })),
  },
  { additionalProperties: false },
);

export const RefundHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'The same key answers the same result and refunds once' })),
});
