import { type Insertable, type Selectable, sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { EmailMode, MailOutboxTable, MailStatus } from '../../db/tables/mail.js';

export type MailRepository = ReturnType<typeof mailRepository>;

/** A mail as stored (bodies included: only the CLI and the worker read them). */
export type MailRow = Selectable<MailOutboxTable>;

/** A mail claimed for one attempt. */
export type ClaimedMail = Pick<MailRow, 'id' | 'message_id' | 'category' | 'to_address' | 'subject' | 'text_body' | 'html_body' | 'headers' | 'attempts'>;

/** The outcome of one attempt. */
export interface MailOutcome {
  id: string;
  status: MailStatus;
  next_attempt_at: Date | null;
  last_answer: string | null;
  at: Date;
}

/** A user's mail settings as stored, with the defaults when they have no row. */
export interface SettingsRow {
  email: EmailMode;
  digest_hour: number;
  kinds_off: string[];
}

/** A recipient: the account, its time zone and its settings. */
export interface Recipient extends SettingsRow {
  id: string;
  email_address: string;
  display_name: string;
  time_zone: string;
}

export interface QueuedNotification {
  id: string;
  workspace_id: string;
  user_id: string;
  notification_id: string;
  kind: string;
  delivery: 'instant' | 'digest';
  due_at: Date;
  payload: Record<string, unknown>;
  created_at: Date;
}

export const DEFAULT_SETTINGS: SettingsRow = { email: 'instant', digest_hour: 8, kinds_off: [] };

/**
 * The SQL of e-mail (contract 26.3). The outbox and the queue of notifications are the instance's: the worker and
 * the duty claim across workspaces (listed in test/core/tenant-scope.test.ts), and the admin's list is instance-wide.
 */
export function mailRepository() {
  return {
    // ---- the outbox ----

    async insertMails(tx: Executor, rows: Insertable<MailOutboxTable>[]): Promise<void> {
      if (rows.length) await tx.insertInto('mail_outbox').values(rows).execute();
    },

    /**
     * Claims due pending mails (or the mails `ids`, due or not) for one attempt: each is leased until `leaseUntil` and
     * its attempts counted, so another instance skips it (SKIP LOCKED) and takes it again only if this one dies.
     */
    async claimMails(tx: Executor, now: Date, leaseUntil: Date, limit: number, ids?: string[]): Promise<ClaimedMail[]> {
      const due = ids ? sql`m2.id IN (${sql.join(ids)}) AND m2.status = 'pending'` : sql`m2.status = 'pending' AND m2.next_attempt_at <= ${now}`;
      const { rows } = await sql<ClaimedMail>`
        UPDATE mail_outbox m
        SET next_attempt_at = ${leaseUntil}, attempts = m.attempts + 1, updated_at = ${now}
        WHERE m.id IN (
          SELECT m2.id FROM mail_outbox m2 WHERE ${due}
          ORDER BY m2.next_attempt_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
        RETURNING m.id, m.message_id, m.category, m.to_address, m.subject, m.text_body, m.html_body, m.headers, m.attempts`.execute(tx);
      return rows;
    },

    /** Records the outcomes of attempts in one statement. */
    async recordOutcomes(tx: Executor, outcomes: MailOutcome[]): Promise<void> {
      if (!outcomes.length) return;
      const values = outcomes.map((o) => sql`(${o.id}::uuid, ${o.status}, ${o.next_attempt_at}::timestamptz, ${o.last_answer}::text, ${o.at}::timestamptz)`);
      await sql`
        UPDATE mail_outbox m
        SET status = v.status, next_attempt_at = v.next_at, last_answer = v.answer, updated_at = v.at,
            sent_at = CASE WHEN v.status = 'sent' THEN v.at ELSE m.sent_at END,
            failed_at = CASE WHEN v.status = 'failed' THEN v.at ELSE m.failed_at END
        FROM (VALUES ${sql.join(values)}) AS v(id, status, next_at, answer, at)
        WHERE m.id = v.id AND m.status = 'pending'`.execute(tx);
    },

    /** The admin's list: newest first, optionally one state. */
    async listMails(tx: Executor, status: MailStatus | undefined, offset: number, limit: number): Promise<{ rows: MailRow[]; total: number }> {
      let query = tx.selectFrom('mail_outbox');
      if (status) query = query.where('status', '=', status);
      const [rows, count] = await Promise.all([
        query.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute(),
        query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows: rows as MailRow[], total: Number(count.n) };
    },

    /** Deletes sent and failed mails finished before `before`, a batch at a time; answers how many. */
    async deleteFinishedBefore(tx: Executor, before: Date, batch: number): Promise<number> {
      const res = await sql`
        DELETE FROM mail_outbox WHERE id IN (
          SELECT id FROM mail_outbox WHERE status <> 'pending' AND updated_at < ${before} ORDER BY updated_at LIMIT ${batch})`.execute(tx);
      return Number(res.numAffectedRows ?? 0);
    },

    async findMail(tx: Executor, id: string): Promise<MailRow | undefined> {
      return (await tx.selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirst()) as MailRow | undefined;
    },

    // ---- settings ----

    async findSettings(tx: Executor, userId: string): Promise<SettingsRow> {
      const row = await tx.selectFrom('mail_settings').select(['email', 'digest_hour', 'kinds_off']).where('user_id', '=', userId).executeTakeFirst();
      return row ?? DEFAULT_SETTINGS;
    },

    async saveSettings(tx: Executor, userId: string, settings: SettingsRow, now: Date): Promise<void> {
      await tx
        .insertInto('mail_settings')
        .values({ user_id: userId, ...settings, updated_at: now })
        .onConflict((oc) => oc.column('user_id').doUpdateSet({ ...settings, updated_at: now }))
        .execute();
    },

    /** Turns one kind off (the unsubscribe link); answers whether it changed anything. */
    async turnKindOff(tx: Executor, userId: string, kind: string, now: Date): Promise<void> {
      await sql`
        INSERT INTO mail_settings (user_id, kinds_off, updated_at) VALUES (${userId}, ARRAY[${kind}]::text[], ${now})
        ON CONFLICT (user_id) DO UPDATE
        SET kinds_off = CASE WHEN ${kind} = ANY (mail_settings.kinds_off) THEN mail_settings.kinds_off
                             ELSE array_append(mail_settings.kinds_off, ${kind}::text) END,
            updated_at = ${now}`.execute(tx);
    },

    /** Turns every notification mail off (the unsubscribe link of a mail about several kinds). */
    async turnEmailOff(tx: Executor, userId: string, now: Date): Promise<void> {
      await tx
        .insertInto('mail_settings')
        .values({ user_id: userId, email: 'off', updated_at: now })
        .onConflict((oc) => oc.column('user_id').doUpdateSet({ email: 'off', updated_at: now }))
        .execute();
    },

    async userExists(tx: Executor, userId: string): Promise<boolean> {
      return (await tx.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst()) !== undefined;
    },

    /** The accounts, time zones and settings of these users. */
    async recipients(tx: Executor, userIds: string[]): Promise<Recipient[]> {
      if (!userIds.length) return [];
      const rows = await tx
        .selectFrom('users as u')
        .leftJoin('mail_settings as s', 's.user_id', 'u.id')
        .select(['u.id', 'u.email as email_address', 'u.display_name', 'u.time_zone', 's.email', 's.digest_hour', 's.kinds_off'])
        .where('u.id', 'in', userIds)
        .execute();
      return rows.map((r) => ({
        id: r.id,
        email_address: r.email_address,
        display_name: r.display_name,
        time_zone: r.time_zone,
        email: r.email ?? DEFAULT_SETTINGS.email,
        digest_hour: r.digest_hour ?? DEFAULT_SETTINGS.digest_hour,
        kinds_off: r.kinds_off ?? DEFAULT_SETTINGS.kinds_off,
      }));
    },

    // ---- the queue of notifications ----

    /**
     * The notification listener's one statement: queues each new notification its recipient wants mailed (by their
     * settings, the defaults without a row), with what the mail shows (`payload`: the workspace, the issue and its
     * key, the actor's name) read in the same statement. Instant items are due at `instantDue` (the batching window);
     * digest items at `now`, and the duty moves them to the recipient's digest hour in their time zone on its next
     * pass (composeFor), so no time zone is worked out in the writing transaction.
     */
    async queueNew(
      tx: Executor,
      notifications: {
        id: string;
        notification_id: string;
        workspace_id: string;
        user_id: string;
        issue_id: string | null;
        kind: string;
        actor_id: string | null;
        data: unknown;
        created_at: string;
      }[],
      routing: { instantKinds: string[]; neverKinds: string[]; instantDue: Date; now: Date },
    ): Promise<void> {
      if (!notifications.length) return;
      const { instantKinds, neverKinds, instantDue, now } = routing;
      await sql`
        INSERT INTO mail_notifications (id, workspace_id, user_id, notification_id, kind, delivery, due_at, payload, created_at)
        SELECT n.id, n.workspace_id, n.user_id, n.notification_id, n.kind, r.delivery,
               CASE WHEN r.delivery = 'instant' THEN ${instantDue}::timestamptz ELSE ${now}::timestamptz END,
               jsonb_build_object(
                 'kind', n.kind,
                 'data', coalesce(n.data, '{}'::jsonb),
                 'workspace', jsonb_build_object('id', n.workspace_id, 'slug', w.slug, 'name', w.name),
                 'issue', CASE WHEN n.issue_id IS NULL THEN NULL ELSE jsonb_build_object(
                   'id', n.issue_id,
                   'key', p.identifier || '-' || i.sequence_id,
                   'name', i.name,
                   'project_id', coalesce(i.project_id::text, n.data->>'project_id')) END,
                 'actor', a.display_name,
                 'created_at', n.created_at),
               ${now}::timestamptz
        FROM jsonb_to_recordset(${JSON.stringify(notifications)}::jsonb) AS n (
          id uuid, notification_id uuid, workspace_id uuid, user_id uuid, issue_id uuid, kind text, actor_id uuid,
          data jsonb, created_at text)
        JOIN users u ON u.id = n.user_id
        LEFT JOIN mail_settings s ON s.user_id = n.user_id
        LEFT JOIN workspaces w ON w.id = n.workspace_id
        LEFT JOIN issues i ON i.workspace_id = n.workspace_id AND i.id = n.issue_id
        LEFT JOIN projects p ON p.workspace_id = i.workspace_id AND p.id = i.project_id
        LEFT JOIN users a ON a.id = n.actor_id
        CROSS JOIN LATERAL (
          SELECT CASE WHEN coalesce(s.email, ${DEFAULT_SETTINGS.email}) = 'instant' AND n.kind = ANY(${instantKinds}::text[])
                      THEN 'instant' ELSE 'digest' END AS delivery) r
        WHERE coalesce(s.email, ${DEFAULT_SETTINGS.email}) <> 'off'
          AND NOT (n.kind = ANY(coalesce(s.kinds_off, '{}'::text[])))
          AND NOT (n.kind = ANY(${neverKinds}::text[]))`.execute(tx);
    },

    async queueNotifications(tx: Executor, rows: QueuedNotification[]): Promise<void> {
      if (!rows.length) return;
      await tx
        .insertInto('mail_notifications')
        .values(rows.map((r) => ({ ...r, payload: JSON.stringify(r.payload) })))
        .execute();
    },

    /** Moves a user's pending digest items to a new time (their digest hour or time zone changed). */
    async rescheduleDigest(tx: Executor, userId: string, dueAt: Date): Promise<void> {
      await sql`UPDATE mail_notifications SET due_at = ${dueAt} WHERE user_id = ${userId} AND delivery = 'digest'`.execute(tx);
    },

    /** Users (of every workspace) with queued notifications due. */
    async dueUsers(tx: Executor, now: Date, limit: number): Promise<string[]> {
      const { rows } = await sql<{ user_id: string }>`
        SELECT DISTINCT user_id FROM mail_notifications WHERE due_at <= ${now} LIMIT ${limit}`.execute(tx);
      return rows.map((r) => r.user_id);
    },

    /**
     * Takes (deletes and answers) a user's due work: every instant item once one of them is due (the batch), and the
     * digest items due. Rows another instance holds are skipped: each item is taken once.
     */
    async takeDue(tx: Executor, userId: string, now: Date): Promise<QueuedNotification[]> {
      const { rows } = await sql<QueuedNotification>`
        DELETE FROM mail_notifications
        WHERE id IN (
          SELECT q.id FROM mail_notifications q
          WHERE q.user_id = ${userId}
            AND (q.due_at <= ${now}
                 OR (q.delivery = 'instant' AND q.created_at <= ${now} AND EXISTS (
                   SELECT 1 FROM mail_notifications d WHERE d.user_id = ${userId} AND d.delivery = 'instant' AND d.due_at <= ${now})))
          FOR UPDATE SKIP LOCKED)
        RETURNING id, workspace_id, user_id, notification_id, kind, delivery, due_at, payload, created_at`.execute(tx);
      return rows.sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.id.localeCompare(b.id));
    },

    // ---- the signing key ----

    /** The instance's signing key: made once by whichever instance comes first (the others read it). */
    async signingKey(tx: Executor, candidate: string, now: Date): Promise<string> {
      await tx
        .insertInto('mail_signing_keys')
        .values({ id: 1, secret: candidate, created_at: now })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      const row = await tx.selectFrom('mail_signing_keys').select('secret').where('id', '=', 1).executeTakeFirstOrThrow();
      return row.secret;
    },
  };
}
