-- A creation's request identity (docs/api-conventions.md#idempotency-key): a request sent with an
-- Idempotency-Key stores a hash of its account, scope, key and the key's claim (src/http/idempotency.ts)
-- on what it creates. When its answer was lost after the commit (a failover cut the request) and
-- a retry takes the key over, the retry finds that refund or purchase and answers it instead of
-- creating a second one. NULL for requests without a key, and for rows written before this.
ALTER TABLE refunds ADD COLUMN request_key text;
CREATE UNIQUE INDEX refunds_request_key_idx ON refunds (account_id, request_key) WHERE request_key IS NOT NULL;

ALTER TABLE purchases ADD COLUMN request_key text;
CREATE UNIQUE INDEX purchases_request_key_idx ON purchases (account_id, request_key) WHERE request_key IS NOT NULL;
