import type { Database } from '../db/database.ts';
import type { Clock } from '../domain/clock.ts';
import { LEADER_PURPOSES } from '../domain/leader-plan.ts';
import { unresolvedLeaderAttempt } from '../payments/payment-repository.ts';
import { loadPayState } from '../payments/pay-state-repository.ts';
import { applyMove } from '../purchases/transitions.ts';
import { EXPIRED_COMMENT } from '../domain/purchase-states.ts';
import { RECONCILE_EVERY_MS } from '../jobs/reconciliation.ts';

export { EXPIRED_COMMENT };

/** The job, scheduled with the purchase (src/purchases/purchase-repository.ts), that expires it unpaid. */
export const EXPIRE_JOB = 'purchase.expire';

export type ExpireOutcome = { kind: 'expired' } | { kind: 'not_created' } | { kind: 'wait'; until: Date };

/**
 * A purchase still CREATED when its offer's `expiry_hours` have passed is CANCELLED ("Expired
 * unpaid.", `purchase.cancelled`): its link stops taking payments. A leader payment under way at
 * that moment (pending, or in 3-D Secure) is let finish or resolved first: the job runs again after.
 */
export async function expirePurchase(deps: { db: Database; clock: Clock }, accountId: string, purchaseId: string): Promise<ExpireOutcome> {
  const { db, clock } = deps;
  return db.transaction(async (tx): Promise<ExpireOutcome> => {
    const locked = await loadPayState(tx, accountId, purchaseId, true);
    if (!locked || locked.state !== 'CREATED') return { kind: 'not_created' };
    const now = clock.now();
    // Whatever its age: an attempt whose PSP outcome is unknown may have taken the money, and
    // cancelling under it would keep that money on a CANCELLED purchase. The reconciliation job
    // resolves it (docs/hosted-payment.md), then this job runs again.
    if (await unresolvedLeaderAttempt(tx, accountId, purchaseId, LEADER_PURPOSES)) return { kind: 'wait', until: new Date(now.getTime() + RECONCILE_EVERY_MS) };
    const moved = await applyMove(tx, clock, accountId, purchaseId, 'cancel', { comment: EXPIRED_COMMENT, data: { reason: 'expired' } });
    return moved.ok ? { kind: 'expired' } : { kind: 'not_created' };
  });
}
