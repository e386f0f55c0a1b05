-- Purchases and their clients, events, idempotency records and outgoing messages.
-- Every table carries account_id and every query filters by it (tenancy: docs/architecture.md#scale-and-tenancy).

CREATE TABLE clients (
  id          uuid PRIMARY KEY,
  account_id  uuid NOT NULL REFERENCES accounts (id),
  ref         text,
  email       text NOT NULL,
  first_name  text,
  last_name   text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
-- A client is one per account by the merchant's ref, else by e-mail (docs/api-conventions.md#clients).
CREATE UNIQUE INDEX clients_account_ref_key ON clients (account_id, ref) WHERE ref IS NOT NULL;
CREATE UNIQUE INDEX clients_account_email_key ON clients (account_id, lower(email)) WHERE ref IS NULL;

CREATE TABLE purchases (
  id                uuid PRIMARY KEY,
  account_id        uuid NOT NULL REFERENCES accounts (id),
  offer_id          uuid NOT NULL REFERENCES offers (id),
  client_id         uuid NOT NULL REFERENCES clients (id),
  state             text NOT NULL CHECK (state IN ('CREATED', 'ABORTED', 'LEADER_PROCESSED', 'SUCCESSFUL', 'FAILED', 'CANCELLED', 'REFUNDED')),
  comment           text NOT NULL,
  ref               text,
  title             text NOT NULL,
  subtitle          text,
  description       text,
  picture_url       text,
  amount_cents      bigint NOT NULL CHECK (amount_cents >= 0),
  currency          text NOT NULL,
  language          text NOT NULL,
  phone_number      text,
  callback_url      text,
  cancel_url        text,
  notification_url  text,
  metadata          jsonb NOT NULL DEFAULT '{}',
  products          jsonb NOT NULL DEFAULT '[]',
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL
);
CREATE INDEX purchases_account_created_idx ON purchases (account_id, created_at DESC, id DESC);
CREATE INDEX purchases_account_ref_idx ON purchases (account_id, ref);
CREATE INDEX purchases_account_client_idx ON purchases (account_id, client_id, created_at DESC);

-- Written in the same transaction as the state change it records; the delivery worker sends them.
CREATE TABLE purchase_events (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id   uuid NOT NULL REFERENCES accounts (id),
  purchase_id  uuid NOT NULL REFERENCES purchases (id),
  type         text NOT NULL,
  from_state   text,
  to_state     text NOT NULL,
  data         jsonb NOT NULL DEFAULT '{}',
  created_at   timestamptz NOT NULL
);
CREATE INDEX purchase_events_purchase_idx ON purchase_events (account_id, purchase_id, id);

CREATE TABLE idempotency_keys (
  account_id       uuid NOT NULL REFERENCES accounts (id),
  endpoint         text NOT NULL,
  key              text NOT NULL,
  request_hash     text NOT NULL,
  response_status  integer,
  response_body    text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  expires_at       timestamptz NOT NULL,
  PRIMARY KEY (account_id, endpoint, key)
);
CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at);

-- Every e-mail and SMS the service sends, with its outcome: the audit trail and the sandbox inbox.
CREATE TABLE outbound_messages (
  id           uuid PRIMARY KEY,
  account_id   uuid NOT NULL REFERENCES accounts (id),
  purchase_id  uuid REFERENCES purchases (id),
  channel      text NOT NULL CHECK (channel IN ('email', 'sms')),
  recipient    text NOT NULL,
  subject      text,
  body         text NOT NULL,
  accepted     boolean NOT NULL,
  error        text,
  provider_id  text,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX outbound_messages_account_idx ON outbound_messages (account_id, created_at DESC);
