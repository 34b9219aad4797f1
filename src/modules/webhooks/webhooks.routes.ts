import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../../http/auth.js';
import { errorResponses, NoContent, pageSchema } from '../../http/schemas.js';
import {
  CreateWebhookBody,
  Delivery,
  DeliveryDetail,
  DeliveryParams,
  DeliveriesQuery,
  RotatedSecret,
  UpdateWebhookBody,
  Webhook,
  WebhookParams,
  WebhookWithSecret,
  WorkspaceParams,
} from './webhooks.schemas.js';
import type { WebhooksService } from './webhooks.service.js';

/** Webhook endpoints of a workspace and their delivery log (admin only). */
export const webhooksRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhooksService }> = async (app, { webhooks }) => {
  const tags = ['webhooks'];

  app.get(
    '/api/workspaces/:slug/webhooks/',
    {
      schema: {
        tags,
        summary: 'Webhook endpoints of the workspace (admin)',
        params: WorkspaceParams,
        response: { 200: Type.Array(Webhook), ...errorResponses(403, 404) },
      },
    },
    async (req) => webhooks.list(actorOf(req), req.params.slug),
  );
  app.post(
    '/api/workspaces/:slug/webhooks/',
    {
      schema: {
        tags,
        summary: 'Add a webhook endpoint (admin); the answer carries its signing secret, shown only now',
        params: WorkspaceParams,
        body: CreateWebhookBody,
        response: { 201: WebhookWithSecret, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (req, reply) => reply.status(201).send(await webhooks.create(actorOf(req), req.params.slug, req.body)),
  );
  app.get(
    '/api/workspaces/:slug/webhooks/:webhookId/',
    { schema: { tags, summary: 'A webhook endpoint (admin)', params: WebhookParams, response: { 200: Webhook, ...errorResponses(403, 404) } } },
    async (req) => webhooks.get(actorOf(req), req.params.slug, req.params.webhookId),
  );
  app.patch(
    '/api/workspaces/:slug/webhooks/:webhookId/',
    {
      schema: {
        tags,
        summary: 'Change a webhook endpoint (admin); is_active: true turns it back on',
        params: WebhookParams,
        body: UpdateWebhookBody,
        response: { 200: Webhook, ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => webhooks.update(actorOf(req), req.params.slug, req.params.webhookId, req.body),
  );
  app.delete(
    '/api/workspaces/:slug/webhooks/:webhookId/',
    {
      schema: {
        tags,
        summary: 'Remove a webhook endpoint and its delivery log (admin)',
        params: WebhookParams,
        response: { 204: NoContent, ...errorResponses(403, 404) },
      },
    },
    async (req, reply) => {
      await webhooks.remove(actorOf(req), req.params.slug, req.params.webhookId);
      return reply.status(204).send();
    },
  );
  app.post(
    '/api/workspaces/:slug/webhooks/:webhookId/rotate-secret/',
    {
      schema: {
        tags,
        summary: 'New signing secret (admin); for 24 hours deliveries carry two signatures, the new one first',
        params: WebhookParams,
        response: { 200: RotatedSecret, ...errorResponses(403, 404) },
      },
    },
    async (req) => webhooks.rotateSecret(actorOf(req), req.params.slug, req.params.webhookId),
  );
  app.post(
    '/api/workspaces/:slug/webhooks/:webhookId/ping/',
    {
      schema: {
        tags,
        summary: 'Send a webhook.ping event to this endpoint now (admin); answers its delivery after the attempt',
        params: WebhookParams,
        response: { 201: DeliveryDetail, ...errorResponses(403, 404) },
      },
    },
    async (req, reply) => reply.status(201).send(await webhooks.ping(actorOf(req), req.params.slug, req.params.webhookId)),
  );
  app.get(
    '/api/workspaces/:slug/webhooks/:webhookId/deliveries/',
    {
      schema: {
        tags,
        summary: 'Delivery log of an endpoint, newest first, kept 30 days (admin)',
        params: WebhookParams,
        querystring: DeliveriesQuery,
        response: { 200: pageSchema(Delivery), ...errorResponses(400, 403, 404) },
      },
    },
    async (req) => webhooks.listDeliveries(actorOf(req), req.params.slug, req.params.webhookId, req.query),
  );
  app.get(
    '/api/workspaces/:slug/webhooks/:webhookId/deliveries/:deliveryId/',
    {
      schema: {
        tags,
        summary: 'One delivery with its payload and attempt log (admin)',
        params: DeliveryParams,
        response: { 200: DeliveryDetail, ...errorResponses(403, 404) },
      },
    },
    async (req) => webhooks.getDelivery(actorOf(req), req.params.slug, req.params.webhookId, req.params.deliveryId),
  );
  app.post(
    '/api/workspaces/:slug/webhooks/:webhookId/deliveries/:deliveryId/redeliver/',
    {
      schema: {
        tags,
        summary: 'Send a delivery again now, with the same webhook-id (admin); answers it after the attempt',
        params: DeliveryParams,
        response: { 200: DeliveryDetail, ...errorResponses(403, 404) },
      },
    },
    async (req) => webhooks.redeliver(actorOf(req), req.params.slug, req.params.webhookId, req.params.deliveryId),
  );
};
