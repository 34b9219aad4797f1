-- Attachments and the plans' storage (contract 25).

-- Comments can be edited (25.1): `edited_at` is set by PATCH, null on comments never edited (every existing one).
ALTER TABLE comments ADD COLUMN edited_at timestamptz;

-- Attachments name their comment with the workspace (every tenant key carries workspace_id): a key to refer to.
CREATE UNIQUE INDEX comments_workspace_id_id_key ON comments (workspace_id, id);

-- One stored file on an issue, or on one of its comments. `storage_key` is made by the service from ids only (never
-- user input); `thumbnail_key` is set once the thumbnail of a raster image is stored (its bytes are in
-- `thumbnail_bytes`, counted in the quota). `image_width`/`image_height`: raster images under the pixel cap.
CREATE TABLE attachments (
  id              uuid PRIMARY KEY,
  workspace_id    uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  issue_id        uuid NOT NULL,
  comment_id      uuid,
  filename        text NOT NULL,
  content_type    text NOT NULL,
  size_bytes      bigint NOT NULL CHECK (size_bytes >= 0),
  sha256          text NOT NULL,
  storage_key     text NOT NULL,
  image_width     integer,
  image_height    integer,
  thumbnail_key   text,
  thumbnail_bytes bigint NOT NULL DEFAULT 0,
  created_by      uuid NOT NULL REFERENCES users (id),
  created_at      timestamptz NOT NULL,
  UNIQUE (workspace_id, id),
  FOREIGN KEY (workspace_id, issue_id) REFERENCES issues (workspace_id, id) ON DELETE CASCADE,
  FOREIGN KEY (workspace_id, comment_id) REFERENCES comments (workspace_id, id) ON DELETE CASCADE
);
CREATE INDEX attachments_issue_idx ON attachments (workspace_id, issue_id, created_at DESC);
CREATE INDEX attachments_comment_idx ON attachments (workspace_id, comment_id) WHERE comment_id IS NOT NULL;

-- The workspace's stored bytes, counted exactly (25.3): `used_bytes` is the sum of its attachments' bytes and
-- thumbnails; `reserved_bytes` the sum of its open reservations (uploads under way). A row is made at the first
-- upload; no row reads as zero. Not tied to the workspace by a foreign key: the row outlives it until the deletion
-- duty has removed the workspace's files.
CREATE TABLE storage_usage (
  workspace_id   uuid PRIMARY KEY,
  used_bytes     bigint NOT NULL DEFAULT 0 CHECK (used_bytes >= 0),
  reserved_bytes bigint NOT NULL DEFAULT 0 CHECK (reserved_bytes >= 0)
);

-- Space held for an upload under way: taken before its bytes are written, settled (moved to used_bytes) or released
-- after. `expires_at` lets the duty free the space of an upload whose instance died (multipart: an hour; tus: 24 h
-- after its last write), together with its partial file.
CREATE TABLE storage_reservations (
  id           uuid PRIMARY KEY,
  workspace_id uuid NOT NULL,
  bytes        bigint NOT NULL CHECK (bytes >= 0),
  storage_key  text NOT NULL,
  created_at   timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL
);
CREATE INDEX storage_reservations_workspace_idx ON storage_reservations (workspace_id);
CREATE INDEX storage_reservations_expires_idx ON storage_reservations (expires_at);

-- Stored files to remove (25.1): a deleted attachment, and every attachment of a deleted issue, comment or workspace
-- (the triggers below, in the transaction of the deletion, so a cascade forgets none). The deletion duty removes each
-- file and then its row; a file is named by its key only, so the duty never touches a file of another.
CREATE TABLE storage_deletions (
  id           bigserial PRIMARY KEY,
  workspace_id uuid NOT NULL,
  storage_key  text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION attachments_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO storage_deletions (workspace_id, storage_key)
    SELECT o.workspace_id, k.key FROM old_rows o
      CROSS JOIN LATERAL (VALUES (o.storage_key), (o.thumbnail_key)) AS k (key)
      WHERE k.key IS NOT NULL;
  -- The space is free at once (25.3); a workspace's row goes with it once its files are gone (the duty).
  UPDATE storage_usage u SET used_bytes = greatest(0, u.used_bytes - d.bytes)
    FROM (SELECT workspace_id, sum(size_bytes + thumbnail_bytes) AS bytes FROM old_rows GROUP BY workspace_id) d
    WHERE u.workspace_id = d.workspace_id;
  RETURN NULL;
END $$;

CREATE TRIGGER attachments_deleted AFTER DELETE ON attachments
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION attachments_deleted();
