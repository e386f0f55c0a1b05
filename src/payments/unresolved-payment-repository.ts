import type { Sql } from '../db/database.ts';
import type { PaymentRow } from './payment-repository.ts';

/**
 * Payments not resolved yet (pending: the PSP's answer never recorded; requires_action: a 3-D
 * Secure challenge not answered), with their lease as the database's clock reads it now
 * (docs/money-operations.md#payments-in-doubt): what a new attempt, the hosted page's wait and the
 * reconciliation job resolve first, and what keeps a second charge of the same money from starting.
 */

/**
 * A payment not resolved yet, with its lease as the database's clock reads it now
 * (docs/money-operations.md#payments-in-doubt): `live`, a request is running it; `lapsed`, pending
 * with nobody running it (in doubt); null, not leased (the age rules apply).
 */
export type UnresolvedPayment = PaymentRow & { lease: 'live' | 'lapsed' | null };

const LEASE = "CASE WHEN status = 'pending' AND run_lease_until IS NOT NULL THEN CASE WHEN run_lease_until < now() THEN 'lapsed' ELSE 'live' END END";

/**
 * The leader's latest checkout attempt still unresolved (pending: the PSP's answer was never
 * recorded; requires_action: a 3-D Secure challenge not answered), if any. The share charge
 * (`…:share`) is not a checkout attempt: it is resolved by resolving its guarantee; nor is a
 * re-authorisation (`…:reauth:<n>`), resolved by its own job (docs/money-operations.md#re-authorisation).
 */
export async function unresolvedLeaderAttempt(sql: Sql, accountId: string, purchaseId: string, purposes: readonly string[]): Promise<UnresolvedPayment | undefined> {
  const { rows } = await sql.query<UnresolvedPayment>(
    `SELECT *, ${LEASE} AS lease FROM payments WHERE account_id = $1 AND purchase_id = $2 AND purpose = ANY($3::text[])
       AND status IN ('pending', 'requires_action') AND idempotency_key NOT LIKE '%:share' AND idempotency_key NOT LIKE '%:reauth:%'
     ORDER BY created_at DESC, id DESC LIMIT 1`,
    [accountId, purchaseId, purposes],
  );
  return rows[0];
}

/** The payment with its lease as the database's clock reads it now ({@link UnresolvedPayment}). */
export async function findPaymentWithLease(sql: Sql, accountId: string, id: string): Promise<UnresolvedPayment | undefined> {
  const { rows } = await sql.query<UnresolvedPayment>(`SELECT *, ${LEASE} AS lease FROM payments WHERE account_id = $1 AND id = $2`, [accountId, id]);
  return rows[0];
}

/**
 * The reconciliation job's work: payments in doubt (first), and unresolved payments (pending or
 * awaiting 3-D Secure) not touched since `before`; never one a live request runs.
 */
export async function staleUnresolvedPayments(sql: Sql, before: Date, limit: number): Promise<UnresolvedPayment[]> {
  const { rows } = await sql.query<UnresolvedPayment>(
    `SELECT * FROM (SELECT *, ${LEASE} AS lease FROM payments WHERE status IN ('pending', 'requires_action')) p
      WHERE lease = 'lapsed' OR (updated_at < $1 AND lease IS NULL)
      ORDER BY lease IS NULL, updated_at LIMIT $2`,
    [before, limit],
  );
  return rows;
}

/**
 * An installment charge of the purchase still unresolved (a collection attempt or the shopper's
 * payment, pending or awaiting 3-D Secure), other than the one keyed `exceptKey`: while there is
 * one, no other charge of the plan starts, so that the same money is never taken twice.
 */
export async function unresolvedInstallmentCharge(sql: Sql, accountId: string, purchaseId: string, exceptKey = ''): Promise<PaymentRow | undefined> {
  const { rows } = await sql.query<PaymentRow>(
    `SELECT * FROM payments WHERE account_id = $1 AND purchase_id = $2 AND purpose = 'installment'
       AND status IN ('pending', 'requires_action') AND idempotency_key <> $3 LIMIT 1`,
    [accountId, purchaseId, exceptKey],
  );
  return rows[0];
}
