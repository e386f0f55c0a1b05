-- Down payment (docs/schedules.md#down-payment): an offer type beside SHARED, INSTALLMENTS and
-- DEFERRED, where the shopper pays a deposit at checkout (captured) and the balance on a later date,
-- collected as an installment.
--
-- * `offers.type` may be 'DOWN_PAYMENT'. Such an offer has two lines (`installments` = 2) and says
--   `deposit_percent`, the deposit in percent of the amount (1 to 99: the original provider's
--   "Deposit percentage"), and `max_balance_delay_days`, the most days from the purchase's creation
--   to the balance's due date (1 to 365: its "Maximum balance payment delay"). Both NULL on every
--   other offer.
-- * `purchases.balance_payment_date`: the balance's due date the merchant asked for (the direct
--   call's balancePaymentDate, the APIs' balance_payment_date), applied to the schedule when the
--   leader pays; NULL: the latest the offer allows.
--
-- Rolling upgrade (docs/deployment.md#rolling-upgrade): the columns are NULL for what version N
-- writes, and the wider type check refuses nothing it did before; no DOWN_PAYMENT offer exists
-- until version N+1 makes one.
ALTER TABLE offers DROP CONSTRAINT offers_type_check;
ALTER TABLE offers
  ADD CONSTRAINT offers_type_check CHECK (type IN ('SHARED', 'INSTALLMENTS', 'DEFERRED', 'DOWN_PAYMENT')),
  ADD COLUMN deposit_percent int4 CHECK (deposit_percent BETWEEN 1 AND 99),
  ADD COLUMN max_balance_delay_days int4 CHECK (max_balance_delay_days BETWEEN 1 AND 365),
  ADD CONSTRAINT offers_down_payment_terms CHECK (
    (type = 'DOWN_PAYMENT') = (deposit_percent IS NOT NULL AND max_balance_delay_days IS NOT NULL)
    AND (type <> 'DOWN_PAYMENT' OR installments = 2)
  );

ALTER TABLE purchases ADD COLUMN balance_payment_date date;
