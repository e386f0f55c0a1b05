import { isLeaderPurpose } from '../domain/leader-plan.ts';
import { parseEitherSpelling } from '../domain/ids.ts';
import type { NotificationAck } from '../psp/connector.ts';
import type { PspRegistry } from '../psp/registry.ts';
import { findPaymentByPspTransaction, pspRef, recordResult, storePspState } from '../payments/payment-repository.ts';
import { loadPayState } from '../payments/pay-state-repository.ts';
import { pspAccountOwner } from '../psp-accounts/psp-account-repository.ts';
import type { PaymentDeps } from './deps.ts';
import { resolveLeaderAttempt } from './pay-as-leader.ts';
import { resolvePledgePayment } from './pay-pledge.ts';

export type NotificationOutcome =
  /** Unknown or malformed PSP account id. */
  | { kind: 'not_found' }
  /** Signature, freshness or format refused: nothing changed. */
  | { kind: 'refused'; reason: 'bad_signature' | 'malformed' | 'stale' }
  /** Verified; `applied` says whether a payment changed. Answer with `ack` (else 200). */
  | { kind: 'accepted'; applied: boolean; ack?: NotificationAck };

/**
 * An inbound notification of a merchant's PSP (`POST /api/psp/{psa_id}/notifications`): verified
 * by the PSP account's connector (signature, freshness), then applied to the payment it names.
 * The notification only says "look again": the transaction's state is read from the PSP
 * (`retrieve`) and recorded through the same functions as every other path (a pending 3-D Secure
 * attempt is resolved as the shopper's return would resolve it; any other payment gets the PSP's
 * answer recorded, at most once), so a replayed or duplicated notification changes nothing twice.
 */
export async function receivePspNotification(
  deps: PaymentDeps & { registry: Pick<PspRegistry, 'forAccount'> },
  pspAccountPublicId: string,
  input: { headers: Record<string, string | undefined>; rawBody: string },
): Promise<NotificationOutcome> {
  // Either spelling: Lyra payments created before its connector sent the public id were told the bare uuid's URL.
  const id = parseEitherSpelling('psa', pspAccountPublicId);
  const accountId = id && (await pspAccountOwner(deps.db, id));
  if (!id || !accountId) return { kind: 'not_found' };
  const connector = await deps.registry.forAccount(accountId, id);
  const verified = await connector.verifyNotification(input);
  if (!verified.ok) return { kind: 'refused', reason: verified.reason };
  const ack = verified.ack ? { ack: verified.ack } : {};
  let payment = await findPaymentByPspTransaction(deps.db, accountId, id, verified.transactionId);
  if (!payment) {
    deps.logger.info({ account_id: accountId, psp_account_id: pspAccountPublicId }, 'PSP notification about a transaction Chipin did not start: ignored');
    return { kind: 'accepted', applied: false, ...ack };
  }
  // The payment's stored state, with what this notification adds (Adyen's modification outcomes).
  const current = await connector.retrieve(pspRef(payment), verified.event ? { notification: verified.event } : {});
  if (payment.status === 'pending' || payment.status === 'requires_action') {
    // Still with the shopper (3-D Secure): nothing to do until it ends.
    if (current.status === 'requires_action') return { kind: 'accepted', applied: false, ...ack };
    // The resolution below reads the transaction from the row's state: give it what this notification said.
    if (verified.event && current.pspState) payment = await storePspState(deps.db, payment, current.pspState);
    if (payment.purpose === 'pledge') await resolvePledgePayment(deps, payment);
    else if (isLeaderPurpose(payment.purpose) && !payment.idempotency_key.endsWith(':share')) await resolveLeaderAttempt(deps, payment, 0);
    else await record(deps, payment, current);
    return { kind: 'accepted', applied: true, ...ack };
  }
  const applied = await record(deps, payment, current);
  return { kind: 'accepted', applied, ...ack };
}

async function record(deps: PaymentDeps, payment: Parameters<typeof recordResult>[1], result: Parameters<typeof recordResult>[2]): Promise<boolean> {
  const state = await loadPayState(deps.db, payment.account_id, payment.purchase_id);
  if (!state) return false;
  return deps.db.transaction((tx) => recordResult(tx, payment, result, state.state, deps.clock.now()));
}
