import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../../../http/auth.js';
import { errorResponses, NoContent } from '../../../http/schemas.js';
import {
  Coupon,
  CouponParams,
  CouponValidation,
  CreateCouponBody,
  CreatePlanBody,
  Plan,
  PlanParams,
  UpdatePlanBody,
  ValidateCouponBody,
  WorkspaceParams,
} from '../billing.schemas.js';
import type { BillingService } from '../billing.service.js';
import { PlanCheck, PlanCheckQuery } from './catalog.schemas.js';

type Opts = { billing: BillingService };

/** The catalogue (public), coupon checks and plan checks of a workspace, the instance admin's plans and coupons. */
export const catalogRoutes: FastifyPluginAsyncTypebox<Opts> = async (app, { billing }) => {
  const tags = ['billing'];
  const admin = ['billing admin'];

  app.get(
    '/api/billing/plans/',
    {
      config: { public: true },
      schema: { tags, summary: 'The plan catalogue (public; active plans only)', security: [], response: { 200: Type.Array(Plan) } },
    },
    async () => billing.listPublicPlans(),
  );

  app.post(
    '/api/workspaces/:slug/billing/validate-coupon/',
    {
      schema: {
        tags,
        summary: 'Check a coupon against a plan and an amount (admin); 200 also for a bad coupon',
        params: WorkspaceParams,
        body: ValidateCouponBody,
        response: { 200: CouponValidation, ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => billing.validateCoupon(actorOf(req), req.params.slug, req.body),
  );

  app.get(
    '/api/workspaces/:slug/billing/plan-check/',
    {
      schema: {
        tags,
        summary: 'Would the workspace fit a plan? Members, projects and custom properties beyond it (admin)',
        params: WorkspaceParams,
        querystring: PlanCheckQuery,
        response: { 200: PlanCheck, ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => billing.planCheck(actorOf(req), req.params.slug, req.query.plan_slug),
  );

  app.get(
    '/api/admin/plans/',
    { schema: { tags: admin, summary: 'Every plan, retired ones too (instance admin)', response: { 200: Type.Array(Plan), ...errorResponses(403) } } },
    async (req) => billing.adminListPlans(actorOf(req)),
  );
  app.post(
    '/api/admin/plans/',
    { schema: { tags: admin, summary: 'Add a plan (instance admin)', body: CreatePlanBody, response: { 201: Plan, ...errorResponses(400, 403, 409) } } },
    async (req, reply) => reply.status(201).send(await billing.adminCreatePlan(actorOf(req), req.body)),
  );
  app.patch(
    '/api/admin/plans/:planSlug/',
    {
      schema: {
        tags: admin,
        summary: 'Change a plan, or retire it with is_active: false (instance admin); existing subscriptions keep it',
        params: PlanParams,
        body: UpdatePlanBody,
        response: { 200: Plan, ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => billing.adminUpdatePlan(actorOf(req), req.params.planSlug, req.body),
  );
  app.get(
    '/api/admin/coupons/',
    { schema: { tags: admin, summary: 'Every coupon (instance admin)', response: { 200: Type.Array(Coupon), ...errorResponses(403) } } },
    async (req) => billing.adminListCoupons(actorOf(req)),
  );
  app.post(
    '/api/admin/coupons/',
    {
      schema: {
        tags: admin,
        summary: 'Create a coupon: percent_off or amount_off + currency (instance admin)',
        body: CreateCouponBody,
        response: { 201: Coupon, ...errorResponses(400, 403, 409) },
      },
    },
    async (req, reply) => reply.status(201).send(await billing.adminCreateCoupon(actorOf(req), req.body)),
  );
  app.delete(
    '/api/admin/coupons/:code/',
    {
      schema: {
        tags: admin,
        summary: 'Delete a coupon (instance admin); payments keep their coupon code',
        params: CouponParams,
        response: { 204: NoContent, ...errorResponses(400, 403, 404) },
      },
    },
    async (req, reply) => {
      await billing.adminDeleteCoupon(actorOf(req), req.params.code);
      return reply.status(204).send();
    },
  );
};
