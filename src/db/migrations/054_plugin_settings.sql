-- What a purchase created by the direct call of the front (GET /purchase: the original
-- provider's shop plugins, docs/plugin-integration.md) brings beyond the columns every purchase has.
--
-- * `plugin_settings`: the settings Chipin keeps without acting on them (the shopper's civility,
--   birth details, billing and shipping addresses, the raw phone number when it could not be
--   read, showCloseButton, externalCheckoutValidation, balancePaymentDate, countryCode), as the
--   merchant sent them, for the back office and a later use. NULL for every other purchase.
-- * `merchant_origin`: the origin of the page that may frame the hosted checkout and receives its
--   messages (`parent_origin`, else the origin of redirectUrl, else of cancelUrl). NULL: the
--   origin of the purchase's callback URL, as before.
-- * `second_installment_date` / `deferred_payment_date`: the shopper's plan asked by the merchant
--   (secondInstallmentPaymentDate, deferredPaymentDate), applied to the schedule when the leader
--   pays (docs/schedules.md).
ALTER TABLE purchases
  ADD COLUMN plugin_settings jsonb,
  ADD COLUMN merchant_origin text,
  ADD COLUMN second_installment_date date,
  ADD COLUMN deferred_payment_date date;
