import type { Db } from '../../db/database.js';
import type { Clock } from '../../kernel/clock.js';
import type { IdentityService } from '../identity/index.js';
import type { WorkItemsService } from '../work-items/index.js';
import type { NotificationsRepository } from './notifications.repository.js';

// What the parts of the notifications module share, in a file of its own so that no part imports the file that
// composes them.

export interface NotificationsDeps {
  db: Db;
  repo: NotificationsRepository;
  clock: Clock;
  identity: Pick<IdentityService, 'access'>;
  /** The issue of a watch or watchers request (404 for an issue of another project). */
  workItems: Pick<WorkItemsService, 'findIssue'>;
}
