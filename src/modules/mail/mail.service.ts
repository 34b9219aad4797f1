import { randomBytes } from 'node:crypto';
import type { Tx } from '../../db/database.js';
import type { MailStatus } from '../../db/tables/mail.js';
import type { Actor } from '../../kernel/actor.js';
import { AppError, forbidden, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { NOTIFICATION_KINDS, type NotificationListener } from '../../kernel/notices.js';
import { type Page, type PageQuery, pageOf } from '../../kernel/pagination.js';
import type { MailDeps } from './mail.deps.js';
import { type NotificationPayload, renderNotificationMail } from './mail.render.js';
import type { MailRow, QueuedNotification, SettingsRow } from './mail.repository.js';
import { INSTANT_KINDS, nextDigestAt, routeNotification, SELF_MAILED_KINDS, signUnsubscribe, type UnsubscribeScope, verifyUnsubscribe } from './mail.rules.js';
import { mailDetailView, mailView, settingsView } from './mail.views.js';

export type MailService = ReturnType<typeof createMailService>;

export interface SettingsChange {
  email?: SettingsRow['email'];
  digest_hour?: number;
  kinds?: Partial<Record<string, boolean | undefined>>;
}

/** Users whose due notification mails one round of the duty composes at most (then it goes on). */
const DUTY_BATCH = 100;

/**
 * E-mail (contract 26.3): the users' notification settings, the notification listener that queues what to mail, the
 * duty that composes the instant batches and the daily digests, the signed unsubscribe links, the admin's view of
 * the outbox, and a test mail.
 */
export function createMailService({ db, repo, clock, queue, worker, config, publicBaseUrl, log }: MailDeps) {
  let signingKey: Promise<string> | null = null;
  /** The instance's signing key: read (or made, by the first instance) once per process. */
  const key = (): Promise<string> => {
    signingKey ??= repo.signingKey(db, randomBytes(32).toString('base64url'), clock.now()).catch((err: unknown) => {
      signingKey = null;
      throw err;
    });
    return signingKey;
  };
  const unsubscribeUrl = (k: string, userId: string, scope: string) =>
    `${publicBaseUrl}/api/mail/unsubscribe/${signUnsubscribe(k, userId, scope as UnsubscribeScope)}/`;

  /**
   * The notification listener (in the transaction that wrote the notifications): each recipient's settings say
   * whether and how it is mailed; what is mailed is queued with its due time (the batching window, or the digest).
   */
  const onNotifications: NotificationListener<Tx> = async (tx, created) => {
    if (!created.length) return;
    const now = clock.now();
    await repo.queueNew(
      tx,
      created.map((n) => ({
        id: newId(),
        notification_id: n.id,
        workspace_id: n.workspaceId,
        user_id: n.userId,
        issue_id: n.issueId,
        kind: n.kind,
        actor_id: n.actorId,
        data: n.data ?? {},
        created_at: n.createdAt.toISOString(),
      })),
      { instantKinds: [...INSTANT_KINDS], neverKinds: [...SELF_MAILED_KINDS], instantDue: new Date(now.getTime() + config.batchWindowS * 1000), now },
    );
  };

  /** Composes the mails of one user's due items (in `tx`, which took them): an instant batch and/or a digest. */
  async function composeFor(tx: Tx, userId: string, now: Date, k: string): Promise<number> {
    const items = await repo.takeDue(tx, userId, now);
    if (!items.length) return 0;
    const [recipient] = await repo.recipients(tx, [userId]);
    if (!recipient) return 0;
    // Settings changed since an item was queued (a kind turned off, mail off): what is no longer wanted is dropped.
    let wanted = items.filter((i) => routeNotification(recipient, i.kind) !== null);
    // The time zone (or the hour) changed since the digest items were queued: their digest is at the first such hour
    // after the oldest of them in the zone of now; still ahead, they wait for it (queued again, in this transaction).
    const digest = wanted.filter((i) => i.delivery === 'digest');
    if (digest.length) {
      const oldest = new Date(Math.min(...digest.map((i) => i.created_at.getTime())));
      const due = nextDigestAt(oldest, recipient.digest_hour, recipient.time_zone);
      if (due.getTime() > now.getTime()) {
        await repo.queueNotifications(
          tx,
          digest.map((i) => ({ ...i, due_at: due })),
        );
        wanted = wanted.filter((i) => i.delivery !== 'digest');
      }
    }
    const ctx = {
      publicBaseUrl,
      recipient: { email: recipient.email_address, display_name: recipient.display_name, time_zone: recipient.time_zone },
      unsubscribeUrl: (scope: string) => unsubscribeUrl(k, userId, scope),
    };
    const mails = (['instant', 'digest'] as const).flatMap((delivery) => {
      const group: QueuedNotification[] = wanted.filter((i) => i.delivery === delivery);
      if (!group.length) return [];
      const rendered = renderNotificationMail(
        group.map((i) => i.payload as unknown as NotificationPayload),
        delivery === 'instant' ? 'notification' : 'digest',
        ctx,
      );
      const workspaces = new Set(group.map((i) => i.workspace_id));
      return [{ ...rendered, to: recipient.email_address, userId, workspaceId: workspaces.size === 1 ? group[0]!.workspace_id : null }];
    });
    await queue.enqueueMany(tx, mails);
    return mails.length;
  }

  /** The duty: composes the mails of every user with due items (each user in a transaction of its own). */
  async function runDuty(): Promise<number> {
    const now = clock.now();
    let queued = 0;
    for (let round = 0; round < 50; round++) {
      const users = await repo.dueUsers(db, now, DUTY_BATCH);
      // Read before any transaction: the embedded database has one session, which the transaction would hold.
      const k = users.length ? await key() : '';
      let progress = 0;
      for (const userId of users) {
        try {
          const n = await db.transaction().execute((tx) => composeFor(tx, userId, now, k));
          queued += n;
          progress += n > 0 ? 1 : 0;
        } catch (err) {
          log?.warn({ err }, 'notification mail could not be composed');
        }
      }
      if (users.length < DUTY_BATCH || progress === 0) break;
    }
    return queued;
  }

  async function getSettings(actor: Actor) {
    return settingsView(await repo.findSettings(db, actor.userId));
  }

  async function putSettings(actor: Actor, change: SettingsChange) {
    return db.transaction().execute(async (tx) => {
      const current = await repo.findSettings(tx, actor.userId);
      const off = new Set(current.kinds_off);
      for (const [kind, on] of Object.entries(change.kinds ?? {})) {
        if (on === true) off.delete(kind);
        else if (on === false) off.add(kind);
      }
      const next: SettingsRow = {
        email: change.email ?? current.email,
        digest_hour: change.digest_hour ?? current.digest_hour,
        kinds_off: (NOTIFICATION_KINDS as readonly string[]).filter((k) => off.has(k)),
      };
      const now = clock.now();
      await repo.saveSettings(tx, actor.userId, next, now);
      if (next.digest_hour !== current.digest_hour) {
        const [me] = await repo.recipients(tx, [actor.userId]);
        if (me) await repo.rescheduleDigest(tx, actor.userId, nextDigestAt(now, next.digest_hour, me.time_zone));
      }
      return settingsView(next);
    });
  }

  /** What a signed unsubscribe link names, or a 404 (malformed, tampered with, another instance's, a deleted user). */
  async function readToken(token: string) {
    const found = verifyUnsubscribe(await key(), token);
    if (!found || !(await repo.userExists(db, found.userId))) throw notFound('Unsubscribe link');
    return found;
  }

  /** RFC 8058 one-click: turns the link's kind off (or, for a mail about several kinds, notification mail). */
  async function unsubscribe(token: string): Promise<{ scope: UnsubscribeScope }> {
    const { userId, scope } = await readToken(token);
    const now = clock.now();
    if (scope === '*') await repo.turnEmailOff(db, userId, now);
    else await repo.turnKindOff(db, userId, scope, now);
    return { scope };
  }

  function requireAdmin(actor: Actor) {
    if (!actor.isInstanceAdmin && !actor.isOperator) throw forbidden('Only an instance admin can see the mail outbox');
  }

  return {
    onNotifications,
    runDuty,
    getSettings,
    putSettings,
    readToken,
    unsubscribe,

    /** The outbox for the instance admin: newest first, optionally one state; never a body (they may hold tokens). */
    async listMails(actor: Actor, query: PageQuery & { status?: MailStatus }): Promise<Page<ReturnType<typeof mailView>>> {
      requireAdmin(actor);
      const { rows, total } = await repo.listMails(db, query.status, query.offset, query.per_page);
      return pageOf(rows.map(mailView), total, query);
    },

    /** Deletes sent and failed mails older than MAIL_RETENTION_DAYS (the `mail.cleanup` duty); pending ones stay. */
    async cleanup(): Promise<number> {
      const before = new Date(clock.now().getTime() - config.retentionDays * 86_400_000);
      let deleted = 0;
      for (;;) {
        const n = await repo.deleteFinishedBefore(db, before, 5_000);
        deleted += n;
        if (n < 5_000) return deleted;
      }
    },

    /** One mail for the instance admin: its text body with the tokens of its links redacted. */
    async getMail(actor: Actor, id: string) {
      requireAdmin(actor);
      const row = await repo.findMail(db, id.toLowerCase());
      if (!row) throw notFound('Mail');
      return mailDetailView(row);
    },

    /** One mail with its bodies (the operator's CLI: `mail show ID`). */
    async showMail(actor: Actor, id: string): Promise<MailRow> {
      requireAdmin(actor);
      const row = /^[0-9a-f-]{36}$/i.test(id) ? await repo.findMail(db, id) : undefined;
      if (!row) throw notFound('Mail');
      return row;
    },

    /** Whether mail leaves the database (SMTP_URL is set). */
    sends: worker.sends,

    /**
     * `mail test --to`: queues a test mail and sends it at once; answers the mail and the server's answer. Without
     * SMTP_URL the mail is kept pending in the database.
     */
    async sendTest(actor: Actor, to: string) {
      requireAdmin(actor);
      if (!/^[^\s@<>]+@[^\s@<>]+$/.test(to) || to.length > 320)
        throw new AppError('validation_failed', 'Give an e-mail address', [{ path: '/to', message: 'Not an e-mail address' }]);
      const now = clock.now();
      const text = `This is a test mail of the work-item service at ${publicBaseUrl}, sent ${now.toISOString()}.\n`;
      const id = await db
        .transaction()
        .execute((tx) => queue.enqueue(tx, { to, subject: 'Test mail from the work-item service', text, html: `<p>${text.trim()}</p>`, category: 'test' }));
      const [outcome] = await worker.sendNow([id]);
      return { id, sent: worker.sends, outcome: outcome ?? null, mail: (await repo.findMail(db, id))! };
    },
  };
}
