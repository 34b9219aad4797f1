import type { MailConfig } from '../../config/config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../kernel/clock.js';
import { type Metrics, NO_METRICS } from '../../kernel/metrics.js';
import type { ClaimedMail, MailOutcome, MailRepository } from './mail.repository.js';
import { nextAttemptAt } from './mail.rules.js';
import { type MailTransport, SMTP_CONNECTIONS } from './mail.transport.js';
import { mapWindow } from '../../kernel/map-window.js';
import { createRunLoop } from '../../kernel/run-loop.js';

export interface MailWorkerDeps {
  db: Db;
  repo: MailRepository;
  clock: Clock;
  /** Null without SMTP_URL: mails stay pending in the database, nothing is sent. */
  transport: MailTransport | null;
  config: Pick<MailConfig, 'retryScheduleS' | 'timeoutMs'>;
  log?: { warn(obj: object, msg: string): void };
  metrics?: Metrics;
}

export type MailWorker = ReturnType<typeof createMailWorker>;

/** Mails claimed by one statement. */
const BATCH = 200;
/** Sends in flight at once: two per pooled connection (the pool queues them), so none waits for a claim. */
const IN_FLIGHT = SMTP_CONNECTIONS * 2;
/** A claimed mail is owned this long beyond its attempts' time; an instance that died mid-send loses it then. */
const LEASE_MARGIN_MS = 60_000;

/**
 * The mail worker (contract 26.3, as the webhook worker of 12): claims due mails with FOR UPDATE SKIP LOCKED and a
 * lease (any number of instances may run it, each mail is sent by one), sends them outside any transaction, and
 * records each outcome: `sent` with the server's answer; a connection error or a 4xx is retried on the schedule; a
 * 5xx, or the last retry, is `failed` with the server's answer.
 */
export function createMailWorker({ db, repo, clock, transport, config, log, metrics = NO_METRICS }: MailWorkerDeps) {
  const sentTotal = metrics.counter('mail_sent_total', 'Mails the SMTP server accepted');
  const failedTotal = metrics.counter('mail_failed_total', 'Mails that ended failed (a permanent refusal, or no retry left)');
  const retriedTotal = metrics.counter('mail_retries_total', 'Mail attempts that failed for a passing reason and will be retried');
  const loop = createRunLoop(
    () => runOnce(),
    (err: unknown) => log?.warn({ err }, 'mail run failed'),
  );

  /** A claim of `n` is owned while its sends (20 at a time, each up to a connection and a command timeout) may take. */
  const leaseUntil = (now: Date, n: number) => new Date(now.getTime() + Math.ceil(n / IN_FLIGHT) * config.timeoutMs * 2 + LEASE_MARGIN_MS);

  async function attempt(t: MailTransport, mail: ClaimedMail): Promise<MailOutcome> {
    const result = await t.send(mail);
    const at = clock.now();
    if (result.ok) return { id: mail.id, status: 'sent', next_attempt_at: null, last_answer: result.answer, at };
    const next = result.permanent ? null : nextAttemptAt(at, mail.attempts, config.retryScheduleS);
    return { id: mail.id, status: next ? 'pending' : 'failed', next_attempt_at: next, last_answer: result.answer, at };
  }

  async function record(outcomes: MailOutcome[]): Promise<void> {
    await repo.recordOutcomes(db, outcomes);
    for (const o of outcomes) {
      if (o.status === 'sent') sentTotal.inc();
      else if (o.status === 'failed') failedTotal.inc();
      else retriedTotal.inc();
    }
  }

  /** A mail sent now (`mail test`) that failed for a passing reason stays pending on the schedule like any other. */
  async function sendClaimed(t: MailTransport, claimed: ClaimedMail[]): Promise<MailOutcome[]> {
    const outcomes = await mapWindow(claimed, IN_FLIGHT, (m) => attempt(t, m));
    await record(outcomes);
    return outcomes;
  }

  /** Sends every mail due now, a claim of `BATCH` at a time. */
  async function runOnce(): Promise<number> {
    if (!transport) return 0;
    let sent = 0;
    for (;;) {
      const now = clock.now();
      let claimed: ClaimedMail[];
      try {
        claimed = await repo.claimMails(db, now, leaseUntil(now, BATCH), BATCH);
      } catch (err) {
        log?.warn({ err }, 'mail could not be claimed');
        return sent;
      }
      if (!claimed.length) return sent;
      await sendClaimed(transport, claimed);
      sent += claimed.length;
      if (claimed.length < BATCH || loop.closed) return sent;
    }
  }

  const { serial } = loop;

  return {
    /** Whether mail leaves the database at all (SMTP_URL is set). */
    sends: transport !== null,

    /** Sends every mail due now (the periodic job, and what tests call). */
    run: () => serial(runOnce),

    /** One attempt of these mails now, due or not (`mail test`); answers the outcomes. */
    sendNow: (ids: string[]) =>
      serial(async () => {
        if (!transport) return [];
        const now = clock.now();
        const claimed = await repo.claimMails(db, now, leaseUntil(now, ids.length), ids.length, ids);
        return sendClaimed(transport, claimed);
      }),

    /** Asks for a run soon after a commit that queued mail (20 ms; 250 ms and 1.5 s for a slow commit); wakes coalesce. */
    wake() {
      if (!transport) return;
      loop.wake();
    },

    async close() {
      await loop.close();
      transport?.close();
    },
  };
}
