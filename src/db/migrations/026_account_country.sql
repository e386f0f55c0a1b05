-- An account's country (docs/messaging.md#phone-numbers): where a national phone number a
-- shopper types on its pages is read when the shopper's own country is not known. NULL: the
-- deployment's MERCHANT_COUNTRY. Checked by the application against libphonenumber-js's
-- countries (src/messaging/phone-numbers.ts); here only its shape.
ALTER TABLE accounts ADD COLUMN country text CHECK (country ~ '^[A-Z]{2}$');
