-- Which process holds a money claim (docs/money-operations.md#one-money-operation-at-a-time): its
-- Linux namespace, pid and start time (src/db/process-identity.ts). A claim whose process is
-- gone is taken over at once by a process that can see it is gone (the same host), instead of
-- after its lease; the holder renews the lease while its operation runs, so the lease itself is
-- short. NULL: a claim of a build that did not name its holder (a rolling upgrade mixes both),
-- judged by its lease alone. Expand-only (docs/deployment.md#rolling-upgrade).
ALTER TABLE money_claims ADD COLUMN holder text;
