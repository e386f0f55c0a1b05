-- Durable jobs (src/jobs/scheduler.ts) and the sandbox clock (src/clock/sandbox-clock.ts).

-- One row per piece of work due at a time: an installment to charge, a pot deadline, a retry.
-- Any number of processes claim due rows with FOR UPDATE SKIP LOCKED and a lease; see
-- docs/jobs-and-clock.md for the guarantees.
CREATE TABLE jobs (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- The merchant the work belongs to (tenancy: docs/architecture.md#scale-and-tenancy); NULL for service-wide work.
  account_id    uuid REFERENCES accounts (id),
  kind          text NOT NULL,
  -- Scheduling the same key twice is a no-op: callers derive it from what is due
  -- ("installment:<purchase>:2"), so a retried request never schedules twice.
  dedupe_key    text NOT NULL UNIQUE,
  -- Service-clock time (the sandbox clock may be ahead of the wall clock).
  run_at        timestamptz NOT NULL,
  payload       jsonb NOT NULL DEFAULT '{}',
  -- Runs started since the job was scheduled or last rescheduled by its handler.
  attempts      integer NOT NULL DEFAULT 0,
  -- Wall-clock end of the lease of the process running the job; past = free to take again.
  locked_until  timestamptz,
  -- Who holds the lease: only that holder may finish the job (fencing after a lease expired).
  lease_id      uuid,
  last_error    text,
  -- Finished: done, or abandoned after too many failures (then failed_at is set too).
  done_at       timestamptz,
  failed_at     timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX jobs_due_idx ON jobs (run_at, id) WHERE done_at IS NULL;
CREATE INDEX jobs_account_idx ON jobs (account_id, created_at) WHERE account_id IS NOT NULL;

-- How far the sandbox clock is ahead of the wall clock, shared by every process of the service.
-- Exactly one row; the offset only grows.
CREATE TABLE sandbox_clock (
  id          boolean PRIMARY KEY DEFAULT true CHECK (id),
  offset_ms   bigint NOT NULL DEFAULT 0 CHECK (offset_ms >= 0),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO sandbox_clock (id, offset_ms) VALUES (true, 0);
