-- Transfer mode (docs/money-operations.md#transfer-mode): the operator collects the shoppers' money
-- on its own PSP accounts and owes each merchant what its validated purchases bring in, paid out by
-- bank transfer.
--
-- * The operator's collecting accounts are PSP accounts that no merchant owns (`account_id` NULL),
--   made by the operator's CLI only. Offers, payments and ledger entries of a merchant may name one;
--   the composite keys that kept them to the merchant's own PSP accounts become a key on the PSP
--   account alone plus a trigger that still refuses another merchant's account (tenancy at the
--   database, as before).
-- * `offers.payment_mode`: 'back' (the merchant's PSP account, or the built-in sandbox) or
--   'transfer' (an operator's account, or the built-in sandbox outside production); the trigger
--   refuses a mode that disagrees with the account's owner. `commission_bps` and
--   `commission_fixed_cents`: what the operator keeps of each validated purchase in transfer mode
--   (set by the operator, never by the merchant).
-- * `purchases.payment_mode`: the mode the purchase was created in, kept whatever the offer
--   becomes later, so a purchase is booked the way it was charged.
-- * `balance_postings`: the double-entry ledger of what the operator holds and owes, per merchant
--   and currency. Each journal (one business event) is a set of postings, one per book, summing to
--   zero (debit > 0, credit < 0), written in the transaction of the event it books and never
--   changed. `journal` names the event ('validated:<purchase>', 'ledger:<ledger entry>',
--   'payout:<payout>', ...): posting an event twice writes nothing the second time.
ALTER TABLE psp_accounts ALTER COLUMN account_id DROP NOT NULL;

ALTER TABLE offers DROP CONSTRAINT offers_psp_account_fk;
ALTER TABLE payments DROP CONSTRAINT payments_psp_account_fk;
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_account_id_psp_account_id_fkey;
ALTER TABLE offers ADD CONSTRAINT offers_psp_account_fk FOREIGN KEY (psp_account_id) REFERENCES psp_accounts (id);
ALTER TABLE payments ADD CONSTRAINT payments_psp_account_fk FOREIGN KEY (psp_account_id) REFERENCES psp_accounts (id);
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_psp_account_fk FOREIGN KEY (psp_account_id) REFERENCES psp_accounts (id);

ALTER TABLE offers
  ADD COLUMN payment_mode text NOT NULL DEFAULT 'back' CHECK (payment_mode IN ('back', 'transfer')),
  ADD COLUMN commission_bps int4 NOT NULL DEFAULT 0 CHECK (commission_bps BETWEEN 0 AND 10000),
  ADD COLUMN commission_fixed_cents int8 NOT NULL DEFAULT 0 CHECK (commission_fixed_cents >= 0);

ALTER TABLE purchases ADD COLUMN payment_mode text NOT NULL DEFAULT 'back' CHECK (payment_mode IN ('back', 'transfer'));

-- A row may name its own merchant's PSP account or an operator's, never another merchant's; an
-- offer's mode must match the owner of its account.
CREATE FUNCTION psp_account_tenancy() RETURNS trigger LANGUAGE plpgsql AS $$
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
  -- Nested: a payments row has no payment_mode, and PL/pgSQL may read every field of an expression.
  IF TG_TABLE_NAME = 'offers' THEN
    IF (owner IS NULL) <> (NEW.payment_mode = 'transfer') THEN
      RAISE EXCEPTION 'an offer in % mode cannot pay through PSP account %', NEW.payment_mode, NEW.psp_account_id USING ERRCODE = '23514';
    END IF;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER offers_psp_account_tenancy BEFORE INSERT OR UPDATE OF account_id, psp_account_id, payment_mode ON offers
  FOR EACH ROW EXECUTE FUNCTION psp_account_tenancy();
CREATE TRIGGER payments_psp_account_tenancy BEFORE INSERT OR UPDATE OF account_id, psp_account_id ON payments
  FOR EACH ROW EXECUTE FUNCTION psp_account_tenancy();

CREATE TABLE balance_postings (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id    uuid NOT NULL REFERENCES accounts (id),
  currency      text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  journal       text NOT NULL CHECK (char_length(journal) BETWEEN 1 AND 200),
  kind          text NOT NULL CHECK (kind IN ('validated', 'capture', 'refund', 'chargeback', 'chargeback_reversal', 'plan_cancelled', 'credit_by_transfer', 'transfer_received', 'payout', 'payout_returned')),
  book          text NOT NULL CHECK (book IN ('psp_cash', 'shopper_receivable', 'merchant_payable', 'commission', 'shopper_fees', 'paid_out')),
  amount_cents  bigint NOT NULL CHECK (amount_cents <> 0),
  purchase_id   uuid REFERENCES purchases (id),
  payout_id     uuid,
  occurred_at   timestamptz NOT NULL,
  UNIQUE (account_id, journal, book)
);
-- A merchant's balance and the postings a payout run gathers.
CREATE INDEX balance_postings_book_idx ON balance_postings (account_id, currency, book, occurred_at);
CREATE INDEX balance_postings_purchase_idx ON balance_postings (account_id, purchase_id) WHERE purchase_id IS NOT NULL;
