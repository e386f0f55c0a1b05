-- An Idempotency-Key is scoped to the account, the matched route and the resource it acts on
-- (`idempotencyScope` in src/http/idempotency.ts, docs/security.md#idempotency-scope), no longer
-- to the URL as sent: the column says so.
ALTER TABLE idempotency_keys RENAME COLUMN endpoint TO scope;

-- Keys taken before, on the plain spelling of a route with a resource, are copied under their new
-- scope, so that a retry across the upgrade still replays instead of refunding or creating again.
-- A route without parameters keeps its scope (`POST /api/merchants/v1/purchases` is both). The old
-- rows stay and expire: a new scope has a space before its resource and a URL has none, so none
-- of them is ever found again.
INSERT INTO idempotency_keys (account_id, scope, key, request_hash, response_status, response_body, created_at, expires_at)
SELECT account_id, new_scope, key, request_hash, response_status, response_body, created_at, expires_at
FROM (
  SELECT k.*,
    CASE
      WHEN k.scope ~ '^POST /api/merchants/v1/purchases/[0-9a-f-]{36}/refunds$'
        THEN 'POST /api/merchants/v1/purchases/:id/refunds id=' || split_part(k.scope, '/', 6)
      WHEN k.scope ~ '^POST /api/backoffice/purchases/(pur_)?[0-9a-fA-F-]{36}/refunds$'
        THEN 'POST /api/backoffice/purchases/:id/refunds id=' || lower(regexp_replace(split_part(k.scope, '/', 5), '^pur_', ''))
      WHEN k.scope ~ '^POST /api/merchants/mer_[0-9a-fA-F-]{36}/purchase_link$'
        THEN 'POST /api/merchants/:merchant_uid/purchase_link merchant_uid=mer_' || lower(substr(split_part(k.scope, '/', 4), 5))
    END AS new_scope
  FROM idempotency_keys k
  WHERE k.expires_at > now()
) old
WHERE new_scope IS NOT NULL
ON CONFLICT (account_id, scope, key) DO NOTHING;
