import type { Sql } from '../db/database.ts';
import { EVENT } from '../domain/events.ts';
import { newUuid } from '../domain/ids.ts';
import type { PurchaseState } from '../domain/purchase-states.ts';
import type { TransactionResult } from '../psp/connector.ts';

/** Why we started a PSP transaction. */
export type PaymentPurpose = 'guarantee' | 'leader_share' | 'pledge' | 'rest' | 'first_installment' | 'installment' | 'deferred';

export interface PaymentRow {
  id: string;
  account_id: string;
  purchase_id: string;
  pledge_id: string | null;
  purpose: PaymentPurpose;
  psp: string;
  idempotency_key: string;
  psp_transaction_id: string | null;
  amount_cents: number;
  captured_cents: number;
  refunded_cents: number;
  status: 'pending' | TransactionResult['status'];
  decline_reason: string | null;
  challenge_url: string | null;
}

/** Records that we are about to call the PSP; the idempotency key is what the PSP call will carry. */
export async function insertPayment(
  sql: Sql,
  p: { accountId: string; purchaseId: string; pledgeId?: string; purpose: PaymentPurpose; psp: string; idempotencyKey: string; amountCents: number },
  now: Date,
): Promise<PaymentRow> {
  const { rows } = await sql.query<PaymentRow>(
    `INSERT INTO payments (id, account_id, purchase_id, pledge_id, purpose, psp, idempotency_key, amount_cents, status, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, $9)
     ON CONFLICT (idempotency_key) DO UPDATE SET updated_at = payments.updated_at
     RETURNING *`,
    [newUuid(), p.accountId, p.purchaseId, p.pledgeId ?? null, p.purpose, p.psp, p.idempotencyKey, p.amountCents, now],
  );
  return rows[0]!;
}

export async function findPayment(sql: Sql, accountId: string, id: string): Promise<PaymentRow | undefined> {
  const { rows } = await sql.query<PaymentRow>('SELECT * FROM payments WHERE account_id = $1 AND id = $2', [accountId, id]);
  return rows[0];
}

/** Back-mode transaction status words (DESIGN §5). */
function transactionStatus(r: TransactionResult): 'authorized' | 'completed' | 'failed' | 'voided' | 'refunded' | undefined {
  switch (r.status) {
    case 'authorized':
      return 'authorized';
    case 'captured':
      return 'completed';
    case 'voided':
    case 'expired':
      return 'voided';
    case 'refunded':
      return 'refunded';
    case 'declined':
      return 'failed';
    case 'requires_action':
      return undefined; // not a transaction outcome yet
  }
}

/**
 * Stores the PSP's answer on the payment row and, for an outcome, writes the purchase's
 * `payment.transaction` event (the back-mode notification is built from it), in the caller's
 * transaction.
 */
export async function recordResult(sql: Sql, payment: PaymentRow, r: TransactionResult, purchaseState: PurchaseState, now: Date): Promise<void> {
  await sql.query(
    `UPDATE payments SET psp_transaction_id = $3, status = $4, captured_cents = $5, refunded_cents = $6,
       decline_reason = $7, challenge_url = $8, updated_at = $9
     WHERE account_id = $1 AND id = $2`,
    [payment.account_id, payment.id, r.transactionId, r.status, r.capturedCents, r.refundedCents, r.decline?.reason ?? null, r.challengeUrl ?? null, now],
  );
  const status = transactionStatus(r);
  if (!status) return;
  await sql.query(
    `INSERT INTO purchase_events (account_id, purchase_id, type, from_state, to_state, data, created_at)
     VALUES ($1, $2, $3, $4, $4, $5, $6)`,
    [
      payment.account_id,
      payment.purchase_id,
      EVENT.transaction,
      purchaseState,
      JSON.stringify({
        payment_id: payment.id,
        purpose: payment.purpose,
        pledge_id: payment.pledge_id,
        transaction: {
          id: r.transactionId,
          status,
          amount_cents: status === 'refunded' ? r.refundedCents : status === 'completed' ? r.capturedCents : r.amountCents,
          created_at: now.toISOString(),
          error: r.decline ? r.decline.reason : '',
        },
      }),
      now,
    ],
  );
}

/** An event that changes no state (`payment.failed`, `pledge.paid`): from and to are the current state. */
export async function writeEvent(sql: Sql, accountId: string, purchaseId: string, type: string, state: PurchaseState, data: object, now: Date): Promise<void> {
  await sql.query(
    `INSERT INTO purchase_events (account_id, purchase_id, type, from_state, to_state, data, created_at)
     VALUES ($1, $2, $3, $4, $4, $5, $6)`,
    [accountId, purchaseId, type, state, JSON.stringify(data), now],
  );
}
