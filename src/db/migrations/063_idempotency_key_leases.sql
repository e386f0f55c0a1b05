-- A claimed Idempotency-Key names how long its request is known to be running
-- (docs/api-conventions.md#idempotency-key): the process running it renews the lease while it
-- runs and ends it when the request fails, so a retry takes over a claim whose process died within
-- seconds instead of a minute. NULL for claims made by a build without leases: those keep the
-- 60 s rule, which the previous release applies to every claim (a rolling upgrade mixes both).
ALTER TABLE idempotency_keys ADD COLUMN lease_until timestamptz;
