import { Type } from 'typebox';
import { PageQuery, Timestamp, Uuid } from '../../http/schemas.js';
import { Payment, PaymentStatusSchema } from './billing.schemas.js';

/** Schemas of billing round 2 (contract section 13): refunds, credit notes, the operator's payments, reconciliation. */

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

export const CreditNote = Type.Object({
  id: Uuid,
  payment_id: Uuid,
  amount: Type.Integer({ description: 'Refunded, in minor units' }),
  currency: Type.String(),
  reason: Type.Union([Type.String(), Type.Null()]),
  credit_note_number: Type.String({ description: 'CN-YYYY-NNNNNN, gapless within a year' }),
  created_at: Timestamp,
});

export const PlanCheckQuery = Type.Object({ plan_slug: Type.String({ minLength: 1, maxLength: 64, description: 'The plan to check against' }) });

export const PlanCheck = Type.Object({
  plan_slug: Type.String(),
  allowed: Type.Boolean({ description: 'true when nothing in use exceeds the plan' }),
  violations: Type.Array(
    Type.Object({
      limit: Type.Enum(['max_users', 'max_projects', 'custom_properties']),
      allowed: Type.Union([Type.Integer(), Type.Boolean()], { description: 'What the plan allows (false: the feature is not included)' }),
      current: Type.Integer({ description: 'What the workspace uses now' }),
    }),
  ),
});
