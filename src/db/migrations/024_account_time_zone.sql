-- An account's time zone (docs/back-office.md#time-zone): the IANA name every date with a time is
-- shown in on the account's hosted pages, e-mails, SMS, sandbox inbox and back office. Existing
-- accounts keep what they were shown until now, Paris time. Checked by the application against
-- Intl's zones (src/i18n/format.ts, timeZoneOf), not here: the database's and Node's zone data
-- are not the same list.
ALTER TABLE accounts ADD COLUMN time_zone text NOT NULL DEFAULT 'Europe/Paris';
