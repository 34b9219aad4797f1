import { type Insertable, sql, type Updateable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { AttemptLogEntry } from '../../db/tables/webhooks.js';

export type WebhooksRepository = ReturnType<typeof webhooksRepository>;

const endpointColumns = ['id', 'workspace_id', 'url', 'description', 'event_types', 'is_active', 'disabled_reason', 'created_at', 'updated_at'] as const;
const deliveryColumns = [
  'd.id',
  'd.webhook_id',
  'd.event_id',
  'd.event_type',
  'd.status',
  'd.attempts',
  'd.next_attempt_at',
  'd.last_status_code',
  'd.last_error',
  'd.created_at',
  'd.succeeded_at',
] as const;

/** A delivery claimed for one attempt, with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  workspace_id: string;
  webhook_id: string;
  attempts: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  consecutive_failures: number;
  event_id: string;
  event_type: string;
  event_data: unknown;
  event_created_at: Date;
}

/** The outcome of one attempt: the delivery's status, next due time and success time, and the entry its log gains. */
export type AttemptRecord = Required<
  Pick<Updateable<Database['webhook_deliveries']>, 'id' | 'workspace_id' | 'status' | 'next_attempt_at' | 'succeeded_at'>
> & {
  entry: AttemptLogEntry;
};

export function webhooksRepository() {
  return {
    // ---- events (the outbox) ----

    /** `data` is stored as its JSON text. */
    async insertEvent(tx: Executor, row: Omit<Insertable<Database['events']>, 'data'> & { data: unknown }): Promise<void> {
      await tx
        .insertInto('events')
        .values({ ...row, data: JSON.stringify(row.data) })
        .execute();
    },

    async listEvents(tx: Executor, workspaceId: string) {
      return tx.selectFrom('events').selectAll().where('workspace_id', '=', workspaceId).orderBy('created_at').orderBy('id').execute();
    },

    /**
     * Records events and answers, in the same statement (a data-modifying WITH), the active endpoints of each event's
     * workspace that take its type: one round trip however many events a change (or the SLA events duty) records.
     */
    async insertEventsForEndpoints(
      tx: Executor,
      rows: (Omit<Insertable<Database['events']>, 'data'> & { data: unknown })[],
    ): Promise<{ event_id: string; webhook_id: string }[]> {
      if (!rows.length) return [];
      return tx
        .with('recorded', (db) =>
          db
            .insertInto('events')
            .values(rows.map((row) => ({ ...row, data: JSON.stringify(row.data) })))
            .returning(['id', 'workspace_id', 'type']),
        )
        .selectFrom('recorded')
        .innerJoin('webhook_endpoints as e', 'e.workspace_id', 'recorded.workspace_id')
        .select(['recorded.id as event_id', 'e.id as webhook_id'])
        .where('e.is_active', '=', true)
        .where((eb) => eb.or([sql<boolean>`e.event_types @> ARRAY[recorded.type]::text[]`, sql<boolean>`e.event_types @> ARRAY['*']::text[]`]))
        .execute();
    },

    async insertDeliveries(tx: Executor, rows: Insertable<Database['webhook_deliveries']>[]): Promise<void> {
      if (rows.length) await tx.insertInto('webhook_deliveries').values(rows).execute();
    },

    // ---- endpoints ----

    /** Locks the workspace's row: endpoint creations of one workspace then run one at a time, so the cap holds. */
    async lockWorkspace(tx: Executor, workspaceId: string): Promise<void> {
      await tx.selectFrom('workspaces').select('id').where('id', '=', workspaceId).forUpdate().executeTakeFirst();
    },

    async countEndpoints(tx: Executor, workspaceId: string): Promise<number> {
      const row = await tx
        .selectFrom('webhook_endpoints')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirstOrThrow();
      return row.n;
    },

    async insertEndpoint(tx: Executor, row: Insertable<Database['webhook_endpoints']>) {
      return tx.insertInto('webhook_endpoints').values(row).returning(endpointColumns).executeTakeFirstOrThrow();
    },

    async listEndpoints(tx: Executor, workspaceId: string) {
      return tx.selectFrom('webhook_endpoints').select(endpointColumns).where('workspace_id', '=', workspaceId).orderBy('created_at').orderBy('id').execute();
    },

    async findEndpoint(tx: Executor, workspaceId: string, id: string) {
      return tx.selectFrom('webhook_endpoints').select(endpointColumns).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
    },

    /** The endpoint's current secret, its row locked for the rotation that follows. */
    async lockSecret(tx: Executor, workspaceId: string, id: string) {
      return tx.selectFrom('webhook_endpoints').select('secret').where('workspace_id', '=', workspaceId).where('id', '=', id).forUpdate().executeTakeFirst();
    },

    async updateEndpoint(
      tx: Executor,
      workspaceId: string,
      id: string,
      patch: Omit<Updateable<Database['webhook_endpoints']>, 'id' | 'workspace_id' | 'created_at'>,
    ) {
      return tx
        .updateTable('webhook_endpoints')
        .set(patch)
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .returning(endpointColumns)
        .executeTakeFirst();
    },

    async deleteEndpoint(tx: Executor, workspaceId: string, id: string): Promise<boolean> {
      const res = await tx.deleteFrom('webhook_endpoints').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
      return res.numDeletedRows > 0n;
    },

    /** After a final outcome: a success resets the failure streak; a failure grows it and may disable the endpoint. */
    async recordEndpointOutcome(
      tx: Executor,
      workspaceId: string,
      id: string,
      outcome: 'succeeded' | 'failed' | 'gone',
      disableAfter: number,
      now: Date,
    ): Promise<void> {
      const q = tx.updateTable('webhook_endpoints').where('workspace_id', '=', workspaceId).where('id', '=', id);
      if (outcome === 'succeeded') {
        await q.set({ consecutive_failures: 0 }).where('consecutive_failures', '>', 0).execute();
      } else if (outcome === 'gone') {
        await q.set({ is_active: false, disabled_reason: 'gone', updated_at: now }).where('is_active', '=', true).execute();
      } else {
        await q
          .set({
            consecutive_failures: sql`consecutive_failures + 1`,
            is_active: sql`CASE WHEN is_active AND consecutive_failures + 1 >= ${disableAfter} THEN false ELSE is_active END`,
            disabled_reason: sql`CASE WHEN is_active AND consecutive_failures + 1 >= ${disableAfter} THEN 'failing' ELSE disabled_reason END`,
            updated_at: now,
          })
          .execute();
      }
    },

    // ---- deliveries ----

    async listDeliveries(tx: Executor, workspaceId: string, webhookId: string, status: string | undefined, offset: number, limit: number) {
      let q = tx.selectFrom('webhook_deliveries as d').where('d.workspace_id', '=', workspaceId).where('d.webhook_id', '=', webhookId);
      if (status) q = q.where('d.status', '=', status as 'pending');
      const [rows, count] = await Promise.all([
        q.select(deliveryColumns).orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').offset(offset).limit(limit).execute(),
        q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: count.n };
    },

    async findDelivery(tx: Executor, workspaceId: string, webhookId: string, id: string) {
      return tx
        .selectFrom('webhook_deliveries as d')
        .innerJoin('events as e', (j) => j.onRef('e.workspace_id', '=', 'd.workspace_id').onRef('e.id', '=', 'd.event_id'))
        .select([...deliveryColumns, 'd.attempt_log', 'd.workspace_id', 'e.data as event_data', 'e.created_at as event_created_at'])
        .where('d.workspace_id', '=', workspaceId)
        .where('d.webhook_id', '=', webhookId)
        .where('d.id', '=', id)
        .executeTakeFirst();
    },

    /** Makes a delivery due now again (redeliver), keeping its event and so its webhook-id. */
    async rearm(tx: Executor, workspaceId: string, id: string, now: Date): Promise<void> {
      await tx
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', next_attempt_at: now })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .execute();
    },

    /**
     * Claims due deliveries for one attempt each: one statement that locks the rows it takes (SKIP LOCKED, so
     * instances never take the same one), moves their due time to the lease's end and counts the attempt. Nothing
     * stays locked afterwards: the HTTP call happens outside any transaction, and a delivery whose instance died
     * mid-attempt is due again when the lease ends. `ids` claims those deliveries only (ping, redeliver), due or not.
     */
    async claim(tx: Executor, now: Date, leaseUntil: Date, limit: number, only?: { workspaceId: string; ids: string[] }): Promise<ClaimedDelivery[]> {
      const due = only
        ? sql`d2.workspace_id = ${only.workspaceId} AND d2.id IN (${sql.join(only.ids)}) AND d2.status = 'pending'`
        : sql`d2.status = 'pending' AND d2.next_attempt_at <= ${now} AND e2.is_active`;
      const { rows } = await sql<ClaimedDelivery>`
        UPDATE webhook_deliveries d
        SET next_attempt_at = ${leaseUntil}, attempts = d.attempts + 1
        FROM webhook_endpoints e, events ev
        WHERE d.id IN (
            SELECT d2.id FROM webhook_deliveries d2
            JOIN webhook_endpoints e2 ON e2.workspace_id = d2.workspace_id AND e2.id = d2.webhook_id
            WHERE ${due}
            ORDER BY d2.next_attempt_at
            LIMIT ${limit}
            FOR UPDATE OF d2 SKIP LOCKED)
          AND e.workspace_id = d.workspace_id AND e.id = d.webhook_id
          AND ev.workspace_id = d.workspace_id AND ev.id = d.event_id
        RETURNING d.id, d.workspace_id, d.webhook_id, d.attempts, e.url, e.secret, e.previous_secret,
                  e.previous_secret_expires_at, e.consecutive_failures, ev.id AS event_id, ev.type AS event_type, ev.data AS event_data,
                  ev.created_at AS event_created_at`.execute(tx);
      return rows;
    },

    /**
     * The outcomes of attempts, in one statement: `succeeded` or `failed` end a delivery, `pending` waits for `nextAt`.
     */
    async recordAttempts(tx: Executor, results: AttemptRecord[]): Promise<void> {
      if (results.length === 0) return;
      const values = results.map(
        (r) =>
          sql`(${r.id}::uuid, ${r.workspace_id}::uuid, ${r.status}, ${r.next_attempt_at}::timestamptz, ${r.entry.status_code}::integer, ${r.entry.error}::text,
               ${JSON.stringify([r.entry])}::jsonb, ${r.succeeded_at}::timestamptz)`,
      );
      await sql`
        UPDATE webhook_deliveries d
        SET status = v.status, next_attempt_at = v.next_at, last_status_code = v.code, last_error = v.err,
            attempt_log = d.attempt_log || v.entry,
            succeeded_at = coalesce(v.succeeded_at, d.succeeded_at)
        FROM (VALUES ${sql.join(values)}) AS v(id, workspace_id, status, next_at, code, err, entry, succeeded_at)
        WHERE d.id = v.id AND d.workspace_id = v.workspace_id`.execute(tx);
    },

    /** Deletes events of every workspace (and with them their deliveries) recorded before `before`, a batch at a time. */
    async deleteEventsBefore(tx: Executor, before: Date, batch: number): Promise<number> {
      const res = await sql`
        DELETE FROM events WHERE id IN (SELECT id FROM events WHERE created_at < ${before} ORDER BY created_at LIMIT ${batch})`.execute(tx);
      return Number(res.numAffectedRows ?? 0);
    },
  };
}
