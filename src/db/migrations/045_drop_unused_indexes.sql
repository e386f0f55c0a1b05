-- Two indexes that no query of the service reads (the index audit: docs/performance.md#indexes).
-- Each only cost an index entry per write of its table.
--
-- idempotency_keys_expires_idx (expires_at): every statement on idempotency_keys
-- (src/idempotency/idempotency-repository.ts: claimKey, findKey, releaseKey, storeResponse) finds
-- its row by the primary key (account_id, scope, key). No purge of expired keys exists to read it.
-- Because expires_at was indexed, a key claimed again after it expired (claimKey's ON CONFLICT
-- update sets expires_at) could not be a HOT update. A future purge by expires_at brings it back
-- with that purge.
--
-- jobs_account_idx (account_id, created_at) WHERE account_id IS NOT NULL: every statement on jobs
-- (src/jobs/job-repository.ts) finds its rows by id, dedupe_key, lease_id or the due index
-- (jobs_due_idx). None reads jobs by account. The foreign key jobs.account_id → accounts is only
-- checked from this side when an account is deleted or its id changes, and the service does
-- neither. Each job insert (installment collections, pot deadlines, re-authorisations) wrote one
-- entry into it.
DROP INDEX IF EXISTS idempotency_keys_expires_idx;
DROP INDEX IF EXISTS jobs_account_idx;
