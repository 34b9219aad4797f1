import { Webhook } from 'standardwebhooks';
import type { WebhookConfig } from '../../config/config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../kernel/clock.js';
import { type Metrics, NO_METRICS } from '../../kernel/metrics.js';
import { classify, nextAttemptAt, parseRetryAfter } from './webhooks.domain.js';
import type { ClaimedDelivery, WebhooksRepository } from './webhooks.repository.js';
import type { Sender } from './webhooks.sender.js';
import { eventBody } from './webhooks.views.js';
import { mapWindow } from '../../kernel/map-window.js';
import { createRunLoop } from '../../kernel/run-loop.js';

export interface WorkerDeps {
  db: Db;
  repo: WebhooksRepository;
  clock: Clock;
  sender: Sender;
  config: WebhookConfig;
  /** Unix time of an attempt, for the `webhook-timestamp` header (receivers compare it with their own clock). */
  wallClock?: () => Date;
  log?: { warn(obj: object, msg: string): void };
  metrics?: Metrics;
}

export type Worker = ReturnType<typeof createWorker>;

/** Deliveries claimed (and recorded) by one statement each. */
const BATCH = 100;
/** Attempts in flight at once: a window that slides, a new attempt starting as soon as one ends. */
const CONCURRENCY = 20;
/** A claimed attempt is owned this long beyond its timeout; an instance that died mid-attempt loses it then. */
const LEASE_MARGIN_MS = 60_000;

/** A signer per secret, reused across attempts (each decodes its secret once); bounded, emptied when full. */
const signers = new Map<string, Webhook>();
function signer(secret: string): Webhook {
  let found = signers.get(secret);
  if (!found) {
    if (signers.size >= 1_000) signers.clear();
    found = new Webhook(secret);
    signers.set(secret, found);
  }
  return found;
}

/** Signs `{id}.{timestamp}.{body}` with every secret in force: the newest first (Standard Webhooks). */
export function signatures(
  delivery: Pick<ClaimedDelivery, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>,
  id: string,
  at: Date,
  body: string,
  now: Date,
): string {
  const secrets = [delivery.secret];
  if (delivery.previous_secret && delivery.previous_secret_expires_at && delivery.previous_secret_expires_at > now) secrets.push(delivery.previous_secret);
  return secrets.map((s) => signer(s).sign(id, at, body)).join(' ');
}

/**
 * The delivery worker: claims due deliveries (any number of instances may run it), sends each attempt outside any
 * transaction, then records the outcome. Runs of one process are serialised; `wake()` asks for a run soon (after a
 * commit that created deliveries), the periodic job is the fallback.
 */
