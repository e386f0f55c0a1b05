-- Event delivery (src/delivery/, docs/webhooks.md): each account's webhook endpoint, the
-- deliveries made from purchase_events (the outbox), and every attempt at sending one.
-- Scheduling times (next_attempt_at, created_at, started_at) are service-clock times, which the
-- sandbox may move forward; leases (locked_until) are wall-clock, like the jobs table's.

-- The outbox: an event is dispatched (turned into its deliveries) exactly once.
ALTER TABLE purchase_events ADD COLUMN dispatched_at timestamptz;
-- Events recorded before delivery existed are history: there is nothing to send for them.
UPDATE purchase_events SET dispatched_at = created_at;
CREATE INDEX purchase_events_undispatched_idx ON purchase_events (id) WHERE dispatched_at IS NULL;

-- One webhook endpoint per account. The token (sent in every payload) and the whsec_ signing
-- secret are sealed with the master key: the dashboard user can read them back.
CREATE TABLE webhook_endpoints (
  account_id       uuid PRIMARY KEY REFERENCES accounts (id),
  url              text NOT NULL,
  events           text[] NOT NULL,
  token_enc        text NOT NULL,
  secret_enc       text NOT NULL,
  -- Set when the endpoint answered 410 Gone; setting the URL again clears it.
  disabled_at      timestamptz,
  disabled_reason  text,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL
);

CREATE TABLE deliveries (
  id                uuid PRIMARY KEY,
  account_id        uuid NOT NULL REFERENCES accounts (id),
  purchase_id       uuid NOT NULL REFERENCES purchases (id),
  event_id          bigint NOT NULL REFERENCES purchase_events (id),
  kind              text NOT NULL CHECK (kind IN ('webhook', 'notification')),
  -- Webhooks: the trigger name (paymentProcessed, ...); notifications: NULL.
  trigger_name      text,
  -- Where it was last sent (webhooks follow the endpoint's current URL; http(s) or mailto:).
  url               text NOT NULL,
  -- The JSON body, as text so that its bytes and key order are kept. Webhooks: without the
  -- token, which is the endpoint's current one at send time. Notifications: the signed body.
  payload           text NOT NULL,
  status            text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled')),
  -- Attempts ever made, and failed attempts in a row since creation or the last replay.
  attempts          integer NOT NULL DEFAULT 0,
  failures          integer NOT NULL DEFAULT 0,
  next_attempt_at   timestamptz,
  locked_until      timestamptz,
  lease_id          uuid,
  last_status_code  integer,
  last_error        text,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL,
  completed_at      timestamptz,
  -- An event makes at most one webhook and one notification, however often it is dispatched.
  UNIQUE (event_id, kind)
);
CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at) WHERE status = 'pending';
-- The ordering rule: the earliest pending delivery of a purchase to a destination goes first.
CREATE INDEX deliveries_order_idx ON deliveries (account_id, purchase_id, kind, event_id) WHERE status = 'pending';
-- The back office lists newest first: (created_at, event_id, id) is the keyset of its cursor.
CREATE INDEX deliveries_account_idx ON deliveries (account_id, created_at DESC, event_id DESC, id DESC);
CREATE INDEX deliveries_purchase_idx ON deliveries (account_id, purchase_id, created_at DESC, event_id DESC, id DESC);

CREATE TABLE delivery_attempts (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id        uuid NOT NULL REFERENCES accounts (id),
  delivery_id       uuid NOT NULL REFERENCES deliveries (id),
  -- 1 for the first attempt of the delivery.
  attempt           integer NOT NULL,
  url               text NOT NULL,
  started_at        timestamptz NOT NULL,
  duration_ms       integer NOT NULL,
  status_code       integer,
  -- At most 1 KB of the answer.
  response_excerpt  text,
  error             text,
  -- succeeded | retry_scheduled | gave_up | endpoint_gone | cancelled | interrupted
  outcome           text NOT NULL,
  next_attempt_at   timestamptz
);
CREATE INDEX delivery_attempts_delivery_idx ON delivery_attempts (account_id, delivery_id, id);

-- Wakes the delivery workers of every process (LISTEN chipin_delivery) when an event or a
-- delivery is committed; a slow poll covers a missed notification.
CREATE FUNCTION chipin_notify_delivery() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('chipin_delivery', TG_TABLE_NAME);
  RETURN NULL;
END
$$;
CREATE TRIGGER purchase_events_notify_delivery AFTER INSERT ON purchase_events
  FOR EACH STATEMENT EXECUTE FUNCTION chipin_notify_delivery();
CREATE TRIGGER deliveries_notify_delivery AFTER INSERT ON deliveries
  FOR EACH STATEMENT EXECUTE FUNCTION chipin_notify_delivery();
