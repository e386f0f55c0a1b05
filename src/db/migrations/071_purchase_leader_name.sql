-- The name the leader of a pot gives on the checkout page when the merchant sent none
-- (client first_name/last_name): the name friends read in their invitation and on their page
-- ("Léa invites you to chip in", docs/hosted-payment.md#the-leaders-name). NULL: not asked (the
-- merchant gave the client's name, or the purchase is not a pot). Expand-only
-- (docs/deployment.md#rolling-upgrade): a previous build neither reads nor writes it.
ALTER TABLE purchases ADD COLUMN leader_name text;
