-- Unpaid purchases expire by a sweep over an index on their expiry (docs/purchase-lifecycle.md#expiry),
-- not by a job row per purchase: `expires_at` is written with the purchase (creation + the offer's
-- expiry_hours, in service-clock time) and the sweep (src/use-cases/expire-purchase.ts) reads the
-- due ones through the partial index below. A purchase leaves the index when it leaves CREATED.
-- NULL: a purchase created by a build before this one (with a `purchase.expire` job instead).
ALTER TABLE purchases ADD COLUMN expires_at timestamptz;

-- Purchases still CREATED with a pending `purchase.expire` job take its run_at (a job its handler
-- pushed back keeps its pushed time). Their job rows stay: the job's handler stays too, because
-- during a rolling upgrade the previous build still creates purchases with a job and no expires_at
-- (docs/deployment.md#rolling-upgrade); whichever of the job and the sweep comes first expires the
-- purchase, the other finds it no longer CREATED.
UPDATE purchases p SET expires_at = j.run_at
  FROM jobs j
 WHERE j.kind = 'purchase.expire' AND j.done_at IS NULL
   AND p.account_id = j.account_id AND p.id = (j.payload->>'purchaseId')::uuid
   AND p.state = 'CREATED' AND p.expires_at IS NULL;

-- The sweep's reads: the due ones, oldest first, and the next one due. Only unpaid purchases
-- with an expiry are in it, so it stays as small as the purchases awaiting payment.
CREATE INDEX purchases_expiry_idx ON purchases (expires_at) WHERE state = 'CREATED' AND expires_at IS NOT NULL;
