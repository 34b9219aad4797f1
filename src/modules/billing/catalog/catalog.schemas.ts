import { Type } from 'typebox';

/** Whether a workspace fits a plan (contract section 13); plans and coupons share `billing.schemas.ts`. */

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
