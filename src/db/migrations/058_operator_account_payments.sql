-- Payments on an operator's collecting account (transfer mode, docs/money-operations.md#transfer-mode).
--
-- The tenancy trigger of migration 056 read NEW.payment_mode in the same expression for every
-- table it guards: on a payment naming an operator's account (owner NULL) PostgreSQL evaluated it,
-- and payments have no such column, so no payment could be made on an operator's account. The
-- offer's rule is now read only for offers. Same rules, same triggers: a process of the previous
-- release runs on it unchanged (docs/deployment.md#rolling-upgrade).
CREATE OR REPLACE FUNCTION psp_account_tenancy() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  owner uuid;
  found boolean;
BEGIN
  IF NEW.psp_account_id IS NULL THEN
    RETURN NEW;
  END IF;
  SELECT true, account_id INTO found, owner FROM psp_accounts WHERE id = NEW.psp_account_id;
  IF NOT found THEN
    RETURN NEW; -- the foreign key answers
  END IF;
  IF owner IS NOT NULL AND owner <> NEW.account_id THEN
    RAISE EXCEPTION 'PSP account % belongs to another merchant', NEW.psp_account_id USING ERRCODE = '23503';
  END IF;
  IF TG_TABLE_NAME = 'offers' THEN
    IF (owner IS NULL) <> (NEW.payment_mode = 'transfer') THEN
      RAISE EXCEPTION 'an offer in % mode cannot pay through PSP account %', NEW.payment_mode, NEW.psp_account_id USING ERRCODE = '23514';
    END IF;
  END IF;
  RETURN NEW;
END $$;
