import type { Db } from '../../db/database.js';
import type { Actor } from '../../kernel/actor.js';
import type { Clock } from '../../kernel/clock.js';
import type { IdentityService } from '../identity/index.js';
import type { WorkItemsService } from '../work-items/index.js';
import type { SavedViewsRepository } from './saved-views.repository.js';

// What the saved views need, in a file of its own so that no part imports the file that composes them.

/** The issue list (work items): a page of a project's issues, or (`projectId` null) of the whole workspace. */
export type IssueList = (actor: Actor, slug: string, projectId: string | null, query: Record<string, unknown>) => ReturnType<WorkItemsService['listIssues']>;

export interface SavedViewsDeps {
  db: Db;
  repo: SavedViewsRepository;
  clock: Clock;
  identity: Pick<IdentityService, 'access'>;
  listIssues: IssueList;
}
