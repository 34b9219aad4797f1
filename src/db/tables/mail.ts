import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date, Date>;
type Nullable<T> = ColumnType<T | null, T | null | undefined, T | null>;

export type EmailMode = 'instant' | 'digest' | 'off';
export type MailStatus = 'pending' | 'sent' | 'failed';

/** Migration 1096: a user's e-mail settings (contract 26.3); no row means the defaults. */
export interface MailSettingsTable {
  user_id: string;
  email: ColumnType<EmailMode, EmailMode | undefined, EmailMode>;
  digest_hour: ColumnType<number, number | undefined, number>;
  kinds_off: ColumnType<string[], string[] | undefined, string[]>;
  updated_at: Timestamp;
}

/** Migration 1096: a notification waiting to be mailed (an instant batch or a digest). */
export interface MailNotificationsTable {
  id: string;
  workspace_id: string;
  user_id: string;
  notification_id: string;
  kind: string;
  delivery: 'instant' | 'digest';
  due_at: Timestamp;
  payload: ColumnType<Record<string, unknown>, string, string>;
  created_at: Timestamp;
}

/** Migration 1096: the mail outbox, one row per mail with its fate. */
export interface MailOutboxTable {
  id: string;
  message_id: string;
  category: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string;
  headers: ColumnType<Record<string, string>, string | undefined, string>;
  user_id: Nullable<string>;
  workspace_id: Nullable<string>;
  status: ColumnType<MailStatus, MailStatus | undefined, MailStatus>;
  attempts: Generated<number>;
  next_attempt_at: Nullable<Date>;
  last_answer: Nullable<string>;
  created_at: Timestamp;
  updated_at: Timestamp;
  sent_at: Nullable<Date>;
  failed_at: Nullable<Date>;
}

/** Migration 1096: the one key that signs unsubscribe links. */
export interface MailSigningKeysTable {
  id: number;
  secret: string;
  created_at: Timestamp;
}

export interface MailTables {
  mail_settings: MailSettingsTable;
  mail_notifications: MailNotificationsTable;
  mail_outbox: MailOutboxTable;
  mail_signing_keys: MailSigningKeysTable;
}
