-- SLA on working time (contract 11.1, 11.2): calendars, a policy's calendar and at-risk share, pausing states.

CREATE TABLE sla_calendars (
  id            uuid PRIMARY KEY,
  workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name          text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  description   text NOT NULL DEFAULT '',
  -- an IANA time zone name, checked by the service against the platform's time-zone data
  time_zone     text NOT NULL,
  -- [{day, start, end}] sorted by day (mon first) and start; validated by the service
  working_hours jsonb NOT NULL,
  -- [{date, name, recurring}]
  holidays      jsonb NOT NULL DEFAULT '[]'::jsonb,
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL,
  UNIQUE (workspace_id, id)
);
CREATE INDEX sla_calendars_workspace_idx ON sla_calendars (workspace_id, created_at, id);

ALTER TABLE sla_policies
  ADD COLUMN calendar_id uuid,
  ADD COLUMN at_risk_percent integer DEFAULT 75 CHECK (at_risk_percent BETWEEN 1 AND 99),
  -- a calendar in use cannot be deleted (the service answers 409 before this fires); NO ACTION, not RESTRICT, so
  -- that deleting a workspace cascades to both in one statement
  ADD CONSTRAINT sla_policies_calendar_fkey FOREIGN KEY (workspace_id, calendar_id)
    REFERENCES sla_calendars (workspace_id, id);
CREATE INDEX sla_policies_calendar_idx ON sla_policies (calendar_id) WHERE calendar_id IS NOT NULL;

ALTER TABLE states ADD COLUMN pauses_sla boolean NOT NULL DEFAULT false;
