import type { Db } from '../../db/database.js';
import type { Actor } from '../../kernel/actor.js';
import type { Clock } from '../../kernel/clock.js';
import { IANAZone } from 'luxon';
import { conflict, invalid } from '../../kernel/errors.js';
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

/** The canonical spelling of an IANA zone name (`europe/istanbul` -> `Europe/Istanbul`), or null if it is none. */
function canonicalZone(name: string): string | null {
  // Fixed offsets ("+03:00") are not zones: they would not follow daylight saving time.
  if (!IANAZone.isValidZone(name) || /^[+-]/.test(name)) return null;
  return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
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

    async update(actor: Actor, slug: string, input: { name?: string; time_zone?: string; search_language?: string }) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        // Only IANA names: a fixed offset ("+03:00") or an abbreviation would not follow daylight saving time.
        const timeZone = input.time_zone === undefined ? undefined : canonicalZone(input.time_zone);
        if (timeZone === null || (timeZone !== undefined && !(await repo.databaseKnowsZone(tx, timeZone)))) {
          throw invalid('/time_zone', 'is not an IANA time zone name (e.g. Europe/Istanbul)');
        }
        const language = input.search_language?.trim().toLowerCase();
        if (language !== undefined) {
          const languages = await repo.searchLanguages(tx);
          if (!languages.includes(language)) throw invalid('/search_language', `is not a search language here (one of ${languages.join(', ')})`);
        }
        const row = await repo.update(tx, ws.workspaceId, {
          ...(input.name !== undefined && { name: input.name.trim() }),
          ...(timeZone !== undefined && { time_zone: timeZone }),
          ...(language !== undefined && { search_language: language }),
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
