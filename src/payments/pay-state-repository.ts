import type { Sql } from '../db/database.ts';
import type { PurchaseState } from '../domain/purchase-states.ts';
import { type RequestedDates, requestedDatesOf } from '../domain/schedule.ts';

/**
 * The payment side of a purchase: its money columns (the leader's share, the pot's deadline, the
 * guarantee, the saved card, the leader's attempts) and `comment` while a flow is under way. The
 * state itself only ever changes through `applyMove`.
 */

export interface PurchasePayState {
  id: string;
  accountId: string;
  offerId: string;
  state: PurchaseState;
  amountCents: number;
  currency: string;
  /** Who collects its money (docs/money-operations.md#transfer-mode): its offer's mode when it was created, or when its leader's checkout started. */
  paymentMode: 'back' | 'transfer';
  createdAt: Date;
  attempts: number;
  leaderShareCents: number | null;
  potDeadlineAt: Date | null;
  guaranteePaymentId: string | null;
  paymentMethodId: string | null;
  /** The due dates the purchase asked for (docs/schedules.md#requested-dates): its plan's. */
  requestedDates: RequestedDates;
  /** Who the leader is, as the risk history recognises shoppers (docs/risk.md#shopper-identity): the client's e-mail and ref, the purchase's phone. */
  shopper: { email?: string; phone?: string; customerId?: string };
}

/** Reads (and with `lock`, locks until the transaction ends) a purchase's payment state. */
export async function loadPayState(sql: Sql, accountId: string, purchaseId: string, lock = false): Promise<PurchasePayState | undefined> {
  const { rows } = await sql.query<{
    id: string;
    account_id: string;
    offer_id: string;
    state: PurchaseState;
    amount_cents: number;
    currency: string;
    payment_mode: 'back' | 'transfer';
    created_at: Date;
    attempts: number;
    leader_share_cents: number | null;
    pot_deadline_at: Date | null;
    guarantee_payment_id: string | null;
    payment_method_id: string | null;
    phone_number: string | null;
    client_email: string | null;
    client_ref: string | null;
    second_installment_date: string | null;
    deferred_payment_date: string | null;
    balance_payment_date: string | null;
  }>(
    `SELECT p.id, p.account_id, p.offer_id, p.state, p.amount_cents, p.currency, p.payment_mode, p.created_at, p.attempts, p.leader_share_cents, p.pot_deadline_at,
            p.guarantee_payment_id, p.payment_method_id, p.phone_number, c.email AS client_email, c.ref AS client_ref,
            to_char(p.second_installment_date, 'YYYY-MM-DD') AS second_installment_date, to_char(p.deferred_payment_date, 'YYYY-MM-DD') AS deferred_payment_date,
            to_char(p.balance_payment_date, 'YYYY-MM-DD') AS balance_payment_date
     FROM purchases p LEFT JOIN clients c ON c.account_id = p.account_id AND c.id = p.client_id
     WHERE p.account_id = $1 AND p.id = $2 ${lock ? 'FOR UPDATE OF p' : ''}`,
    [accountId, purchaseId],
  );
  const r = rows[0];
  return (
    r && {
      id: r.id,
      accountId: r.account_id,
      offerId: r.offer_id,
      state: r.state,
      amountCents: r.amount_cents,
      currency: r.currency,
      paymentMode: r.payment_mode,
      createdAt: r.created_at,
      attempts: r.attempts,
      leaderShareCents: r.leader_share_cents,
      potDeadlineAt: r.pot_deadline_at,
      guaranteePaymentId: r.guarantee_payment_id,
      paymentMethodId: r.payment_method_id,
      requestedDates: requestedDatesOf({
        secondInstallmentDate: r.second_installment_date,
        deferredPaymentDate: r.deferred_payment_date,
        balancePaymentDate: r.balance_payment_date,
      }),
      shopper: {
        ...(r.client_email ? { email: r.client_email } : {}),
        ...(r.phone_number ? { phone: r.phone_number } : {}),
        ...(r.client_ref ? { customerId: r.client_ref } : {}),
      },
    }
  );
}

/** Locks the purchase row for the rest of the transaction and reads its payment state; the purchase must exist. */
export async function lockPayState(tx: Sql, accountId: string, purchaseId: string): Promise<PurchasePayState> {
  return (await loadPayState(tx, accountId, purchaseId, true))!;
}

/** The card the leader saved at checkout becomes the purchase's (off-session charges use it). */
export async function setPaymentMethod(sql: Sql, accountId: string, purchaseId: string, paymentMethodId: string): Promise<void> {
  await sql.query('UPDATE purchases SET payment_method_id = $3 WHERE account_id = $1 AND id = $2', [accountId, purchaseId, paymentMethodId]);
}

