/**
 * The "minimal twin" of each hot endpoint, for `npm run bench` only: registered in the real server process by
 * `bench/server.ts`, under /bench/min/ (outside /api/, so the app's auth hook skips them). Each twin runs the
 * same SQL statements as the real endpoint, in the same order and transactions, through a raw pool (no query
 * builder, no services, no schema validation or serialisation): the token with the caller's membership, the
 * endpoint's own queries, then JSON.stringify of the rows. What it leaves out is exactly the framework and domain work whose cost
 * the real/minimal ratio measures. Not part of the product; `src/` never registers it.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DatabaseHandle, Tx } from '../src/db/database.js';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { nameStatements } from '../src/db/named-statements.js';
import type { Database } from '../src/db/schema.js';
import { systemClock } from '../src/kernel/clock.js';
import { createEventBus } from '../src/kernel/events.js';
import type { Outbox } from '../src/kernel/outbox.js';
import { createSlaService, slaRepository } from '../src/modules/sla/index.js';
import { createOutbox, webhooksRepository } from '../src/modules/webhooks/index.js';
import { issueSnapshot } from '../src/modules/work-items/work-items.views.js';
import { type Query, rawKysely } from './raw.js';

const NO_OUTBOX: Outbox<Tx> = { record: async () => '', recordMany: async (_tx, events) => events.map(() => '') };

const sha256 = (v: string) => createHash('sha256').update(v).digest('hex');

/** The token and the caller's membership of the path's workspace in one statement, as the real auth hook reads them. */
const TOKEN_SQL = `select t.id, t.user_id, t.last_used_at, u.is_instance_admin, m.workspace_id, m.role from api_tokens as t
  inner join users as u on u.id = t.user_id
  left join workspaces as w on w.slug = $3
  left join workspace_members as m on m.workspace_id = w.id and m.user_id = t.user_id
  where t.token_hash = $1 and t.revoked_at is null and (t.expires_at is null or t.expires_at > $2)`;
const ISSUE_COLS = `id, workspace_id, project_id, sequence_id, name, description, state_id, state_group, priority, assignee_ids,
  created_by, created_at, updated_at, completed_at`;
/** An issue's columns since contract 18.1 (work-items.repository issueColumns, read by every issue statement): ISSUE_COLS and the planning fields. */
const ISSUE_LIST_COLS = `${ISSUE_COLS}, start_date, target_date, estimate_minutes, remaining_minutes, time_spent_minutes`;
/**
 * `order_by` keys of the issue-list twin (contract 18.1 planning sorts, and sequence_id as their reference): nulls last
 * either way, ties by sequence_id descending, as the real endpoint's statement.
 */
const PLANNING_SORTS = new Set(['start_date', 'target_date', 'estimate_minutes', 'sequence_id']);

class Http extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface Ctx {
  userId: string;
  membership: { workspace_id: string; role: string } | null;
}

async function authenticate(q: Query, req: FastifyRequest): Promise<Ctx> {
  const header = req.headers.authorization ?? '';
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  if (!token) throw new Http(401, 'unauthenticated');
  const slug = (req.params as P).slug ?? null;
  const { rows } = await q<{ user_id: string; workspace_id: string | null; role: string | null }>(TOKEN_SQL, [sha256(token), new Date(), slug]);
  if (!rows[0]) throw new Http(401, 'unauthenticated');
  const { user_id, workspace_id, role } = rows[0];
  return { userId: user_id, membership: workspace_id && role ? { workspace_id, role } : null };
}

function member(membership: Ctx['membership'], write = false): string {
  if (!membership) throw new Http(404, 'not found');
  if (write && membership.role === 'guest') throw new Http(403, 'forbidden');
  return membership.workspace_id;
}

/**
 * The twins' own pool on PostgreSQL runs statements with parameters as named prepared statements, as the service's
 * pool does (src/db/named-statements.ts): the ratio then compares the code, not the protocol.
 */
function namedPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  nameStatements(pool);
  return pool;
}

const send = (reply: FastifyReply, status: number, body: unknown) =>
  reply.code(status).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(body));

type P = Record<string, string>;

