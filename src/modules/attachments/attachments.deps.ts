import type { Db, Tx } from '../../db/database.js';
import type { Clock } from '../../kernel/clock.js';
import type { Metrics } from '../../kernel/metrics.js';
import type { Outbox } from '../../kernel/outbox.js';
import type { PlanGate } from '../../kernel/plan-gate.js';
import type { IdentityService } from '../identity/index.js';
import type { WorkItemsService } from '../work-items/index.js';
import type { AttachmentsRepository } from './attachments.repository.js';
import type { FileStorage } from './attachments.storage.js';

// What attachments need, in a file of its own so that no part imports the file that composes them.

export interface AttachmentsDeps {
  db: Db;
  repo: AttachmentsRepository;
  clock: Clock;
  identity: Pick<IdentityService, 'access'>;
  /** The work-item core: the issue and comment an attachment belongs to (404 otherwise). */
  workItems: Pick<WorkItemsService, 'findIssue' | 'findComment'>;
  planGate: Pick<PlanGate<Tx>, 'storageLimitBytes'>;
  outbox: Outbox<Tx>;
  storage: FileStorage;
  /** ATTACHMENT_MAX_MB in bytes. */
  maxFileBytes: number;
  metrics: Metrics;
}
