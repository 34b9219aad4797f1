import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date, Date>;
type NullableTimestamp = ColumnType<Date | null, Date | null | undefined, Date | null>;

/** Migration 1097: an invitation to a workspace (contract 26.4); only the token's sha256 is stored. */
export interface InvitationsTable {
  id: string;
  workspace_id: string;
  email: string;
  role: 'admin' | 'member' | 'guest';
  token_hash: string;
  invited_by: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  accepted_at: NullableTimestamp;
  accepted_by: ColumnType<string | null, string | null | undefined, string | null>;
  revoked_at: NullableTimestamp;
}

/** Migration 1097: the tokens a resend replaced (they answer 410). */
export interface InvitationRetiredTokensTable {
  token_hash: string;
  workspace_id: string;
  invitation_id: string;
  retired_at: Timestamp;
}

/** Migration 1097: a password reset (contract 26.5), single use, one hour. */
export interface PasswordResetsTable {
  id: string;
  user_id: string;
  token_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

export interface InvitationsTables {
  invitations: InvitationsTable;
  invitation_retired_tokens: InvitationRetiredTokensTable;
  password_resets: PasswordResetsTable;
}
