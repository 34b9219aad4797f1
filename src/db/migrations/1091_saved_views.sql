-- Saved views (contract 23.3): a named set of issue-list filters and a sort, private to its owner or shared with
-- the workspace. `project_id` null: a view of the workspace-wide list. Filters are kept as the list takes them
-- (`{"state_id": ["..."], "assignee_id": ["me"]}`), so a value that names something deleted later matches nothing.
CREATE TABLE saved_views (
  id           uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  project_id   uuid,
  owner_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name         text NOT NULL,
  filters      jsonb NOT NULL DEFAULT '{}'::jsonb,
  order_by     text,
  shared       boolean NOT NULL DEFAULT false,
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL,
  FOREIGN KEY (workspace_id, project_id) REFERENCES projects (workspace_id, id) ON DELETE CASCADE
);

-- A member's views, and the shared ones: the two halves of the list.
CREATE INDEX saved_views_owner_idx ON saved_views (workspace_id, owner_id);
CREATE INDEX saved_views_shared_idx ON saved_views (workspace_id) WHERE shared;
