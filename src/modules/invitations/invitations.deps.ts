import type { Db, Tx } from '../../db/database.js';
import type { AttemptLimiter } from '../../kernel/attempt-limiter.js';
import type { Clock } from '../../kernel/clock.js';
import type { MailQueue, Notifier } from '../../kernel/notices.js';
import type { PlanGate } from '../../kernel/plan-gate.js';
import type { IdentityService } from '../identity/index.js';
import type { InvitationsRepository } from './invitations.repository.js';
import type { PasswordResetRepository } from './password-reset.repository.js';

// What invitations and password reset need, in a file of its own so that no part imports the file that composes them.

export interface InvitationsDeps {
  db: Db;
  repo: InvitationsRepository;
  clock: Clock;
  identity: Pick<IdentityService, 'access' | 'resolveToken' | 'findUserByEmail' | 'hashPassword' | 'createAccount' | 'findMembership' | 'addMembership'>;
  /** Members plus pending invitations against the plan's `max_users` (the billing module counts both). */
  planGate: PlanGate<Tx>;
  /** The mail outbox (the mail module). */
  mail: MailQueue<Tx>;
  /** The inbox (the notifications module): `invited` for an existing account. */
  notifier: Notifier<Tx>;
  /** `PUBLIC_BASE_URL`: the links in the mails. */
  publicBaseUrl: string;
}

export interface PasswordResetDeps {
  db: Db;
  repo: PasswordResetRepository;
  clock: Clock;
  identity: Pick<IdentityService, 'findUserByEmail' | 'hashPassword' | 'resetPassword'>;
  mail: MailQueue<Tx>;
  publicBaseUrl: string;
  /** As sign-in's (contract 3): requests per e-mail and per client address, failed confirms per client address. */
  limiters: { byEmail: AttemptLimiter; byIp: AttemptLimiter };
  /** Waits this long (real time, not the clock's: it shapes the answer's latency); tests may pass a fake. */
  sleep?: (ms: number) => Promise<void>;
}
