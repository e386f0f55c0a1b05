-- A webhook endpoint's signing secret changes only when the merchant asks (docs/webhooks.md#rotating-the-secret).
-- Setting the URL or the events keeps the token and secret; a rotation makes new ones, and the
-- previous secret keeps signing beside the new one until `previous_secret_until` (Standard Webhooks
-- sends several signatures in one `webhook-signature` header), so a receiver that still checks the
-- old secret keeps accepting webhooks while the merchant deploys the new one.
ALTER TABLE webhook_endpoints
  ADD COLUMN previous_secret_enc text,
  ADD COLUMN previous_secret_until timestamptz,
  ADD CONSTRAINT webhook_endpoints_previous_secret_check CHECK ((previous_secret_enc IS NULL) = (previous_secret_until IS NULL));