export async function registerMinimalRoutes(app: FastifyInstance, database: DatabaseHandle): Promise<void> {
  const url = process.env.DATABASE_URL;
  // On PostgreSQL a pool of the twins' own (no builder: raw text through Kysely's executor); PGlite has one connection.
  const own = database.kind === 'postgres' && url ? new Kysely<Database>({ dialect: new PostgresDialect({ pool: namedPool(url) }) }) : null;
  const kdb = own ?? database.db;
  const raw = rawKysely(kdb);
  const sla = slaRepository();
  app.addHook('onClose', async () => {
    await raw.close();
    await own?.destroy();
  });
  // The SLA module's own work on issue.created (history, tracker, re-targeting on the working-time clock) and the
  // outbox record: the same functions, hence the same SQL, as the real endpoint, so the twin cannot drift from it.
  const events = createEventBus<Tx>();
  createSlaService({ db: database.db, repo: sla, clock: systemClock, identity: undefined as never, outbox: NO_OUTBOX }).subscribe(events);
  const outbox = createOutbox({ repo: webhooksRepository(), clock: systemClock });
  const { query } = raw;

  const route = (method: 'GET' | 'POST' | 'PUT', path: string, handler: (req: FastifyRequest, ctx: Ctx) => Promise<[number, unknown]>) =>
    app.route({
      method,
      url: `/bench/min${path}`,
      handler: async (req, reply) => {
        try {
          const ctx = await authenticate(query, req);
          const [status, body] = await handler(req, ctx);
          return send(reply, status, body);
        } catch (error) {
          if (error instanceof Http) return send(reply, error.status, { code: error.message });
          throw error;
        }
      },
    });

  // GET issue SLA tracker: the SLA repository's own read (the view's joins of policy, rule and calendar)
  route('GET', '/workspaces/:slug/issues/:issueId/sla/', async (req, { membership }) => {
    const p = req.params as P;
    const ws = member(membership);
    const found = await sla.findIssueTracker(kdb, ws, p.issueId!);
    if (!found) throw new Http(404, 'not_found');
    if (!found.tracker) throw new Http(404, 'sla_not_applicable');
    return [200, found.tracker];
  });

  // GET sla-breached (first page): the same page query, and the count only when the page is full (as the service)
  route('GET', '/workspaces/:slug/sla-breached/', async (req, { membership }) => {
    const qs = req.query as P;
    const offset = Number(qs.offset ?? 0);
    const perPage = Number(qs.per_page ?? 20);
    const ws = member(membership);
    const now = new Date();
    const rows = await sla.listBreached(kdb, ws, now, { offset, per_page: perPage });
    const total = rows.length < perPage && (rows.length > 0 || offset === 0) ? offset + rows.length : await sla.countBreached(kdb, ws, now);
    return [200, { results: rows, total, offset, per_page: perPage }];
  });

  // GET custom values of an issue
  route('GET', '/workspaces/:slug/projects/:projectId/issues/:issueId/custom-values/', async (req, { membership }) => {
    const p = req.params as P;
    const ws = member(membership);
    const issue = await query(`select ${ISSUE_LIST_COLS} from issues where workspace_id = $1 and id = $2`, [ws, p.issueId]);
    if (!issue.rows[0] || issue.rows[0].project_id !== p.projectId) throw new Http(404, 'not_found');
    const [props, values] = await Promise.all([
      query(
        `select id, workspace_id, project_id, name, description, type, options, is_required, created_at, updated_at
         from custom_properties where workspace_id = $1 and project_id = $2 order by created_at, id`,
        [ws, p.projectId],
      ),
      query(`select property_id, value from custom_values where workspace_id = $1 and issue_id = $2`, [ws, p.issueId]),
    ]);
    const byId = new Map(values.rows.map((v) => [v.property_id, v.value]));
    return [200, props.rows.map((r) => ({ property_id: r.id, name: r.name, type: r.type, value: byId.get(r.id) ?? null }))];
  });

  // GET subscription with limits
  route('GET', '/workspaces/:slug/billing/subscription/', async (req, { membership }) => {
    return raw.tx(async (q) => {
      const ws = member(membership);
      // The workspace's billing time: with the sandbox provider (the bench's), its test clock's offset.
      await q(`select offset_seconds from billing_test_clocks where workspace_id = $1`, [ws]);
      const sub = await q(`select * from subscriptions where workspace_id = $1`, [ws]);
      const plan = await q(
        `select slug, name, max_users, max_projects, max_storage_gb, ai_tokens_monthly, features, price_month, price_year,
           currency, trial_days, is_active, sort_order from plans where slug = $1`,
        [sub.rows[0]?.plan_slug ?? 'free'],
      );
      return [200, { subscription: sub.rows[0] ?? null, limits: plan.rows[0] }];
    });
  });

  // GET baseline deviation
  route('GET', '/workspaces/:slug/baselines/:baselineId/deviation/', async (req, { membership }) => {
    const p = req.params as P;
    const limit = Number((req.query as P).items_limit ?? 100);
    return raw.tx(async (q) => {
      const ws = member(membership);
      const b = await q(`select * from baselines where workspace_id = $1 and id = $2`, [ws, p.baselineId]);
      if (!b.rows[0]) throw new Http(404, 'not_found');
      const projectId = b.rows[0].project_id;
      const groups = await q(
        `select state_group, priority, count(*) as n from issues where workspace_id = $1 and project_id = $2 group by state_group, priority`,
        [ws, projectId],
      );
      const changes = await q(DEVIATION_SQL, [ws, projectId, p.baselineId, limit]);
      return [200, { baseline: b.rows[0], current: groups.rows, items: changes.rows }];
    }, 'isolation level repeatable read read only');
  });

  // GET issue list (with a custom-value filter `custom.<id>=<value>`)
  route('GET', '/workspaces/:slug/projects/:projectId/issues/', async (req, { membership }) => {
    const p = req.params as P;
    const qs = req.query as P;
    const offset = Number(qs.offset ?? 0);
    const perPage = Number(qs.per_page ?? 20);
    const ws = member(membership);
    const project = await query(
      `select id, workspace_id, name, identifier, description, sla_policy_id, created_by, created_at, updated_at
       from projects where workspace_id = $1 and id = $2`,
      [ws, p.projectId],
    );
    if (!project.rows[0]) throw new Http(404, 'not_found');
    const filters = Object.entries(qs).filter(([k]) => k.startsWith('custom.'));
    const params: unknown[] = [ws, p.projectId];
    let where = 'i.workspace_id = $1 and i.project_id = $2';
    if (filters.length) {
      const ids = filters.map(([k]) => k.slice('custom.'.length));
      const props = await query(
        `select id, type, options from custom_properties where workspace_id = $1 and project_id = $2 and id in (${ids.map((_, n) => `$${n + 3}`).join(', ')})`,
        [ws, p.projectId, ...ids],
      );
      for (const [key, value] of filters) {
        const id = key.slice('custom.'.length);
        if (!props.rows.some((r) => r.id === id)) throw new Http(400, 'validation_failed');
        params.push(id, value, value);
        const n = params.length;
        where += ` and exists (select 1 as one from custom_values as cv where cv.workspace_id = i.workspace_id and cv.issue_id = i.id and cv.property_id = $${n - 2}
          and md5(cv.value_text) = md5($${n - 1}) and cv.value_text = $${n})`;
      }
    }
    // order_by (planning keys only, for bench/time-tracking.ts): the real endpoint's statement, its columns included.
    const orderBy = qs.order_by;
    const sortKey = orderBy?.replace(/^-/, '');
    if (orderBy !== undefined && !PLANNING_SORTS.has(sortKey!)) throw new Http(400, 'validation_failed');
    const order = sortKey ? `i.${sortKey} ${orderBy!.startsWith('-') ? 'DESC' : 'ASC'} NULLS LAST, ` : '';
    const [rows, count] = await Promise.all([
      query(
        `select ${ISSUE_LIST_COLS.split(',')
          .map((c) => `i.${c.trim()}`)
          .join(', ')} from issues as i where ${where}
         order by ${order}i.sequence_id desc offset $${params.length + 1} limit $${params.length + 2}`,
        [...params, offset, perPage],
      ),
      // unfiltered, the count the database keeps on the project (migration 1070), as the service reads it
      filters.length
        ? query(`select count(*) as n from issues as i where ${where}`, params)
        : query(`select issue_count as n from projects where workspace_id = $1 and id = $2`, [ws, p.projectId]),
    ]);
    return [200, { results: rows.rows, total: Number(count.rows[0]!.n), offset, per_page: perPage }];
  });

  // POST create issue (with the SLA module's work on issue.created, in the same transaction)
  route('POST', '/workspaces/:slug/projects/:projectId/issues/', async (req, { userId, membership }) => {
    const p = req.params as P;
    const body = (req.body ?? {}) as { name?: string; priority?: string };
    const name = typeof body.name === 'string' ? body.name.trim() : '';
    if (!name) throw new Http(400, 'validation_failed');
    return raw.tx(async (q, conn) => {
      const ws = member(membership, true);
      const project = await q(`select id from projects where workspace_id = $1 and id = $2`, [ws, p.projectId]);
      if (!project.rows[0]) throw new Http(404, 'not_found');
      const state = await q(
        `select id, project_id, name, "group", color, sequence, is_default, created_at, updated_at from states
         where workspace_id = $1 and project_id = $2 order by is_default desc, ("group" = 'backlog') desc, sequence limit 1`,
        [ws, p.projectId],
      );
      const st = state.rows[0]!;
      const seq = await q(`update projects set issue_seq = issue_seq + 1 where workspace_id = $1 and id = $2 returning issue_seq`, [ws, p.projectId]);
      const now = new Date();
      const issue = await q(
        `insert into issues (id, workspace_id, project_id, sequence_id, name, description, state_id, state_group, priority,
           assignee_ids, created_by, created_at, updated_at, completed_at)
         values ($1, $2, $3, $4, $5, '', $6, $7, $8, '{}', $9, $10, $10, $11) returning ${ISSUE_LIST_COLS}`,
        [
          randomUUID(),
          ws,
          p.projectId,
          seq.rows[0]!.issue_seq,
          name,
          st.id,
          st.group,
          body.priority ?? 'none',
          userId,
          now,
          st.group === 'completed' ? now : null,
        ],
      );
      const row = issue.rows[0]!;
      const tx = conn as Tx;
      await events.publish(tx, { type: 'issue.created', at: now, issue: issueSnapshot(row as Parameters<typeof issueSnapshot>[0]) });
      await outbox.record(tx, { workspaceId: ws, type: 'issue.created', data: row });
      return [201, row];
    });
  });

  // PUT a custom value
  route('PUT', '/workspaces/:slug/issues/:issueId/custom-values/:propertyId/', async (req, { membership }) => {
    const p = req.params as P;
    const value = ((req.body ?? {}) as { value?: unknown }).value;
    return raw.tx(async (q) => {
      const ws = member(membership, true);
      const issue = await q(`select ${ISSUE_LIST_COLS} from issues where workspace_id = $1 and id = $2`, [ws, p.issueId]);
      if (!issue.rows[0]) throw new Http(404, 'not_found');
      const prop = await q(
        `select id, workspace_id, project_id, name, description, type, options, is_required, created_at, updated_at
         from custom_properties where workspace_id = $1 and id = $2 for share`,
        [ws, p.propertyId],
      );
      const property = prop.rows[0];
      if (!property || property.project_id !== issue.rows[0].project_id) throw new Http(404, 'not_found');
      const text = typeof value === 'string' ? value : null;
      const num = typeof value === 'number' ? value : null;
      const stored = await q(
        `insert into custom_values (workspace_id, issue_id, property_id, value, value_text, value_number, value_date, value_bool,
           value_options, updated_at) values ($1, $2, $3, $4, $5, $6, null, null, null, $7)
         on conflict (issue_id, property_id) do update set value = excluded.value, value_text = excluded.value_text,
           value_number = excluded.value_number, value_date = excluded.value_date, value_bool = excluded.value_bool,
           value_options = excluded.value_options, updated_at = excluded.updated_at
         returning issue_id, property_id, value, updated_at`,
        [ws, p.issueId, p.propertyId, JSON.stringify(value), text, num, new Date()],
      );
      return [200, stored.rows[0]];
    });
  });
}

