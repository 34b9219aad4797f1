-- The built-in sandbox provider's stored cards and recurring charges (PayTR's card storage and Direct API, contract
-- 19.1, 19.2, 19.7). A card keeps only what PayTR's capi/list shows: never the card number.
CREATE TABLE sandbox_cards (
  ctoken     text PRIMARY KEY,
  utoken     text NOT NULL,
  last4      text NOT NULL CHECK (last4 ~ '^[0-9]{4}$'),
  brand      text NOT NULL,
  exp_month  integer NOT NULL CHECK (exp_month BETWEEN 1 AND 12),
  exp_year   integer NOT NULL CHECK (exp_year BETWEEN 2000 AND 2099),
  -- how later charges of this card end (the test card it was stored from)
  behaviour  text NOT NULL CHECK (behaviour IN ('success', 'insufficient_funds', 'card_closed', 'wait_callback', 'wait_callback_failed')),
  created_at timestamptz NOT NULL
);
CREATE INDEX sandbox_cards_utoken_idx ON sandbox_cards (utoken, created_at);

-- One row per charge of a stored card; a merchant_oid is charged at most once.
CREATE TABLE sandbox_charges (
  merchant_oid    text PRIMARY KEY,
  utoken          text NOT NULL,
  ctoken          text NOT NULL,
  amount          integer NOT NULL CHECK (amount > 0),
  currency        text NOT NULL,
  -- the outcome (also what the notification says) and the synchronous answer given (wait_callback defers the outcome)
  status          text NOT NULL CHECK (status IN ('success', 'failed')),
  answer          text NOT NULL CHECK (answer IN ('success', 'wait_callback', 'failed')),
  failure_reason  text,
  try_again       boolean,
  test_mode       boolean NOT NULL,
  refunded_amount integer NOT NULL DEFAULT 0 CHECK (refunded_amount >= 0 AND refunded_amount <= amount),
  created_at      timestamptz NOT NULL
);
CREATE INDEX sandbox_charges_created_idx ON sandbox_charges (created_at);
