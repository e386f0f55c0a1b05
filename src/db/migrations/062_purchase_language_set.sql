-- Whether the merchant chose a purchase's language (docs/hosted-payment.md#language). Merchant API
-- v1 has no language field and the Token API's purchase link may omit it: `language` then holds a
-- default for the messages, and the hosted pages follow the shopper's browser instead of it.
-- Purchases made before this build keep the pages as they were (true).
ALTER TABLE purchases ADD COLUMN language_set boolean NOT NULL DEFAULT true;
