import type { Db, Tx } from '../../db/database.js';
import type { Clock } from '../../kernel/clock.js';
import type { Outbox } from '../../kernel/outbox.js';
import type { IdentityService } from '../identity/index.js';
import type { BillingRepository } from './billing.repository.js';
import type { PaytrClient, PaytrCredentials } from './provider/paytr/index.js';

/** The logging the service needs (pino's and Fastify's loggers fit). */
export interface BillingLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * What the parts of billing share, in its own file so that no part imports the file that composes it
 * (`billing.service.ts`).
 */
export interface BillingDeps {
  db: Db;
  repo: BillingRepository;
  clock: Clock;
  identity: Pick<IdentityService, 'access' | 'me'>;
  provider: PaytrClient;
  credentials: PaytrCredentials;
  graceDays: number;
  publicBaseUrl: string;
  log: BillingLogger;
  /** Events that leave the service (webhooks), recorded in the transaction of the change. */
  outbox: Outbox<Tx>;
}
