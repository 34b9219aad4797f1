import type { Db } from '../../db/database.js';
import type { Actor } from '../../kernel/actor.js';
import type { Clock } from '../../kernel/clock.js';
import { conflict } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import type { IdentityService } from '../identity/index.js';
import type { WorkspacesRepository } from './workspaces.repository.js';
import { workspaceView } from './workspaces.views.js';

export interface WorkspacesDeps {
  db: Db;
  repo: WorkspacesRepository;
  clock: Clock;
  identity: Pick<IdentityService, 'access' | 'addOwner'>;
}

export type WorkspacesService = ReturnType<typeof createWorkspacesService>;

export function createWorkspacesService({ db, repo, clock, identity }: WorkspacesDeps) {
  return {
    async create(actor: Actor, input: { name: string; slug: string }) {
      return db.transaction().execute(async (tx) => {
        const now = clock.now();
        const row = await repo.insert(tx, {
          id: newId(),
          slug: input.slug,
          name: input.name.trim(),
          created_by: actor.userId,
          created_at: now,
          updated_at: now,
        });
        if (!row) throw conflict('A workspace with this slug already exists');
        await identity.addOwner(tx, row.id, actor.userId);
        return workspaceView(row, 'admin');
      });
    },

    async list(actor: Actor) {
      return (await repo.listForUser(db, actor.userId)).map((w) => workspaceView(w, w.role));
    },

    async get(actor: Actor, slug: string) {
      const ws = await identity.access(actor, slug, 'read');
      return workspaceView((await repo.findById(db, ws.workspaceId))!, ws.role);
    },

    async update(actor: Actor, slug: string, input: { name?: string }) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        const row = await repo.update(tx, ws.workspaceId, {
          ...(input.name !== undefined && { name: input.name.trim() }),
          updated_at: clock.now(),
        });
        return workspaceView(row, ws.role);
      });
    },

    async remove(actor: Actor, slug: string) {
      await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        await repo.delete(tx, ws.workspaceId);
      });
    },
  };
}
