import type { Db, Executor } from '../../db/database.js';
import type { Clock } from '../../kernel/clock.js';
import type { IdentityService } from '../identity/index.js';
import type { WorkItemsService } from '../work-items/index.js';
import type { SearchRepository } from './search.repository.js';

// What search needs, in a file of its own so that no part imports the file that composes it.

export interface SearchDeps {
  db: Db;
  repo: SearchRepository;
  clock: Clock;
  identity: Pick<IdentityService, 'access'>;
  /** The work-item core: issues as cards (key, state by name) and the project check (404). */
  workItems: {
    issueCards: WorkItemsService['issueCards'];
    findProject: (tx: Executor, workspaceId: string, projectId: string) => Promise<unknown>;
  };
}
