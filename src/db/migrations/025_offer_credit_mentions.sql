-- The credit mentions an offer may set for itself (docs/schedules.md#credit-mentions):
-- `credit_lender`, the lender's identity the shopper is shown (NULL: the deployment's
-- CREDIT_LENDER, else the merchant); `withdrawal_days`, the right of withdrawal's period in days
-- (NULL: the rule of the Code de la consommation Chipin applies, 0: none, as for a credit the
-- lender holds outside the consumer-credit rules, L312-4).
ALTER TABLE offers
  ADD COLUMN credit_lender text CHECK (char_length(credit_lender) BETWEEN 1 AND 300),
  ADD COLUMN withdrawal_days int4 CHECK (withdrawal_days BETWEEN 0 AND 30);
