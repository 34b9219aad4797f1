-- Custom properties: per-project field definitions and their typed values on issues.

CREATE TABLE custom_properties (
  id           uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  project_id   uuid NOT NULL,
  name         text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  -- the name folded for the case-insensitive uniqueness check; computed by the service the same way on every database
  name_key     text NOT NULL,
  description  text NOT NULL DEFAULT '',
  type         text NOT NULL CHECK (type IN ('text', 'number', 'date', 'select', 'multi_select', 'checkbox', 'url')),
  options      text[] NOT NULL DEFAULT '{}',
  is_required  boolean NOT NULL DEFAULT false,
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL,
  FOREIGN KEY (workspace_id, project_id) REFERENCES projects (workspace_id, id) ON DELETE CASCADE,
  -- choice types carry their choices; the other types carry none
  CONSTRAINT custom_properties_options CHECK ((type IN ('select', 'multi_select')) = (cardinality(options) > 0))
);
CREATE UNIQUE INDEX custom_properties_name_key ON custom_properties (project_id, name_key);
CREATE INDEX custom_properties_project_idx ON custom_properties (project_id, created_at, id);
CREATE INDEX custom_properties_workspace_idx ON custom_properties (workspace_id);

CREATE TABLE custom_values (
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  issue_id      uuid NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  property_id   uuid NOT NULL REFERENCES custom_properties (id) ON DELETE CASCADE,
  -- the value exactly as the client sent it (after validation); what reads return
  value         jsonb NOT NULL,
  -- typed copies of the value, one per kind of filter, so the issue list filters through indexes
  value_text    text,
  value_number  double precision,
  value_date    timestamptz,
  value_bool    boolean,
  value_options text[],
  updated_at    timestamptz NOT NULL,
  PRIMARY KEY (issue_id, property_id)
);
-- md5: a text value may be longer than a btree entry allows; equality filters compare the hash, then the text.
-- Not partial, so it also serves lookups by property alone (option-in-use checks, the cascade on delete).
CREATE INDEX custom_values_text_idx ON custom_values (property_id, md5(value_text));
CREATE INDEX custom_values_number_idx ON custom_values (property_id, value_number) WHERE value_number IS NOT NULL;
CREATE INDEX custom_values_date_idx ON custom_values (property_id, value_date) WHERE value_date IS NOT NULL;
CREATE INDEX custom_values_bool_idx ON custom_values (property_id, value_bool) WHERE value_bool IS NOT NULL;
CREATE INDEX custom_values_options_idx ON custom_values USING gin (value_options);
CREATE INDEX custom_values_workspace_idx ON custom_values (workspace_id);
