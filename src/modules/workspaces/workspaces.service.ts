import type { Db } from '../../db/database.js';
import type { Actor } from '../../kernel/actor.js';
import type { Clock } from '../../kernel/clock.js';
import { conflict } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { iso } from '../../kernel/time.js';
import type { IdentityService, Role } from '../identity/index.js';
import type { WorkspacesRepository } from './workspaces.repository.js';

export interface WorkspacesDeps {
  db: Db;
  repo: WorkspacesRepository;
  clock: Clock;
  identity: Pick<IdentityService, 'access' | 'addOwner'>;
}

type Row = { id: string; slug: string; name: string; created_by: string; created_at: Date; updated_at: Date };

const view = (w: Row, role: Role) => ({
  id: w.id,
  slug: w.slug,
  name: w.name,
  created_by: w.created_by,
  created_at: iso(w.created_at),
  updated_at: iso(w.updated_at),
  role,
});

export type WorkspacesService = ReturnType<typeof createWorkspacesService>;

export function createWorkspacesService({ db, repo, clock, identity }: WorkspacesDeps) {
  return {
    async create(actor: Actor, input: { name: string; slug: string }) {
      return db.transaction().execute(async (tx) => {
        const row = await repo.insert(tx, {
          id: newId(),
          slug: input.slug,
          name: input.name.trim(),
          created_by: actor.userId,
          now: clock.now(),
        });
        if (!row) throw conflict('A workspace with this slug already exists');
        await identity.addOwner(tx, row.id, actor.userId);
        return view(row, 'admin');
      });
    },

    async list(actor: Actor) {
      return (await repo.listForUser(actor.userId)).map((w) => view(w, w.role));
    },

    async get(actor: Actor, slug: string) {
      const ws = await identity.access(actor, slug, 'read');
      return view((await repo.findById(ws.workspaceId))!, ws.role);
    },

    async update(actor: Actor, slug: string, input: { name?: string }) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        const row = await repo.update(tx, ws.workspaceId, {
          ...(input.name !== undefined && { name: input.name.trim() }),
          updated_at: clock.now(),
        });
        return view(row, ws.role);
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
