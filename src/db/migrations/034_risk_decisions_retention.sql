-- The retention purge of risk decisions (docs/risk.md#retention, src/risk/risk-decision-repository.ts
-- purgeRiskDecisions): `DELETE … WHERE id IN (SELECT id FROM risk_decisions WHERE created_at < $1
-- LIMIT $2)`, across every account. `risk_decisions_account_created_idx` (account_id, created_at)
-- cannot serve it: its first column is not constrained, so PostgreSQL would scan the whole index or
-- table on every hourly run to find that nothing is old enough. By created_at alone, the purge
-- reads only the rows it deletes.
CREATE INDEX risk_decisions_created_idx ON risk_decisions (created_at);