/** baselines.repository changes(): the same statement, with the same parameters. */
export const DEVIATION_SQL = `
  WITH cur AS (
    SELECT id, sequence_id, name, state_group, priority, target_date, estimate_minutes FROM issues WHERE workspace_id = $1 AND project_id = $2
  ), base AS (
    SELECT issue_id, sequence_id, name, state_group, priority, target_date, estimate_minutes, time_spent_minutes
    FROM baseline_items WHERE baseline_id = $3 AND workspace_id = $1
  ), diff AS (
    SELECT CASE WHEN b.issue_id IS NULL THEN 'added' WHEN c.id IS NULL THEN 'removed' ELSE 'changed' END AS kind,
      coalesce(c.id, b.issue_id) AS id, coalesce(c.sequence_id, b.sequence_id) AS sequence_id, coalesce(c.name, b.name) AS name,
      b.state_group AS from_state_group, b.priority AS from_priority, c.state_group AS to_state_group, c.priority AS to_priority
    FROM cur c FULL JOIN base b ON b.issue_id = c.id
    WHERE b.issue_id IS NULL OR c.id IS NULL OR b.state_group <> c.state_group OR b.priority <> c.priority
      OR (b.time_spent_minutes IS NOT NULL AND (b.target_date IS DISTINCT FROM c.target_date OR b.estimate_minutes IS DISTINCT FROM c.estimate_minutes))
  )
  SELECT kind, id, sequence_id, name, from_state_group, from_priority, to_state_group, to_priority, kind_total, rn
  FROM (SELECT diff.*, row_number() OVER (PARTITION BY kind ORDER BY sequence_id, id)::int AS rn,
               count(*) OVER (PARTITION BY kind)::int AS kind_total FROM diff) ranked
  WHERE rn <= greatest($4::int, 1)
  ORDER BY kind, sequence_id, id`;
