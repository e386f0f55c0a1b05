-- The language a shopper gets (docs/hosted-payment.md#language, src/i18n/shopper-lang.ts): the
-- merchant's when set, else the language of the hosted page the shopper last used, else the
-- browser's, else the account's. `page_language` is that page's language (de, en, es, fr, it, nl),
-- written when a hosted page is served or submitted: the leader's on the purchase, a friend's on
-- their pledge; NULL until a page is used (purchases and pledges made before this build too).
-- `accounts.language` is the account's, the last resort, English until its staff choose another.
-- Expand-only (docs/deployment.md#rolling-upgrade): a previous build neither reads nor writes them,
-- and its inserts of accounts get the default.
ALTER TABLE purchases ADD COLUMN page_language text;
ALTER TABLE pledges ADD COLUMN page_language text;
ALTER TABLE accounts ADD COLUMN language text NOT NULL DEFAULT 'en' CHECK (language IN ('de', 'en', 'es', 'fr', 'it', 'nl'));
