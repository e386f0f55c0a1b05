-- The operator's staff in the back office (docs/back-office.md#the-operators-pages): a dashboard
-- user whose role is `operator` opens the operator's pages (the payouts' SEPA files of every
-- merchant), given by `chipin dashboard set-role` only. Invitations keep the merchant's two roles:
-- no merchant's admin can make one. Expand-only (docs/deployment.md#rolling-upgrade): a previous
-- build reads an operator as a user who is not an admin, and shows them no admin page.
ALTER TABLE dashboard_users DROP CONSTRAINT dashboard_users_role_check;
ALTER TABLE dashboard_users ADD CONSTRAINT dashboard_users_role_check CHECK (role IN ('admin', 'support', 'operator'));
