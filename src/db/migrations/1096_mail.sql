-- E-mail (contract 26.3): the users' time zones and mail settings, the queue of notifications waiting to be mailed
-- (instant batches and daily digests), the mail outbox with each mail's fate, and the key that signs unsubscribe links.

-- A user's IANA time zone (the digest hour is read in it).
ALTER TABLE users ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC';

-- A user's e-mail settings; no row: the defaults (instant, digest at 8, every kind on). `kinds_off` lists the kinds
-- that are not e-mailed (inbox only), so a kind added later is e-mailed by default.
CREATE TABLE mail_settings (
  user_id     uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  email       text NOT NULL DEFAULT 'instant' CHECK (email IN ('instant', 'digest', 'off')),
  digest_hour smallint NOT NULL DEFAULT 8 CHECK (digest_hour BETWEEN 0 AND 23),
  kinds_off   text[] NOT NULL DEFAULT '{}',
  updated_at  timestamptz NOT NULL
);

-- A notification waiting to be mailed: `instant` ones are composed into one mail per user once the first is due (the
-- batching window), `digest` ones at the user's digest hour. What the mail shows is copied here (`payload`), so the
-- mail does not depend on the inbox's rows. A row is deleted once its mail is queued in mail_outbox.
CREATE TABLE mail_notifications (
  id              uuid PRIMARY KEY,
  workspace_id    uuid NOT NULL,
  user_id         uuid NOT NULL,
  notification_id uuid NOT NULL,
  kind            text NOT NULL,
  delivery        text NOT NULL CHECK (delivery IN ('instant', 'digest')),
  due_at          timestamptz NOT NULL,
  payload         jsonb NOT NULL,
  created_at      timestamptz NOT NULL
);
-- The duty: users with items due, soonest first.
CREATE INDEX mail_notifications_due_idx ON mail_notifications (due_at, user_id);
CREATE INDEX mail_notifications_user_idx ON mail_notifications (user_id, delivery, created_at);

-- The outbox: one row per mail, sent after the transaction that queued it commits. `message_id` is made at enqueue and
-- kept, so a retry is the same message. `next_attempt_at`: when the next attempt is due (pending), or the lease of the
-- attempt in flight; null once final. `last_answer`: the server's answer (or the connection error) of the last attempt.
CREATE TABLE mail_outbox (
  id              uuid PRIMARY KEY,
  message_id      text NOT NULL UNIQUE,
  category        text NOT NULL,
  to_address      text NOT NULL,
  subject         text NOT NULL,
  text_body       text NOT NULL,
  html_body       text NOT NULL,
  headers         jsonb NOT NULL DEFAULT '{}'::jsonb,
  user_id         uuid REFERENCES users (id) ON DELETE SET NULL,
  workspace_id    uuid,
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
  attempts        integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at timestamptz,
  last_answer     text,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  sent_at         timestamptz,
  failed_at       timestamptz,
  CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
);
-- The worker's claim: due pending mails, soonest first.
CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_at) WHERE status = 'pending';
-- The admin's list, newest first, optionally by state.
CREATE INDEX mail_outbox_list_idx ON mail_outbox (created_at DESC, id DESC);
CREATE INDEX mail_outbox_status_idx ON mail_outbox (status, created_at DESC, id DESC);

-- The key that signs unsubscribe links: one row, made on first use (INSERT ... ON CONFLICT DO NOTHING), the same for
-- every instance and across restarts.
CREATE TABLE mail_signing_keys (
  id         smallint PRIMARY KEY CHECK (id = 1),
  secret     text NOT NULL,
  created_at timestamptz NOT NULL
);
