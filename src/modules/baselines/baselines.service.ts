import type { Db, Executor, Tx } from '../../db/database.js';
import type { Outbox } from '../../kernel/outbox.js';
import type { Actor } from '../../kernel/actor.js';
import type { Clock } from '../../kernel/clock.js';
import { invalid, notFound } from '../../kernel/errors.js';
import { pageOf, type PageQuery } from '../../kernel/pagination.js';
import { newId } from '../../kernel/ids.js';
import type { IdentityService } from '../identity/index.js';
import type { WorkItemsService } from '../work-items/index.js';
import type { BaselinesRepository } from './baselines.repository.js';
import { baselineView, type ChangeLists, changeLists, countsFromGroups, countsOfBaseline, DEFAULT_ITEMS_LIMIT, deviationOf } from './baselines.logic.js';

export interface BaselinesDeps {
  db: Db;
  repo: BaselinesRepository;
  clock: Clock;
  identity: Pick<IdentityService, 'access'>;
  workItems: Pick<WorkItemsService, 'findProject'>;
  outbox: Outbox<Tx>;
}

export type BaselinesService = ReturnType<typeof createBaselinesService>;

/** A REPEATABLE READ transaction that collided with a concurrent write (SQLSTATE 40001) is simply run again. */
async function retryOnSerializationFailure<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if ((error as { code?: string }).code !== '40001' || attempt >= attempts) throw error;
    }
  }
}

export function createBaselinesService(deps: BaselinesDeps) {
  const { db, repo, clock, identity, workItems, outbox } = deps;

  /**
   * Snapshot reads run in one REPEATABLE READ transaction: every statement sees the database as of the
   * transaction's first read, so counts and per-issue rows describe one instant even while issues are written.
   */
  const snapshotRead = () => db.transaction().setIsolationLevel('repeatable read');

  async function baselineOf(tx: Executor, workspaceId: string, baselineId: string) {
    const baseline = await repo.findBaseline(workspaceId, baselineId, tx);
    if (!baseline) throw notFound('Baseline');
    return baseline;
  }

  /** The baseline to compare with instead of now: of the same workspace (else 404) and the same project (else 400). */
  async function againstOf(tx: Executor, workspaceId: string, baseline: { project_id: string }, againstId: string) {
    const against = await repo.findBaseline(workspaceId, againstId, tx);
    if (!against) throw notFound('Baseline');
    if (against.project_id !== baseline.project_id) throw invalid('/querystring/against', 'must be a baseline of the same project');
    return against;
  }

  async function snapshot(actor: Actor, slug: string, projectId: string, input: { name: string }) {
    try {
      return await snapshotRead().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        await workItems.findProject(tx, ws.workspaceId, projectId);
        await repo.withoutJit(tx);
        const id = newId();
        await repo.insertBaseline(tx, {
          id,
          workspace_id: ws.workspaceId,
          project_id: projectId,
          name: input.name.trim(),
          created_by: actor.userId,
          now: clock.now(),
        });
        const view = baselineView(await repo.snapshotIssues(tx, ws.workspaceId, projectId, id));
        await outbox.record(tx, { workspaceId: ws.workspaceId, type: 'baseline.created', data: view });
        return view;
      });
    } catch (error) {
      // the project was deleted after this transaction's snapshot: its foreign key now fails
      if ((error as { code?: string }).code === '23503') throw notFound('Project');
      throw error;
    }
  }

  return {
    async list(actor: Actor, slug: string, projectId: string) {
      const ws = await identity.access(actor, slug, 'read');
      await workItems.findProject(db, ws.workspaceId, projectId);
      return (await repo.listBaselines(ws.workspaceId, projectId)).map(baselineView);
    },

    async create(actor: Actor, slug: string, projectId: string, input: { name: string }) {
      return retryOnSerializationFailure(() => snapshot(actor, slug, projectId, input));
    },

    async get(actor: Actor, slug: string, baselineId: string) {
      const ws = await identity.access(actor, slug, 'read');
      return baselineView(await baselineOf(db, ws.workspaceId, baselineId));
    },

    async deviation(actor: Actor, slug: string, baselineId: string, query: { items_limit?: number; against?: string } = {}) {
      const limit = query.items_limit ?? DEFAULT_ITEMS_LIMIT;
      return snapshotRead()
        .setAccessMode('read only')
        .execute(async (tx) => {
          const ws = await identity.access(actor, slug, 'read', tx);
          const baseline = await baselineOf(tx, ws.workspaceId, baselineId);
          const against = query.against ? await againstOf(tx, ws.workspaceId, baseline, query.against) : undefined;
          await repo.withoutJit(tx);
          const current = against ? countsOfBaseline(baselineView(against)) : countsFromGroups(await repo.currentGroups(tx, ws.workspaceId, baseline.project_id));
          const { rows, transitions } = await repo.changes(tx, ws.workspaceId, baseline.project_id, baseline.id, { limit, ...(against ? { against: against.id } : {}) });
          return {
            ...deviationOf(baselineView(baseline), current, changeLists(rows, limit), limit),
            against: against ? baselineView(against) : null,
            transitions,
          };
        });
    },

    /** One kind of the issue-by-issue comparison, paginated (against now, or another baseline). */
    async changes(
      actor: Actor,
      slug: string,
      baselineId: string,
      query: PageQuery & { kind: 'added' | 'removed' | 'changed'; against?: string },
    ) {
      return snapshotRead()
        .setAccessMode('read only')
        .execute(async (tx) => {
          const ws = await identity.access(actor, slug, 'read', tx);
          const baseline = await baselineOf(tx, ws.workspaceId, baselineId);
          const against = query.against ? await againstOf(tx, ws.workspaceId, baseline, query.against) : undefined;
          await repo.withoutJit(tx);
          const { rows } = await repo.changes(tx, ws.workspaceId, baseline.project_id, baseline.id, {
            limit: query.per_page,
            offset: query.offset,
            kind: query.kind,
            ...(against ? { against: against.id } : {}),
          });
          const inPage = rows.filter((r) => r.rn > query.offset && r.rn <= query.offset + query.per_page);
          const lists = changeLists(inPage, Number.MAX_SAFE_INTEGER);
          const items: ChangeLists[keyof ChangeLists]['items'] = lists[query.kind].items;
          return pageOf<(typeof items)[number]>(items, rows[0]?.kind_total ?? 0, query);
        });
    },

    async remove(actor: Actor, slug: string, baselineId: string) {
      await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        if (!(await repo.deleteBaseline(tx, ws.workspaceId, baselineId))) throw notFound('Baseline');
      });
    },
  };
}