export function createWorker({ db, repo, clock, sender, config, wallClock = () => new Date(), log, metrics = NO_METRICS }: WorkerDeps) {
  const attempts = metrics.counter('webhook_attempts_total', 'Webhook delivery attempts by outcome', ['outcome']);
  const loop = createRunLoop(
    () => runOnce(),
    (err: unknown) => log?.warn({ err }, 'webhook delivery run failed'),
  );

  /** One attempt: sends, and answers what to record (the caller records a batch at once). */
  async function attempt(d: ClaimedDelivery, manual: boolean) {
    const at = wallClock();
    const body = eventBody({ id: d.event_id, type: d.event_type, created_at: d.event_created_at, workspace_id: d.workspace_id, data: d.event_data });
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'work-item-service-webhooks/1',
      'webhook-id': d.event_id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signatures(d, d.event_id, at, body, clock.now()),
    };
    const result = await sender.send(d.url, headers, body);
    const now = clock.now();
    const outcome = classify(result.statusCode, result.error, parseRetryAfter(result.retryAfter, now));
    // A manual attempt (ping, redeliver) is one attempt: it does not start a retry schedule of its own.
    const next = manual ? null : nextAttemptAt(now, d.attempts, config.retryScheduleS, outcome);
    const status = outcome.kind === 'success' ? ('succeeded' as const) : next ? ('pending' as const) : ('failed' as const);
    // What the endpoint learns: 410 disables it; a final automatic failure grows its streak; a success ends a streak.
    const endpoint =
      outcome.kind === 'gone'
        ? ('gone' as const)
        : status === 'failed' && !manual
          ? ('failed' as const)
          : status === 'succeeded' && d.consecutive_failures > 0
            ? ('succeeded' as const)
            : null;
    return {
      delivery: d,
      endpoint,
      now,
      record: {
        workspace_id: d.workspace_id,
        id: d.id,
        status,
        next_attempt_at: next,
        succeeded_at: status === 'succeeded' ? now : null,
        entry: {
          at: now.toISOString(),
          status_code: result.statusCode,
          duration_ms: result.durationMs,
          error: outcome.kind === 'failure' ? outcome.error : null,
        },
      },
    };
  }

  type Attempted = Awaited<ReturnType<typeof attempt>>;

  /** Records outcomes in one statement, then what the endpoints learnt. */
  async function recordAll(done: Attempted[]): Promise<void> {
    await repo.recordAttempts(
      db,
      done.map((x) => x.record),
    );
    for (const x of done) {
      // succeeded, retrying (pending) or failed (final); never tenant data in labels
      attempts.inc({ outcome: x.record.status === 'pending' ? 'retrying' : x.record.status });
    }
    for (const x of done) {
      if (x.endpoint) await repo.recordEndpointOutcome(db, x.delivery.workspace_id, x.delivery.webhook_id, x.endpoint, config.disableAfter, x.now);
    }
  }

  /** Sends the claimed deliveries, `CONCURRENCY` at a time, then records every outcome in one statement. */
  async function attemptAll(claimed: ClaimedDelivery[], manual: boolean): Promise<void> {
    await recordAll(await mapWindow(claimed, CONCURRENCY, (d) => attempt(d, manual)));
  }

  /**
   * How long a claim of `n` deliveries is owned: every attempt of it may take the whole timeout, `CONCURRENCY` at a
   * time, and the margin on top.
   */
  const leaseUntil = (now: Date, n: number) => new Date(now.getTime() + Math.ceil(n / CONCURRENCY) * config.timeoutMs + LEASE_MARGIN_MS);

  /**
   * Sends every delivery due now through one sliding window of `CONCURRENCY` attempts, fed by claims of `BATCH`: the
   * next claim is made while the previous one's last attempts are in flight, and outcomes are recorded `BATCH` at a
   * time as they complete, so the window does not drain at each claim. A claim's lease covers the attempts queued
   * before its own, its own, and the wait for its outcomes' statement.
   */
  async function runOnce(): Promise<number> {
    const queue: ClaimedDelivery[] = [];
    const done: Attempted[] = [];
    let more = true;
    let claiming: Promise<void> | null = null;
    let recording: Promise<void> = Promise.resolve();
    let sent = 0;
    const claimNext = () =>
      (claiming ??= (async () => {
        try {
          const now = clock.now();
          const claimed = await repo.claim(db, now, leaseUntil(now, 2 * BATCH + CONCURRENCY), BATCH);
          queue.push(...claimed);
          sent += claimed.length;
          more = claimed.length === BATCH;
        } catch (err) {
          more = false;
          log?.warn({ err }, 'webhook deliveries could not be claimed');
        } finally {
          claiming = null;
        }
      })());
    const flush = () => {
      const batch = done.splice(0);
      if (!batch.length) return;
      recording = recording.then(() =>
        recordAll(batch).catch((err: unknown) =>
          log?.warn({ err, deliveries: batch.map((x) => x.delivery.id) }, 'webhook attempts could not be recorded; they are retried after their lease'),
        ),
      );
    };
    const lane = async () => {
      for (;;) {
        if (more && queue.length < CONCURRENCY) void claimNext();
        const d = queue.shift();
        if (d) {
          done.push(await attempt(d, false));
          if (done.length >= BATCH) flush();
        } else if (claiming) await claiming;
        else if (!more) return;
      }
    };
    await claimNext();
    if (queue.length) await Promise.all(Array.from({ length: CONCURRENCY }, lane));
    flush();
    await recording;
    return sent;
  }

  const { serial } = loop;

  return {
    /** Sends every delivery due now (the periodic job, and what tests call). */
    run: () => serial(runOnce),

    /** One attempt of these deliveries now, whatever their schedule (ping, redeliver). */
    sendNow: (workspaceId: string, ids: string[]) =>
      serial(async () => {
        const now = clock.now();
        const claimed = await repo.claim(db, now, leaseUntil(now, ids.length), ids.length, { workspaceId, ids });
        await attemptAll(claimed, true);
      }),

    /**
     * Asks for a run soon, after the commit that created deliveries: runs 20 ms, 250 ms and 1.5 s later (for a slow
     * commit). Wakes coalesce, so a burst of commits costs three runs, not one per commit.
     */
    wake() {
      loop.wake();
    },

    /** Deletes events and deliveries older than the retention (30 days by default), in batches. */
    async cleanup(): Promise<number> {
      const before = new Date(clock.now().getTime() - config.retentionDays * 86_400_000);
      let deleted = 0;
      for (;;) {
        const n = await repo.deleteEventsBefore(db, before, 5_000);
        deleted += n;
        if (n < 5_000) return deleted;
      }
    },

    async close() {
      await loop.close();
      await sender.close();
    },
  };
}
