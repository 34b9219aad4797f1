import type { MailConfig } from '../../config/config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../kernel/clock.js';
import type { MailOutbox } from './mail.outbox.js';
import type { MailRepository } from './mail.repository.js';
import type { MailWorker } from './mail.worker.js';

// What the mail service needs, in a file of its own so that no part imports the file that composes them.

export interface MailDeps {
  db: Db;
  repo: MailRepository;
  clock: Clock;
  queue: MailOutbox;
  worker: MailWorker;
  config: Pick<MailConfig, 'batchWindowS' | 'smtpUrl' | 'retentionDays'>;
  publicBaseUrl: string;
  log?: { warn(obj: object, msg: string): void };
}
