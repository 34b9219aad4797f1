-- Invitations (contract 26.4) and password reset (26.5). Tokens are 32 random bytes (base64url) handed out once in a
-- mail; only their sha256 (hex) is stored, so a leaked table holds no usable token.

-- An invitation to a workspace. Pending: not accepted, not revoked, not expired. `email` is stored normalized (trimmed,
-- lower case). `token_hash` is the live token; a resend replaces it (the old one is kept in invitation_retired_tokens).
CREATE TABLE invitations (
  id           uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  email        text NOT NULL,
  role         text NOT NULL CHECK (role IN ('admin', 'member', 'guest')),
  token_hash   text NOT NULL UNIQUE,
  invited_by   uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,
  accepted_at  timestamptz,
  accepted_by  uuid REFERENCES users (id) ON DELETE SET NULL,
  revoked_at   timestamptz
);
-- One open (not accepted, not revoked) invitation per e-mail and workspace: a second invite while one is open is 409;
-- an expired open one is revoked by the next invite of that e-mail.
CREATE UNIQUE INDEX invitations_open_email_idx ON invitations (workspace_id, email) WHERE accepted_at IS NULL AND revoked_at IS NULL;
-- The tenant key its retired tokens refer to (contract 15: no reference across workspaces).
CREATE UNIQUE INDEX invitations_workspace_id_idx ON invitations (workspace_id, id);

-- Tokens that a resend replaced: they answer 410 (not 404) until the invitation is gone.
CREATE TABLE invitation_retired_tokens (
  token_hash    text PRIMARY KEY,
  workspace_id  uuid NOT NULL,
  invitation_id uuid NOT NULL,
  retired_at    timestamptz NOT NULL,
  FOREIGN KEY (workspace_id, invitation_id) REFERENCES invitations (workspace_id, id) ON DELETE CASCADE
);

-- A password reset: single use, valid one hour. Confirming one uses up every other open reset of the user.
CREATE TABLE password_resets (
  id         uuid PRIMARY KEY,
  user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);
CREATE INDEX password_resets_user_idx ON password_resets (user_id) WHERE used_at IS NULL;
