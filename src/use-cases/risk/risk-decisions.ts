import type { Sql } from '../../db/database.ts';
import { decisionsPage, type RiskDecisionRow } from '../../risk/risk-decision-repository.ts';

/**
 * The account's payment-time risk decisions of a period as the back office exports them
 * (docs/risk.md#decisions-as-records): oldest first, a page at a time, for
 * `GET /api/backoffice/risk_decisions` and its CSV. The decisions themselves are `payment-risk.ts`'s.
 */

export type { RiskDecisionRow };

/** `limit` decisions of `[from, to)` by (created_at, id) after `after`. */
export function riskDecisionsOf(
  db: Sql,
  accountId: string,
  range: { from: Date; to: Date },
  after: { createdAt: Date; id: string } | undefined,
  limit: number,
): Promise<RiskDecisionRow[]> {
  return decisionsPage(db, accountId, range, after, limit);
}
