import type { AttachmentsTables } from './tables/attachments.js';
import type { BaselinesTables } from './tables/baselines.js';
import type { BillingTables } from './tables/billing.js';
import type { CoreTables } from './tables/core.js';
import type { CustomPropertiesTables } from './tables/custom-properties.js';
import type { MailTables } from './tables/mail.js';
import type { NotificationsTables } from './tables/notifications.js';
import type { SavedViewsTables } from './tables/saved-views.js';
import type { SearchTables } from './tables/search.js';
import type { SlaTables } from './tables/sla.js';
import type { TimeTrackingTables } from './tables/time-tracking.js';
import type { WebhooksTables } from './tables/webhooks.js';

/** The whole database, as Kysely sees it: one table-types file per module. */
export interface Database
  extends
    CoreTables,
    SlaTables,
    CustomPropertiesTables,
    BaselinesTables,
    BillingTables,
    WebhooksTables,
    TimeTrackingTables,
    SavedViewsTables,
    SearchTables,
    AttachmentsTables,
    NotificationsTables,
    MailTables {}

// The sandbox provider's stored cards and recurring charges (migration 1061): a block of its own, merged into the
// interface above, so that it stays apart from the modules' tables.
import type { SandboxCardsTable, SandboxChargesTable } from './tables/sandbox-cards.js';

export interface Database {
  sandbox_cards: SandboxCardsTable;
  sandbox_charges: SandboxChargesTable;
}

// Invitations and password resets (migration 1097, contract 26.4 and 26.5).
import type { InvitationRetiredTokensTable, InvitationsTable, PasswordResetsTable } from './tables/invitations.js';

export interface Database {
  invitations: InvitationsTable;
  invitation_retired_tokens: InvitationRetiredTokensTable;
  password_resets: PasswordResetsTable;
}
