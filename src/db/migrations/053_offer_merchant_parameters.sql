-- The merchant parameters of the original interface that an offer ("merchant uid") lacked
-- (docs/back-office.md#merchant-parameters-of-the-original-interface). Every column is NULL or
-- defaulted to what Chipin did before it existed, so an offer that sets none behaves as before and
-- version N keeps writing offers during a rolling upgrade (docs/deployment.md#rolling-upgrade).
--
-- * `country_code`: where national phone numbers on this offer's purchases are read when the
--   purchase names no country (NULL: the account's, else the deployment's;
--   docs/messaging.md#phone-numbers).
-- * `css_url`: the merchant's stylesheet linked on the offer's hosted pages
--   (docs/security.md#merchant-stylesheets); `gtu_url`, `gtu_label`: a link to the merchant's
--   terms shown by the pay button of SHARED offers (NULL label: Chipin's wording).
-- * `use_3ds`: when 3-D Secure is asked for: 'always', 'never' (unless the card requires it),
--   'auto' (as before).
-- * `leader_can_pay_alone`, `send_confirmation_email`, `send_owed_share_reminder`: true, as before.
-- * `purchase_end_notification_url`: told `{reference, uid}` when a pot ends (NULL: nothing sent).
-- * `hold_renewal_days`: days after it was placed when a hold is renewed at the latest
--   (docs/money-operations.md#re-authorisation); 7 keeps every connector's renewal a day before
--   its 7-day hold lapses, as before.
ALTER TABLE offers
  ADD COLUMN country_code text CHECK (country_code ~ '^[A-Z]{2}$'),
  ADD COLUMN css_url text CHECK (char_length(css_url) BETWEEN 1 AND 2048),
  ADD COLUMN gtu_url text CHECK (char_length(gtu_url) BETWEEN 1 AND 2048),
  ADD COLUMN gtu_label text CHECK (char_length(gtu_label) BETWEEN 1 AND 100),
  ADD COLUMN use_3ds text NOT NULL DEFAULT 'auto' CHECK (use_3ds IN ('always', 'never', 'auto')),
  ADD COLUMN leader_can_pay_alone boolean NOT NULL DEFAULT true,
  ADD COLUMN purchase_end_notification_url text CHECK (char_length(purchase_end_notification_url) BETWEEN 1 AND 2048),
  ADD COLUMN send_confirmation_email boolean NOT NULL DEFAULT true,
  ADD COLUMN send_owed_share_reminder boolean NOT NULL DEFAULT true,
  ADD COLUMN hold_renewal_days int4 NOT NULL DEFAULT 7 CHECK (hold_renewal_days BETWEEN 1 AND 30);
