import { lookup } from 'node:dns/promises';
import type { Db } from '../../db/database.js';
import type { Actor } from '../../kernel/actor.js';
import type { Clock } from '../../kernel/clock.js';
import { AppError, conflict, invalid, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { WEBHOOK_EVENT_TYPES } from '../../kernel/outbox.js';
import { pageOf, type PageQuery } from '../../kernel/pagination.js';
import type { IdentityService } from '../identity/index.js';
import { isBlockedAddress, literalAddress, MAX_ENDPOINTS_PER_WORKSPACE, newSecret, ROTATION_OVERLAP_MS, urlProblem } from './webhooks.domain.js';
import type { WebhooksRepository } from './webhooks.repository.js';
import { deliveryDetailView, deliveryView, endpointView } from './webhooks.views.js';
import type { Worker } from './webhooks.worker.js';

export interface WebhooksDeps {
  db: Db;
  repo: WebhooksRepository;
  clock: Clock;
  identity: Pick<IdentityService, 'access'>;
  worker: Pick<Worker, 'sendNow'>;
  allowPrivateTargets: boolean;
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;

export interface EndpointInput {
  url?: string;
  description?: string | null;
  event_types?: string[];
  is_active?: boolean;
}

function checkEventTypes(types: string[]): string[] {
  const unique = [...new Set(types)];
  if (unique.includes('*') && unique.length > 1) throw invalid('/event_types', 'use ["*"] alone, or a list of event types');
  for (const [i, t] of unique.entries()) {
    if (t !== '*' && !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(t)) {
      throw invalid(`/event_types/${i}`, `unknown event type "${t}"; one of ${WEBHOOK_EVENT_TYPES.join(', ')} or *`);
    }
  }
  return unique;
}

export function createWebhooksService({ db, repo, clock, identity, worker, allowPrivateTargets }: WebhooksDeps) {
  /** The URL's syntax, then (unless private targets are allowed) every address its host resolves to. */
  async function checkUrl(value: string): Promise<string> {
    const problem = urlProblem(value);
    if (problem) throw invalid('/url', problem);
    if (allowPrivateTargets) return value;
    const url = new URL(value);
    const literal = literalAddress(url);
    let addresses: string[];
    try {
      addresses = literal ? [literal] : (await lookup(url.hostname, { all: true })).map((a) => a.address);
    } catch {
      throw invalid('/url', `the host ${url.hostname} cannot be resolved`);
    }
    if (addresses.some(isBlockedAddress)) {
      throw invalid('/url', 'must not point at a loopback, private, link-local, multicast or unspecified address');
    }
    return value;
  }

  async function endpointOf(workspaceId: string, id: string) {
    const endpoint = await repo.findEndpoint(db, workspaceId, id);
    if (!endpoint) throw notFound('Webhook');
    return endpoint;
  }

  async function adminOf(actor: Actor, slug: string) {
    return identity.access(actor, slug, 'manage');
  }

  return {
    async create(actor: Actor, slug: string, input: Required<Pick<EndpointInput, 'url' | 'event_types'>> & EndpointInput) {
      const ws = await adminOf(actor, slug);
      const url = await checkUrl(input.url);
      const eventTypes = checkEventTypes(input.event_types);
      const secret = newSecret();
      const now = clock.now();
      const endpoint = await db.transaction().execute(async (tx) => {
        // Serialise creations per workspace so the cap holds under concurrency.
        await repo.lockWorkspace(tx, ws.workspaceId);
        if ((await repo.countEndpoints(tx, ws.workspaceId)) >= MAX_ENDPOINTS_PER_WORKSPACE) {
          throw conflict(`A workspace has at most ${MAX_ENDPOINTS_PER_WORKSPACE} webhook endpoints`);
        }
        return repo.insertEndpoint(tx, {
          id: newId(),
          workspace_id: ws.workspaceId,
          url,
          description: input.description ?? null,
          event_types: eventTypes,
          secret,
          created_at: now,
          updated_at: now,
        });
      });
      return { ...endpointView(endpoint), secret };
    },

    async list(actor: Actor, slug: string) {
      const ws = await adminOf(actor, slug);
      return (await repo.listEndpoints(db, ws.workspaceId)).map(endpointView);
    },

    async get(actor: Actor, slug: string, id: string) {
      const ws = await adminOf(actor, slug);
      return endpointView(await endpointOf(ws.workspaceId, id));
    },

    async update(actor: Actor, slug: string, id: string, input: EndpointInput) {
      const ws = await adminOf(actor, slug);
      await endpointOf(ws.workspaceId, id);
      const patch = {
        ...(input.url !== undefined ? { url: await checkUrl(input.url) } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.event_types !== undefined ? { event_types: checkEventTypes(input.event_types) } : {}),
        // Turning an endpoint back on clears why it was off, and its failure streak.
        ...(input.is_active !== undefined ? { is_active: input.is_active } : {}),
        ...(input.is_active === true ? { disabled_reason: null, consecutive_failures: 0 } : {}),
      };
      const updated = await repo.updateEndpoint(db, ws.workspaceId, id, { ...patch, updated_at: clock.now() });
      if (!updated) throw notFound('Webhook');
      return endpointView(updated);
    },

    async remove(actor: Actor, slug: string, id: string) {
      const ws = await adminOf(actor, slug);
      if (!(await repo.deleteEndpoint(db, ws.workspaceId, id))) throw notFound('Webhook');
    },

    /** A new secret; the previous one keeps signing for 24 hours, so receivers can switch without losing events. */
    async rotateSecret(actor: Actor, slug: string, id: string) {
      const ws = await adminOf(actor, slug);
      const now = clock.now();
      return db.transaction().execute(async (tx) => {
        const current = await repo.lockSecret(tx, ws.workspaceId, id);
        if (!current) throw notFound('Webhook');
        const secret = newSecret();
        await repo.updateEndpoint(tx, ws.workspaceId, id, {
          secret,
          previous_secret: current.secret,
          previous_secret_expires_at: new Date(now.getTime() + ROTATION_OVERLAP_MS),
          updated_at: now,
        });
        return { secret };
      });
    },

    /** Records a `webhook.ping` event for this endpoint only and sends it at once; answers its delivery. */
    async ping(actor: Actor, slug: string, id: string) {
      const ws = await adminOf(actor, slug);
      const endpoint = await endpointOf(ws.workspaceId, id);
      const now = clock.now();
      const deliveryId = newId();
      await db.transaction().execute(async (tx) => {
        const eventId = newId();
        await repo.insertEvent(tx, {
          id: eventId,
          workspace_id: ws.workspaceId,
          type: 'webhook.ping',
          data: { webhook: endpointView(endpoint) },
          created_at: now,
        });
        await repo.insertDeliveries(tx, [
          {
            id: deliveryId,
            workspace_id: ws.workspaceId,
            webhook_id: id,
            event_id: eventId,
            event_type: 'webhook.ping',
            next_attempt_at: now,
            created_at: now,
          },
        ]);
      });
      await worker.sendNow(ws.workspaceId, [deliveryId]);
      return deliveryDetailView((await repo.findDelivery(db, ws.workspaceId, id, deliveryId))!);
    },

    async listDeliveries(actor: Actor, slug: string, id: string, query: PageQuery & { status?: string }) {
      const ws = await adminOf(actor, slug);
      await endpointOf(ws.workspaceId, id);
      const { rows, total } = await repo.listDeliveries(db, ws.workspaceId, id, query.status, query.offset, query.per_page);
      return pageOf(rows.map(deliveryView), total, query);
    },

    async getDelivery(actor: Actor, slug: string, id: string, deliveryId: string) {
      const ws = await adminOf(actor, slug);
      const delivery = await repo.findDelivery(db, ws.workspaceId, id, deliveryId);
      if (!delivery) throw notFound('Delivery');
      return deliveryDetailView(delivery);
    },

    /** Sends the delivery's event again at once, with the same `webhook-id`; answers the delivery after the attempt. */
    async redeliver(actor: Actor, slug: string, id: string, deliveryId: string) {
      const ws = await adminOf(actor, slug);
      const delivery = await repo.findDelivery(db, ws.workspaceId, id, deliveryId);
      if (!delivery) throw notFound('Delivery');
      await repo.rearm(db, ws.workspaceId, deliveryId, clock.now());
      await worker.sendNow(ws.workspaceId, [deliveryId]);
      const after = await repo.findDelivery(db, ws.workspaceId, id, deliveryId);
      if (!after) throw new AppError('not_found', 'Delivery not found');
      return deliveryDetailView(after);
    },
  };
}
