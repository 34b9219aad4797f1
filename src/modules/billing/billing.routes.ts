import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyError } from 'fastify';
import { Type } from 'typebox';
import { actorOf } from '../../http/auth.js';
import { registerProviderCallbackParsers } from '../../http/body-guards.js';
import { errorResponses, NoContent, PageQuery, pageSchema } from '../../http/schemas.js';
import {
  CancelBody,
  CheckoutBody,
  CheckoutSession,
  Coupon,
  CouponParams,
  CouponValidation,
  CreateCouponBody,
  CreatePlanBody,
  Invoice,
  Payment,
  Plan,
  PlanParams,
  SubscriptionResponse,
  TrialBody,
  UpdatePlanBody,
  ValidateCouponBody,
  WorkspaceParams,
} from './billing.schemas.js';
import type { BillingService } from './billing.service.js';

type Opts = { billing: BillingService };

/** The catalogue (public), the workspace's billing and the instance admin's plans and coupons. */
export const billingRoutes: FastifyPluginAsyncTypebox<Opts> = async (app, { billing }) => {
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

  app.get(
    '/api/workspaces/:slug/billing/subscription/',
    {
      schema: {
        tags,
        summary: 'Subscription and limits of the workspace (every role)',
        params: WorkspaceParams,
        response: { 200: SubscriptionResponse, ...errorResponses(404) },
      },
    },
    async (req) => billing.getSubscription(actorOf(req), req.params.slug),
  );
  app.post(
    '/api/workspaces/:slug/billing/checkout/',
    {
      schema: {
        tags,
        summary: 'Start a payment for a plan (admin); a zero amount activates at once',
        params: WorkspaceParams,
        body: CheckoutBody,
        response: { 201: CheckoutSession, ...errorResponses(400, 403, 404, 502) },
      },
    },
    async (req, reply) => reply.status(201).send(await billing.checkout(actorOf(req), req.params.slug, req.body, { ip: req.ip })),
  );
  app.post(
    '/api/workspaces/:slug/billing/trial/',
    {
      schema: {
        tags,
        summary: 'Start the free trial of a plan (admin; once per workspace)',
        params: WorkspaceParams,
        body: TrialBody,
        response: { 201: SubscriptionResponse, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (req, reply) => reply.status(201).send(await billing.startTrial(actorOf(req), req.params.slug, req.body)),
  );
  app.post(
    '/api/workspaces/:slug/billing/cancel/',
    {
      schema: {
        tags,
        summary: 'Cancel now or at the end of the period (admin)',
        params: WorkspaceParams,
        body: CancelBody,
        response: { 200: SubscriptionResponse, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (req) => billing.cancel(actorOf(req), req.params.slug, req.body),
  );
  app.get(
    '/api/workspaces/:slug/billing/invoices/',
    {
      schema: {
        tags,
        summary: 'Invoices, newest first (admin)',
        params: WorkspaceParams,
        querystring: PageQuery,
        response: { 200: pageSchema(Invoice), ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => billing.listInvoices(actorOf(req), req.params.slug, req.query),
  );
  app.get(
    '/api/workspaces/:slug/billing/payments/',
    {
      schema: {
        tags,
        summary: 'Payments with their status, newest first (admin)',
        params: WorkspaceParams,
        querystring: PageQuery,
        response: { 200: pageSchema(Payment), ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => billing.listPayments(actorOf(req), req.params.slug, req.query),
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

const PlainText = Type.String({ description: 'text/plain' });

/**
 * The provider's notification: public, form-encoded (JSON accepted too), answered in plain text, errors included,
 * because the provider reads the body and retries until it says exactly `OK`.
 */
export const billingCallbackRoutes: FastifyPluginAsyncTypebox<Opts> = async (app, { billing }) => {
  registerProviderCallbackParsers(app); // strict UTF-8 form and JSON: a malformed body is a plain-text 400
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, 'billing: provider callback crashed');
    else request.log.warn({ status }, 'billing: provider callback refused');
    return reply
      .status(status)
      .type('text/plain; charset=utf-8')
      .send(status === 500 ? 'ERROR' : 'BAD REQUEST');
  });
  app.post(
    '/api/webhooks/provider/callback/',
    {
      config: { public: true },
      schema: {
        tags: ['billing'],
        summary: 'Payment result from the provider (PayTR notification); answers plain text OK',
        description:
          'Called by the payment provider only. Form fields merchant_oid, status, total_amount, hash (base64 HMAC-SHA256 of ' +
          'merchant_oid + merchant_salt + status + total_amount with the merchant key). The first notification of a merchant_oid ' +
          'takes effect; repeats answer OK and change nothing.',
        security: [],
        response: { 200: PlainText, 400: PlainText, 404: PlainText, 500: PlainText },
      },
    },
    async (req, reply) => {
      const result = await billing.handleCallback(req.body);
      return reply.status(result.status).type('text/plain; charset=utf-8').send(result.text);
    },
  );
};
