import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { AttemptLogEntry } from '../../db/tables/webhooks.js';

export type WebhooksRepository = ReturnType<typeof webhooksRepository>;

const endpointColumns = [
  'id',
  'workspace_id',
  'url',
  'description',
  'event_types',
  'is_active',
  'disabled_reason',
  'created_at',
  'updated_at',
] as const;
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

export function webhooksRepository(db: Executor) {
  return {
    // ---- events (the outbox) ----

    async insertEvent(tx: Executor, row: { id: string; workspace_id: string; type: string; data: unknown; created_at: Date }): Promise<void> {
      await tx
        .insertInto('events')
        .values({ ...row, data: JSON.stringify(row.data) })
        .execute();
    },

    async listEvents(workspaceId: string, tx: Executor = db) {
      return tx.selectFrom('events').selectAll().where('workspace_id', '=', workspaceId).orderBy('created_at').orderBy('id').execute();
    },

    /** Active endpoints of the workspace that take this event type. */
    async subscribedEndpoints(tx: Executor, workspaceId: string, type: string): Promise<string[]> {
      const rows = await tx
        .selectFrom('webhook_endpoints')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .where('is_active', '=', true)
        .where((eb) => eb.or([sql<boolean>`event_types @> ARRAY[${type}]::text[]`, sql<boolean>`event_types @> ARRAY['*']::text[]`]))
        .execute();
      return rows.map((r) => r.id);
    },

    async insertDeliveries(
      tx: Executor,
      rows: { id: string; workspace_id: string; webhook_id: string; event_id: string; event_type: string; next_attempt_at: Date; created_at: Date }[],
    ): Promise<void> {
      if (rows.length) await tx.insertInto('webhook_deliveries').values(rows).execute();
    },

    // ---- endpoints ----

    async countEndpoints(tx: Executor, workspaceId: string): Promise<number> {
      const row = await tx.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number>().as('n')).where('workspace_id', '=', workspaceId).executeTakeFirstOrThrow();
      return row.n;
    },

    async insertEndpoint(
      tx: Executor,
      row: { id: string; workspace_id: string; url: string; description: string | null; event_types: string[]; secret: string; created_at: Date; updated_at: Date },
    ) {
      return tx.insertInto('webhook_endpoints').values(row).returning(endpointColumns).executeTakeFirstOrThrow();
    },

    async listEndpoints(workspaceId: string, tx: Executor = db) {
      return tx.selectFrom('webhook_endpoints').select(endpointColumns).where('workspace_id', '=', workspaceId).orderBy('created_at').orderBy('id').execute();
    },

    async findEndpoint(workspaceId: string, id: string, tx: Executor = db) {
      return tx.selectFrom('webhook_endpoints').select(endpointColumns).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
    },

    async updateEndpoint(
      tx: Executor,
      workspaceId: string,
      id: string,
      patch: {
        url?: string;
        description?: string | null;
        event_types?: string[];
        is_active?: boolean;
        disabled_reason?: null;
        consecutive_failures?: number;
        secret?: string;
        previous_secret?: string | null;
        previous_secret_expires_at?: Date | null;
        updated_at: Date;
      },
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
      workspaceId: string,
      id: string,
      outcome: 'succeeded' | 'failed' | 'gone',
      disableAfter: number,
      now: Date,
      tx: Executor = db,
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

    async listDeliveries(workspaceId: string, webhookId: string, status: string | undefined, offset: number, limit: number, tx: Executor = db) {
      let q = tx.selectFrom('webhook_deliveries as d').where('d.workspace_id', '=', workspaceId).where('d.webhook_id', '=', webhookId);
      if (status) q = q.where('d.status', '=', status as 'pending');
      const [rows, count] = await Promise.all([
        q.select(deliveryColumns).orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').offset(offset).limit(limit).execute(),
        q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: count.n };
    },

    async findDelivery(workspaceId: string, webhookId: string, id: string, tx: Executor = db) {
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
    async claim(now: Date, leaseUntil: Date, limit: number, only?: { workspaceId: string; ids: string[] }): Promise<ClaimedDelivery[]> {
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
                  ev.created_at AS event_created_at`.execute(db);
      return rows;
    },

    /**
     * The outcomes of attempts, in one statement: `succeeded` or `failed` end a delivery, `pending` waits for `nextAt`.
     */
    async recordAttempts(
      results: { workspaceId: string; id: string; status: 'pending' | 'succeeded' | 'failed'; nextAt: Date | null; entry: AttemptLogEntry; now: Date }[],
      tx: Executor = db,
    ): Promise<void> {
      if (results.length === 0) return;
      const values = results.map(
        (r) =>
          sql`(${r.id}::uuid, ${r.workspaceId}::uuid, ${r.status}, ${r.nextAt}::timestamptz, ${r.entry.status_code}::integer, ${r.entry.error}::text,
               ${JSON.stringify([r.entry])}::jsonb, ${r.now}::timestamptz)`,
      );
      await sql`
        UPDATE webhook_deliveries d
        SET status = v.status, next_attempt_at = v.next_at, last_status_code = v.code, last_error = v.err,
            attempt_log = d.attempt_log || v.entry,
            succeeded_at = CASE WHEN v.status = 'succeeded' THEN v.now ELSE d.succeeded_at END
        FROM (VALUES ${sql.join(values)}) AS v(id, workspace_id, status, next_at, code, err, entry, now)
        WHERE d.id = v.id AND d.workspace_id = v.workspace_id`.execute(tx);
    },

    /** Deletes events (and with them their deliveries) recorded before `before`, a batch at a time. */
    async deleteEventsBefore(before: Date, batch: number): Promise<number> {
      const res = await sql`
        DELETE FROM events WHERE id IN (SELECT id FROM events WHERE created_at < ${before} ORDER BY created_at LIMIT ${batch})`.execute(db);
      return Number(res.numAffectedRows ?? 0);
    },
  };
}
