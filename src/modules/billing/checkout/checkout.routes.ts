import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyError } from 'fastify';
import { Type } from 'typebox';
import { actorOf } from '../../../http/auth.js';
import { discardBody, registerProviderCallbackParsers } from '../../../http/body-guards.js';
import { errorResponses, PageQuery, pageSchema } from '../../../http/schemas.js';
import { CheckoutBody, CheckoutSession, Payment, WorkspaceParams } from '../billing.schemas.js';
import type { BillingService } from '../billing.service.js';

type Opts = { billing: BillingService };

/** A checkout of the workspace and its payments. */
export const checkoutRoutes: FastifyPluginAsyncTypebox<Opts> = async (app, { billing }) => {
  const tags = ['billing'];

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
};

const PlainText = Type.String({ description: 'text/plain' });

/**
 * The provider's notification: public, form-encoded (JSON accepted too), answered in plain text, errors included,
 * because the provider reads the body and retries until it says exactly `OK`.
 */
export const billingCallbackRoutes: FastifyPluginAsyncTypebox<Opts> = async (app, { billing }) => {
  registerProviderCallbackParsers(app); // strict UTF-8 form and JSON: a malformed body is a plain-text 400
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, 'billing: provider callback crashed');
    else request.log.warn({ status }, 'billing: provider callback refused');
    if (status === 413) {
      // Over its 64 KiB: the rest is read and dropped before the answer, as for the API (src/http/errors.ts), so a
      // sender still writing reads the 413 instead of a reset.
      await discardBody(request.raw, Number(request.headers['content-length']));
      void reply.header('connection', 'close');
    }
    return reply
      .status(status)
      .type('text/plain; charset=utf-8')
      .send(status === 500 ? 'ERROR' : status === 413 ? 'PAYLOAD TOO LARGE' : 'BAD REQUEST');
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

/**
 * `GET /billing/card/<token>` (PAYMENT_PROVIDER=paytr, 19.1): the card page a checkout with save_card answers as its
 * `iframe_url`; public (the token is the credential). Its security headers (form-action PayTR's API origin) come from
 * the `card` surface of `registerSecurityHeaders`, on the page and on its 404 alike.
 */
export const cardPageRoutes: FastifyPluginAsyncTypebox<Opts> = async (app, { billing }) => {
  app.get('/billing/card/:token', { schema: { hide: true, params: Type.Object({ token: Type.String() }) } }, async (req, reply) => {
    const page = await billing.cardPage(req.params.token, req.ip);
    return reply.status(page.status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page.html);
  });
};
