-- Identity, workspaces, projects, states, issues, comments: the work-item core.

CREATE TABLE users (
  id                uuid PRIMARY KEY,
  email             text NOT NULL,
  display_name      text NOT NULL,
  password_hash     text NOT NULL,
  is_instance_admin boolean NOT NULL DEFAULT false,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL,
  CONSTRAINT users_email_lower CHECK (email = lower(email))
);
CREATE UNIQUE INDEX users_email_key ON users (email);

CREATE TABLE api_tokens (
  id           uuid PRIMARY KEY,
  user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind         text NOT NULL CHECK (kind IN ('session', 'personal')),
  name         text NOT NULL,
  -- sha256 of the secret; the secret itself is shown once and never stored
  token_hash   text NOT NULL,
  prefix       text NOT NULL,
  created_at   timestamptz NOT NULL,
  expires_at   timestamptz,
  last_used_at timestamptz,
  revoked_at   timestamptz
);
CREATE UNIQUE INDEX api_tokens_hash_key ON api_tokens (token_hash);
CREATE INDEX api_tokens_user_idx ON api_tokens (user_id, kind, created_at DESC);

CREATE TABLE workspaces (
  id         uuid PRIMARY KEY,
  slug       text NOT NULL CHECK (slug ~ '^[a-z0-9][a-z0-9-]{1,47}$'),
  name       text NOT NULL,
  created_by uuid NOT NULL REFERENCES users (id),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX workspaces_slug_key ON workspaces (slug);

CREATE TABLE workspace_members (
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role         text NOT NULL CHECK (role IN ('admin', 'member', 'guest')),
  created_at   timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, user_id)
);
CREATE INDEX workspace_members_user_idx ON workspace_members (user_id);

CREATE TABLE projects (
  id            uuid PRIMARY KEY,
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name          text NOT NULL,
  identifier    text NOT NULL CHECK (identifier ~ '^[A-Z][A-Z0-9]{0,9}$'),
  description   text NOT NULL DEFAULT '',
  -- references sla_policies; the constraint is added by the SLA migration
  sla_policy_id uuid,
  issue_seq     integer NOT NULL DEFAULT 0,
  created_by    uuid NOT NULL REFERENCES users (id),
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL,
  UNIQUE (workspace_id, id)
);
CREATE UNIQUE INDEX projects_identifier_key ON projects (workspace_id, identifier);
CREATE INDEX projects_workspace_idx ON projects (workspace_id, created_at);

CREATE TABLE states (
  id           uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  project_id   uuid NOT NULL,
  name         text NOT NULL,
  "group"      text NOT NULL CHECK ("group" IN ('backlog', 'unstarted', 'started', 'completed', 'cancelled')),
  color        text NOT NULL,
  sequence     integer NOT NULL,
  is_default   boolean NOT NULL DEFAULT false,
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL,
  FOREIGN KEY (workspace_id, project_id) REFERENCES projects (workspace_id, id) ON DELETE CASCADE,
  UNIQUE (project_id, id)
);
CREATE UNIQUE INDEX states_name_key ON states (project_id, lower(name));

CREATE TABLE issues (
  id           uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  project_id   uuid NOT NULL,
  sequence_id  integer NOT NULL,
  name         text NOT NULL,
  description  text NOT NULL DEFAULT '',
  state_id     uuid NOT NULL,
  -- copy of the state's group: a state's group cannot change while issues use it, so this never goes stale
  state_group  text NOT NULL CHECK (state_group IN ('backlog', 'unstarted', 'started', 'completed', 'cancelled')),
  priority     text NOT NULL CHECK (priority IN ('urgent', 'high', 'medium', 'low', 'none')),
  assignee_ids uuid[] NOT NULL DEFAULT '{}',
  created_by   uuid NOT NULL REFERENCES users (id),
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL,
  completed_at timestamptz,
  FOREIGN KEY (workspace_id, project_id) REFERENCES projects (workspace_id, id) ON DELETE CASCADE,
  FOREIGN KEY (project_id, state_id) REFERENCES states (project_id, id)
);
CREATE UNIQUE INDEX issues_sequence_key ON issues (project_id, sequence_id);
CREATE INDEX issues_state_idx ON issues (project_id, state_group, sequence_id);
CREATE INDEX issues_priority_idx ON issues (project_id, priority, sequence_id);
CREATE INDEX issues_state_id_idx ON issues (state_id);

CREATE TABLE comments (
  id           uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  issue_id     uuid NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  author_id    uuid NOT NULL REFERENCES users (id),
  body         text NOT NULL,
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL
);
CREATE INDEX comments_issue_idx ON comments (issue_id, created_at);
