import { isLeaderPurpose } from '../domain/leader-plan.ts';
import { parseEitherSpelling } from '../domain/ids.ts';
import type { NotificationAck, NotifiedTransaction, PspConnector } from '../psp/connector.ts';
import type { PspRegistry } from '../psp/registry.ts';
import { findPaymentByPspTransaction, pspRef, recordResult, storePspState } from '../payments/payment-repository.ts';
import { loadPayState } from '../payments/pay-state-repository.ts';
import { pspAccountOwner } from '../psp-accounts/psp-account-repository.ts';
import type { PaymentDeps } from './deps.ts';
import { applyDisputeNotice } from './dispute.ts';
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
 * A batch (several transactions in one notification) applies each of them. A notice about a
 * dispute is recorded as the payment's dispute (`dispute.ts`), once however often it comes.
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
  let applied = false;
  // A batched notification (Adyen) is about several transactions: each is applied as if alone.
  for (const notified of [verified, ...(verified.also ?? [])]) {
    if (await applyNotified(deps, connector, { accountId, pspAccountId: id, pspAccountPublicId }, notified)) applied = true;
  }
  return { kind: 'accepted', applied, ...ack };
}

/** Applies what a verified notification says of one transaction; true when a payment changed. */
async function applyNotified(
  deps: PaymentDeps,
  connector: PspConnector,
  where: { accountId: string; pspAccountId: string; pspAccountPublicId: string },
  notified: NotifiedTransaction,
): Promise<boolean> {
  // A dispute on the transaction (docs/money-operations.md#disputes): the dispute is recorded; the transaction is not read again.
  if (notified.dispute) return (await applyDisputeNotice(deps, { accountId: where.accountId, pspAccountId: where.pspAccountId }, notified.dispute)) === 'changed';
  let payment = await findPaymentByPspTransaction(deps.db, where.accountId, where.pspAccountId, notified.transactionId);
  if (!payment) {
    deps.logger.info({ account_id: where.accountId, psp_account_id: where.pspAccountPublicId }, 'PSP notification about a transaction Chipin did not start: ignored');
    return false;
  }
  // The payment's stored state, with what this notification adds (Adyen's modification outcomes).
  const current = await connector.retrieve(pspRef(payment), notified.event ? { notification: notified.event } : {});
  if (payment.status === 'pending' || payment.status === 'requires_action') {
    // Still with the shopper (3-D Secure): nothing to do until it ends.
    if (current.status === 'requires_action') return false;
    // The resolution below reads the transaction from the row's state: give it what this notification said.
    if (notified.event && current.pspState) payment = await storePspState(deps.db, payment, current.pspState);
    if (payment.purpose === 'pledge') await resolvePledgePayment(deps, payment);
    else if (isLeaderPurpose(payment.purpose) && !payment.idempotency_key.endsWith(':share')) await resolveLeaderAttempt(deps, payment, 0);
    else await record(deps, payment, current);
    return true;
  }
  return record(deps, payment, current);
}

async function record(deps: PaymentDeps, payment: Parameters<typeof recordResult>[1], result: Parameters<typeof recordResult>[2]): Promise<boolean> {
  const state = await loadPayState(deps.db, payment.account_id, payment.purchase_id);
  if (!state) return false;
  return deps.db.transaction((tx) => recordResult(tx, payment, result, state.state, deps.clock.now()));
}
