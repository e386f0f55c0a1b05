-- Hosted payment: saved payment methods, PSP transactions, the pot's pledges, installment plans.

ALTER TABLE purchases
  ADD COLUMN attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN leader_share_cents bigint CHECK (leader_share_cents > 0),
  ADD COLUMN pot_deadline_at timestamptz,
  ADD COLUMN guarantee_payment_id uuid,
  ADD COLUMN payment_method_id uuid;

-- A tokenised card: the PSP's token, brand, last four digits and expiry. Never the number or CVC.
CREATE TABLE payment_methods (
  id             uuid PRIMARY KEY,
  account_id     uuid NOT NULL REFERENCES accounts (id),
  purchase_id    uuid NOT NULL REFERENCES purchases (id),
  psp            text NOT NULL,
  psp_method_id  text NOT NULL,
  brand          text NOT NULL,
  last4          text NOT NULL,
  exp_month      integer NOT NULL,
  exp_year       integer NOT NULL,
  created_at     timestamptz NOT NULL
);

CREATE TABLE pledges (
  id            uuid PRIMARY KEY,
  account_id    uuid NOT NULL REFERENCES accounts (id),
  purchase_id   uuid NOT NULL REFERENCES purchases (id),
  client_id     uuid REFERENCES clients (id),
  name          text,
  email         text,
  phone_number  text,
  amount_cents  bigint NOT NULL CHECK (amount_cents > 0),
  position      integer NOT NULL,
  -- draft (until the leader has paid) → invited → paying (reserved while the PSP call runs)
  -- → paid; closed when the pot ends (full, deadline, cancelled) before it was paid.
  state         text NOT NULL CHECK (state IN ('draft', 'invited', 'paying', 'paid', 'closed')),
  paying_until  timestamptz,
  payment_id    uuid,
  paid_at       timestamptz,
  reminded_at   timestamptz,
  closed_reason text,
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL,
  CHECK (email IS NOT NULL OR phone_number IS NOT NULL)
);
CREATE INDEX pledges_purchase_idx ON pledges (account_id, purchase_id);

-- One row per PSP transaction we start. The idempotency key makes a retried call return the
-- stored outcome instead of charging twice.
CREATE TABLE payments (
  id                  uuid PRIMARY KEY,
  account_id          uuid NOT NULL REFERENCES accounts (id),
  purchase_id         uuid NOT NULL REFERENCES purchases (id),
  pledge_id           uuid REFERENCES pledges (id),
  purpose             text NOT NULL CHECK (purpose IN ('guarantee', 'leader_share', 'pledge', 'rest', 'first_installment', 'installment', 'deferred')),
  psp                 text NOT NULL,
  idempotency_key     text NOT NULL UNIQUE,
  psp_transaction_id  text,
  amount_cents        bigint NOT NULL CHECK (amount_cents > 0),
  captured_cents      bigint NOT NULL DEFAULT 0,
  refunded_cents      bigint NOT NULL DEFAULT 0,
  status              text NOT NULL CHECK (status IN ('pending', 'requires_action', 'authorized', 'captured', 'voided', 'refunded', 'declined', 'expired')),
  decline_reason      text,
  challenge_url       text,
  created_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL
);
CREATE INDEX payments_purchase_idx ON payments (account_id, purchase_id, created_at);

-- The installment plan of an INSTALLMENTS or DEFERRED purchase, fixed at checkout.
CREATE TABLE installments (
  id            uuid PRIMARY KEY,
  account_id    uuid NOT NULL REFERENCES accounts (id),
  purchase_id   uuid NOT NULL REFERENCES purchases (id),
  index         integer NOT NULL,
  due_date      date NOT NULL,
  amount_cents  bigint NOT NULL CHECK (amount_cents >= 0),
  fees_cents    bigint NOT NULL CHECK (fees_cents >= 0),
  state         text NOT NULL CHECK (state IN ('scheduled', 'paid', 'failed')),
  attempts      integer NOT NULL DEFAULT 0,
  payment_id    uuid,
  paid_at       timestamptz,
  UNIQUE (purchase_id, index)
);
CREATE INDEX installments_purchase_idx ON installments (account_id, purchase_id, index);
