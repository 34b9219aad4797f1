import type { Db, Executor, Tx } from '../../db/database.js';
import type { Clock } from '../../kernel/clock.js';
import type { Outbox } from '../../kernel/outbox.js';
import type { IdentityService } from '../identity/index.js';
import type { BillingRepository } from './billing.repository.js';
import type { PaytrConfig } from '../../config/config.js';
import type { PaytrClient, PaytrCredentials } from './provider/paytr/index.js';
import type { BillingTime } from './test-clock/test-clock.time.js';

/** The logging the service needs (pino's and Fastify's loggers fit). */
export interface BillingLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** What documents (invoices, credit notes) freeze at issue besides the workspace's billing profile (contract 19.4, 19.5). */
export interface DocumentSettings {
  /** BILLING_TAX_RATE_BP: the KDV rate in force, in basis points (2000 = 20 %). */
  taxRateBp: number;
  /** BILLING_SELLER_*: the seller printed on every document. */
  seller: { name: string; tax_id: string | null; tax_office: string | null; address: string | null };
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
  /** BILLING_RETRY_SCHEDULE: days after the period end that dunning retries the default card. */
  retryDays: number[];
  /** A workspace's billing time: the real clock plus its sandbox test clock's offset. */
  time: BillingTime;
  publicBaseUrl: string;
  log: BillingLogger;
  /** Events that leave the service (webhooks), recorded in the transaction of the change. */
  outbox: Outbox<Tx>;
  /** Tax rate and seller of the documents issued now. */
  documents: DocumentSettings;
  /**
   * PAYMENT_PROVIDER=paytr: PayTR's configuration for the service's card page (19.1), where a checkout with save_card
   * sends the browser instead of PayTR's iFrame. Absent or null with the sandbox, whose own page stores cards.
   */
  cardPage?: { paytr: PaytrConfig } | null;
  /** The workspace's stored and reserved bytes (attachments, contract 25.3), shown beside `max_storage_gb`. */
  storageUsage: (tx: Executor, workspaceId: string) => Promise<{ storage_used_bytes: number; storage_reserved_bytes: number }>;
}
