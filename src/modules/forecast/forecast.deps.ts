import type { Db } from '../../db/database.js';
import type { Clock } from '../../kernel/clock.js';
import type { IdentityService } from '../identity/index.js';
import type { WorkItemsService } from '../work-items/index.js';
import type { ForecastRepository } from './forecast.repository.js';

/** What the forecast needs: its queries, the clock (the current week and today), access checks and the project. */
export interface ForecastDeps {
  db: Db;
  repo: ForecastRepository;
  clock: Clock;
  identity: Pick<IdentityService, 'access'>;
  workItems: Pick<WorkItemsService, 'findProject'>;
}
