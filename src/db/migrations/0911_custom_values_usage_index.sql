-- The usage counts of a select property are scoped by workspace as well as by property (every query on a tenant
-- table filters on workspace_id). The index they scan carries workspace_id too, so the count stays an index-only
-- scan. An index holds no data of its own: replacing it loses nothing.
CREATE INDEX custom_values_text_ws_idx ON custom_values (property_id, md5(value_text)) INCLUDE (workspace_id);
DROP INDEX custom_values_text_idx;
