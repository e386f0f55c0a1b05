-- Failure budgets of credential checks (src/auth/attempt-budgets.ts, docs/security.md
-- "Throttles"): in the database, so that every process of a deployment on one PostgreSQL shares
-- them. One row per budget and subject for the current window: failures counted, and checks
-- still in flight (`pending`, for the checks that reserve their place before comparing), which
-- count against the budget too, so that guesses sent at once spend it as guesses sent one by one
-- do. `subject` is a SHA-256 of what is throttled (an e-mail, a client address, an API key): a
-- password typed into the e-mail field is not kept.
--
-- UNLOGGED: every credential check writes here, and none of it is worth a WAL flush. After a
-- crash (or on a promoted standby) the table starts empty: the budgets start afresh, nothing else.
CREATE UNLOGGED TABLE auth_throttle (
  scope      text NOT NULL,
  subject    text NOT NULL,
  failures   integer NOT NULL DEFAULT 0,
  pending    integer NOT NULL DEFAULT 0,
  resets_at  timestamptz NOT NULL,
  PRIMARY KEY (scope, subject)
);
