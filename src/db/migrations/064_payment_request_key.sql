-- The request identity (an Idempotency-Key's request key, docs/api-conventions.md#idempotency-key)
-- of the request that started a payment, as refunds and purchases store theirs: a retry with the
-- same key that takes the claim over after the first request failed finds its own attempt and
-- resolves it at once, rather than answering "in progress" for it. NULL: started without a key,
-- or by an older build (a rolling upgrade mixes both; docs/deployment.md#rolling-upgrade).
ALTER TABLE payments ADD COLUMN request_key text;
