-- The cooling-off of changed payout bank details (docs/money-operations.md#bank-details): when an
-- admin replaces the IBAN, the merchant's payouts are held until `hold_until` (service clock,
-- PAYOUT_BANK_DETAILS_HOLD_HOURS later), unless the operator releases them first
-- (`chipin payout release`, which sets it NULL). NULL: no hold. Expand-only
-- (docs/deployment.md#rolling-upgrade): a previous build neither reads nor writes it.
ALTER TABLE payout_bank_details ADD COLUMN hold_until timestamptz;
