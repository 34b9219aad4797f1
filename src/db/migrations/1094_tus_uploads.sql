-- Resumable uploads (contract 25.4, tus 1.0): what the service knows of an upload under way besides what tus keeps
-- (the bytes and tus's own info file or object, under the storage key `tus/<workspace id>/<upload id>`).

-- Reservations get a key that carries the workspace, so that an upload can refer to its reservation (every tenant key
-- carries workspace_id).
CREATE UNIQUE INDEX storage_reservations_workspace_id_id_key ON storage_reservations (workspace_id, id);

-- One tus upload under way: where its file goes (the issue, optionally one of its comments), its name and declared
-- length, who started it, and the space reserved for it at creation. The row lives as long as its reservation: the
-- reservation is settled when the upload becomes an attachment, released when it is terminated or fails, and freed by
-- the storage duty 24 h after the last write (its storage key, the tus files, is then removed), and each takes the row
-- with it. `finishing_at`: the last PATCH is turning it into an attachment (a second one is refused meanwhile).
CREATE TABLE tus_uploads (
  id             uuid PRIMARY KEY,
  workspace_id   uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  issue_id       uuid NOT NULL,
  comment_id     uuid,
  reservation_id uuid NOT NULL,
  storage_key    text NOT NULL,
  filename       text NOT NULL,
  upload_length  bigint NOT NULL CHECK (upload_length >= 0),
  created_by     uuid NOT NULL REFERENCES users (id),
  created_at     timestamptz NOT NULL,
  finishing_at   timestamptz,
  UNIQUE (workspace_id, id),
  FOREIGN KEY (workspace_id, issue_id) REFERENCES issues (workspace_id, id) ON DELETE CASCADE,
  FOREIGN KEY (workspace_id, comment_id) REFERENCES comments (workspace_id, id) ON DELETE CASCADE,
  FOREIGN KEY (workspace_id, reservation_id) REFERENCES storage_reservations (workspace_id, id) ON DELETE CASCADE
);
CREATE INDEX tus_uploads_reservation_idx ON tus_uploads (workspace_id, reservation_id);
