import type { Db, Tx } from '../../db/database.js';
import type { Clock } from '../../kernel/clock.js';
import type { Outbox } from '../../kernel/outbox.js';
import type { PlanGate } from '../../kernel/plan-gate.js';
import type { IdentityService } from '../identity/index.js';
import type { WorkItemsService } from '../work-items/index.js';
import type { TimeTrackingRepository } from './time-tracking.repository.js';

/** What the parts of time tracking share (worklogs and timer, timesheet, planning history). */
export interface TimeTrackingDeps {
  db: Db;
  repo: TimeTrackingRepository;
  clock: Clock;
  identity: Pick<IdentityService, 'access' | 'assertMembers'>;
  workItems: Pick<WorkItemsService, 'findIssue'>;
  /** Logging, editing and the timer need the plan's `time_tracking` feature; reads never do. */
  planGate: Pick<PlanGate<Tx>, 'assertFeature'>;
  /** `worklog.created|updated|deleted`, recorded in the transaction of the change. */
  outbox: Outbox<Tx>;
}
