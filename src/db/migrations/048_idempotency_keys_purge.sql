-- Expired Idempotency-Keys are deleted by the hourly purge (purgeExpiredIdempotencyKeys,
-- src/idempotency/idempotency-repository.ts; docs/api-conventions.md#idempotency-key): until now
-- the table kept every key ever sent, though a key is only remembered for 24 hours. The purge finds
-- them by their expiry, which this index (dropped by 045 while nothing read it) serves; without
-- it each hourly run would read the whole table. Building it holds writes to idempotency_keys
-- (requests with a key) for as long as it takes on the existing rows (docs/deployment.md).
CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at);
