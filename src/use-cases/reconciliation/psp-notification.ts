import { isLeaderPurpose } from '../../domain/leader-plan.ts';
import { parseEitherSpelling, toPublicId } from '../../domain/ids.ts';
import { UnusableCredentialError, type NotificationAck, type NotifiedTransaction, type PspConnector, type TransactionResult } from '../../psp/connector.ts';
import type { PspRegistry } from '../../psp/registry.ts';
import { findOperatorAccountPayment, findPaymentByPspTransaction, pspRef, storePspState, type PaymentRow } from '../../payments/payment-repository.ts';
import { loadPayState } from '../../payments/pay-state-repository.ts';
import { settleAlone } from '../../money/movement.ts';
import { pspAccountOwner } from '../../psp-accounts/psp-account-repository.ts';
import type { PaymentDeps } from '../deps.ts';
import { applyDisputeNotice } from '../disputes/dispute.ts';
import { resolveLeaderAttempt } from '../checkout/resolve-leader-attempt.ts';
import { resolvePledgePayment } from '../pot/pay-pledge.ts';

export type NotificationOutcome =
  /** Unknown or malformed PSP account id. */
  | { kind: 'not_found' }
  /** Signature, freshness or format refused: nothing changed. */
  | { kind: 'refused'; reason: 'bad_signature' | 'malformed' | 'stale' }
  /** Verified; `applied` says whether a payment changed. Answer with `ack` (else 200). */
  | { kind: 'accepted'; applied: boolean; ack?: NotificationAck }
  /**
   * Verified, on an operator's collecting account, about a dispute of a transaction no payment has
   * recorded yet: whose it is cannot be known, so it cannot be kept for a merchant. Answered 503 so
   * that the PSP sends it again (what it applied meanwhile is applied once).
   */
  | { kind: 'retry_later' }
  /**
   * The PSP account holds a credential its connector cannot use, and this notification needs it
   * (to build the connector, or to check the signature): nothing read, nothing changed. Answered
   * 503 with Retry-After, so that the PSP sends it again once the merchant has fixed the account
   * (docs/psp-connectors.md#credential-checks).
   */
  | { kind: 'unusable_credential'; field: string };

/**
 * An inbound notification of a merchant's PSP, or of an operator's collecting account
 * (`POST /api/psp/{psa_id}/notifications`): verified by the PSP account's connector (signature,
 * freshness), then applied to the payment it names, scoped by that payment's merchant account.
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
  const owner = id && (await pspAccountOwner(deps.db, id));
  if (!id || !owner) return { kind: 'not_found' };
  // An operator's collecting account (owner null) is every transfer-mode merchant's: each
  // transaction's payment tells whose it is (docs/money-operations.md#transfer-mode).
  const where = { accountId: owner.accountId, pspAccountId: id };
  let verified: Awaited<ReturnType<PspConnector['verifyNotification']>>;
  let connector: PspConnector;
  try {
    const bound = await deps.registry.forAccount(owner.accountId, id);
    if (bound.credentialProblem) reportUnusable(deps, where, bound.credentialProblem.field);
    connector = bound;
    verified = await bound.verifyNotification(input);
  } catch (err) {
    if (!(err instanceof UnusableCredentialError)) throw err;
    reportUnusable(deps, where, err.field);
    return { kind: 'unusable_credential', field: err.field };
  }
  if (!verified.ok) return { kind: 'refused', reason: verified.reason };
  const ack = verified.ack ? { ack: verified.ack } : {};
  let applied = false;
  let retry = false;
  // A batched notification (Adyen) is about several transactions: each is applied as if alone.
  for (const notified of [verified, ...(verified.also ?? [])]) {
    const outcome = await applyNotified(deps, connector, { accountId: owner.accountId, pspAccountId: id, pspAccountPublicId }, notified);
    if (outcome === 'applied') applied = true;
    if (outcome === 'retry_later') retry = true;
  }
  if (retry) return { kind: 'retry_later' };
  return { kind: 'accepted', applied, ...ack };
}

/** PSP accounts and fields this process has logged as unusable: one line each, not one per notification a PSP sends again. */
const reported = new Set<string>();

function reportUnusable(deps: Pick<PaymentDeps, 'logger'>, where: { accountId: string | null; pspAccountId: string }, field: string): void {
  // By the bare id: the URL's two spellings are one account.
  const key = `${where.pspAccountId}/${field}`;
  if (reported.has(key)) return;
  if (reported.size >= 10_000) reported.clear();
  reported.add(key);
  deps.logger.warn(
    { account_id: where.accountId, psp_account_id: toPublicId('psa', where.pspAccountId), field },
    'PSP account has a credential its connector cannot use: its notifications that need it are answered 503 until the account is fixed (the back office shows it)',
  );
}

/** Applies what a verified notification says of one transaction: `applied` when a payment changed. */
async function applyNotified(
  deps: PaymentDeps,
  connector: PspConnector,
  where: { accountId: string | null; pspAccountId: string; pspAccountPublicId: string },
  notified: NotifiedTransaction,
): Promise<'applied' | 'unchanged' | 'retry_later'> {
  const done = (changed: boolean) => (changed ? 'applied' : 'unchanged');
  // A dispute on the transaction (docs/money-operations.md#disputes): the dispute is recorded; the transaction is not read again.
  if (notified.dispute) {
    // On an operator's account, the merchant is the one whose payment recorded the transaction.
    const accountId = where.accountId ?? (await findOperatorAccountPayment(deps.db, where.pspAccountId, notified.dispute.transactionId))?.account_id;
    if (!accountId) return 'retry_later';
    return done((await applyDisputeNotice(deps, { accountId, pspAccountId: where.pspAccountId }, notified.dispute)) === 'changed');
  }
  let payment =
    where.accountId === null
      ? await findOperatorAccountPayment(deps.db, where.pspAccountId, notified.transactionId)
      : await findPaymentByPspTransaction(deps.db, where.accountId, where.pspAccountId, notified.transactionId);
  if (!payment) {
    deps.logger.info({ account_id: where.accountId, psp_account_id: where.pspAccountPublicId }, 'PSP notification about a transaction Chipin did not start: ignored');
    return 'unchanged';
  }
  // The payment's stored state, with what this notification adds (Adyen's modification outcomes).
  const current = await connector.retrieve(pspRef(payment), notified.event ? { notification: notified.event } : {});
  if (payment.status === 'pending' || payment.status === 'requires_action') {
    // Still with the shopper (3-D Secure): nothing to do until it ends.
    if (current.status === 'requires_action') return 'unchanged';
    // The resolution below reads the transaction from the row's state: give it what this notification said.
    if (notified.event && current.pspState) payment = await storePspState(deps.db, payment, current.pspState);
    if (payment.purpose === 'pledge') await resolvePledgePayment(deps, payment);
    else if (isLeaderPurpose(payment.purpose) && !payment.idempotency_key.endsWith(':share')) await resolveLeaderAttempt(deps, payment, 0);
    else await record(deps, payment, current);
    return 'applied';
  }
  return done(await record(deps, payment, current));
}

/** The notified state of the payment booked (src/money/movement.ts), under the purchase's lock. */
async function record(deps: PaymentDeps, payment: PaymentRow, result: TransactionResult): Promise<boolean> {
  if (!(await loadPayState(deps.db, payment.account_id, payment.purchase_id))) return false;
  return settleAlone(deps, payment, (_tx, _locked, book) => book(payment, result));
}
