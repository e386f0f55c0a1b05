-- Back-office roles and the audit log of staff actions (docs/back-office.md).
-- Every existing user made the account (`chipin merchant create`) and keeps every right.
ALTER TABLE dashboard_users ADD COLUMN role text NOT NULL DEFAULT 'admin' CHECK (role IN ('admin', 'support'));

-- Who did what, when, on which account. `actor` is a label that outlives the user (their e-mail,
-- `cli`): a removed member's entries still say who it was. `details` never holds a secret.
CREATE TABLE audit_log (
  id          uuid PRIMARY KEY,
  account_id  uuid NOT NULL REFERENCES accounts (id),
  user_id     uuid,
  actor       text NOT NULL,
  action      text NOT NULL,
  subject     text,
  details     jsonb NOT NULL DEFAULT '{}',
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_account_idx ON audit_log (account_id, created_at DESC);
CREATE INDEX audit_log_subject_idx ON audit_log (account_id, subject) WHERE subject IS NOT NULL;
