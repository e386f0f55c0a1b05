import { listPledges, markReminded } from '../../payments/pledge-repository.ts';
import { loadPayState } from '../../payments/pay-state-repository.ts';
import type { PaymentDeps } from '../deps.ts';
import { sendToPledgers } from './notify-pledgers.ts';

export type RemindOutcome = { kind: 'reminded'; count: number } | { kind: 'pot_not_open' };

/**
 * The reminder job, before the pot's deadline: a reminder to every pledger who has not paid yet.
 * Each pledger is marked before sending, so a job run twice never reminds anyone twice.
 */
export async function remindPot(deps: PaymentDeps, accountId: string, purchaseId: string): Promise<RemindOutcome> {
  const state = await loadPayState(deps.db, accountId, purchaseId);
  if (!state?.potDeadlineAt || state.state !== 'LEADER_PROCESSED') return { kind: 'pot_not_open' };
  const ids = await markReminded(deps.db, accountId, purchaseId, deps.clock.now());
  const due = (await listPledges(deps.db, accountId, purchaseId)).filter((p) => ids.has(p.id));
  await sendToPledgers(deps, accountId, purchaseId, 'reminder', due, state.potDeadlineAt);
  return { kind: 'reminded', count: due.length };
}