/** What the leader's payment settled: the leader's share, the pot's deadline (SHARED) and the guarantee held (with pledgers). */
export async function setLeaderTerms(
  sql: Sql,
  accountId: string,
  purchaseId: string,
  terms: { leaderShareCents: number; potDeadlineAt: Date | null; guaranteePaymentId: string | null },
  now: Date,
): Promise<void> {
  await sql.query('UPDATE purchases SET leader_share_cents = $3, pot_deadline_at = $4, guarantee_payment_id = $5, updated_at = $6 WHERE account_id = $1 AND id = $2', [
    accountId,
    purchaseId,
    terms.leaderShareCents,
    terms.potDeadlineAt,
    terms.guaranteePaymentId,
    now,
  ]);
}

/** The leader's refused attempts so far (the offer's `max_attempts` bounds them). */
export async function setAttempts(sql: Sql, accountId: string, purchaseId: string, attempts: number): Promise<void> {
  await sql.query('UPDATE purchases SET attempts = $3 WHERE account_id = $1 AND id = $2', [accountId, purchaseId, attempts]);
}

/** v1 `comment` of progress that changes no state (the pot's, the installments'). */
export async function setComment(sql: Sql, accountId: string, purchaseId: string, comment: string): Promise<void> {
  await sql.query('UPDATE purchases SET comment = $3 WHERE account_id = $1 AND id = $2', [accountId, purchaseId, comment]);
}

/** The purchase of an offer with this id (`trigger_capture` names it by `purchaseUid`). */
export async function findOfferPurchaseId(sql: Sql, accountId: string, offerId: string, id: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ id: string }>('SELECT id FROM purchases WHERE account_id = $1 AND offer_id = $2 AND id = $3', [accountId, offerId, id]);
  return rows[0]?.id;
}

/** The newest purchase of an offer with this reference: references are the merchant's and may repeat. */
export async function findOfferPurchaseIdByRef(sql: Sql, accountId: string, offerId: string, ref: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ id: string }>('SELECT id FROM purchases WHERE account_id = $1 AND offer_id = $2 AND ref = $3 ORDER BY created_at DESC LIMIT 1', [
    accountId,
    offerId,
    ref,
  ]);
  return rows[0]?.id;
}

/**
 * An offer's account, type and sealed signing secret, by its id alone: a merchant-signed request
 * (`trigger_capture`) names the offer before anything proves which account sent it.
 */
export async function findOfferSecret(sql: Sql, offerId: string): Promise<{ accountId: string; type: string; secretEnc: string } | undefined> {
  const { rows } = await sql.query<{ account_id: string; signing_secret_enc: string; type: string }>('SELECT account_id, signing_secret_enc, type FROM offers WHERE id = $1', [
    offerId,
  ]);
  const r = rows[0];
  return r && { accountId: r.account_id, type: r.type, secretEnc: r.signing_secret_enc };
}

/**
 * Moves a CREATED purchase to another offer of its account (a fallback after a risk refusal:
 * src/use-cases/checkout/switch-offer.ts), with that offer's payment mode.
 */
export async function setPurchaseOffer(tx: Sql, accountId: string, purchaseId: string, offer: { id: string; paymentMode: 'back' | 'transfer' }, now: Date): Promise<void> {
  await tx.query("UPDATE purchases SET offer_id = $3, payment_mode = $5, updated_at = $4 WHERE account_id = $1 AND id = $2 AND state = 'CREATED'", [
    accountId,
    purchaseId,
    offer.id,
    now,
    offer.paymentMode,
  ]);
}

/**
 * A purchase whose leader's checkout starts takes the mode of the offer that charges it (its PSP
 * account is the offer's from then on), in the transaction that reserves the attempt: nothing was
 * charged nor booked before, so it is booked the way it is charged even when the operator changed
 * the offer's mode since the purchase was created (docs/money-operations.md#transfer-mode).
 */
export async function setPurchasePaymentMode(tx: Sql, accountId: string, purchaseId: string, mode: 'back' | 'transfer'): Promise<void> {
  await tx.query("UPDATE purchases SET payment_mode = $3 WHERE account_id = $1 AND id = $2 AND state = 'CREATED' AND payment_mode <> $3", [accountId, purchaseId, mode]);
}

/**
 * Points the purchase's guarantee at a re-authorised hold, only while it still points at the one
 * it replaces (docs/money-operations.md#re-authorisation). Answers whether it moved.
 */
export async function replaceGuarantee(tx: Sql, accountId: string, purchaseId: string, fromPaymentId: string, toPaymentId: string, now: Date): Promise<boolean> {
  const { rows } = await tx.query('UPDATE purchases SET guarantee_payment_id = $4, updated_at = $5 WHERE account_id = $1 AND id = $2 AND guarantee_payment_id = $3 RETURNING 1', [
    accountId,
    purchaseId,
    fromPaymentId,
    toPaymentId,
    now,
  ]);
  return rows.length > 0;
}
