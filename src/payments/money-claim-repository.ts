import type { Sql } from '../db/database.ts';

/**
 * The purchases' money claims (`money_claims`): at most one operation at a time may move a
 * purchase's money (docs/money-operations.md#one-money-operation-at-a-time). Leases are on the
 * database's clock, never the sandbox clock: moving the sandbox clock must not hand a live claim
 * to another operation.
 */

/**
 * Takes a claim on the purchase for `operation` unless a live claim of another run forbids it: any
 * live claim does, but those of `sharesWith` (operations that may run beside this one). Call under
 * the purchase's row lock: the check and the insert are then one step for every claimant. Lapsed
 * claims of the purchase, and those whose holder `mayBeAlive` says is gone (its process killed),
 * are deleted on the way. Answers the holder's operation when refused.
 */
export async function takeMoneyClaim(
  tx: Sql,
  claim: { accountId: string; purchaseId: string; operation: string; token: string; holder: string },
  leaseMs: number,
  sharesWith: readonly string[],
  mayBeAlive: (holder: string) => boolean,
): Promise<{ taken: true } | { taken: false; heldBy: string }> {
  await tx.query('DELETE FROM money_claims WHERE account_id = $1 AND purchase_id = $2 AND lease_until < now()', [claim.accountId, claim.purchaseId]);
  const held = await tx.query<{ operation: string; token: string; holder: string | null }>(
    'SELECT operation, token, holder FROM money_claims WHERE account_id = $1 AND purchase_id = $2 AND token <> $3 AND NOT (operation = ANY($4::text[]))',
    [claim.accountId, claim.purchaseId, claim.token, sharesWith],
  );
  // A claim of a build that did not name its holder (a rolling upgrade) is judged by its lease alone.
  const gone = held.rows.filter((row) => row.holder !== null && !mayBeAlive(row.holder));
  if (gone.length > 0) {
    await tx.query('DELETE FROM money_claims WHERE account_id = $1 AND purchase_id = $2 AND token = ANY($3::uuid[])', [
      claim.accountId,
      claim.purchaseId,
      gone.map((row) => row.token),
    ]);
  }
  const live = held.rows.find((row) => !gone.includes(row));
  if (live) return { taken: false, heldBy: live.operation };
  await tx.query(
    `INSERT INTO money_claims (account_id, purchase_id, operation, token, holder, claimed_at, lease_until)
     VALUES ($1, $2, $3, $4, $5, now(), now() + $6 * interval '1 millisecond')`,
    [claim.accountId, claim.purchaseId, claim.operation, claim.token, claim.holder, leaseMs],
  );
  return { taken: true };
}

/** Extends a claim this run still holds (its holder's heartbeat); answers whether it still held it. */
export async function renewMoneyClaim(sql: Sql, claim: { accountId: string; purchaseId: string; token: string }, leaseMs: number): Promise<boolean> {
  const { rows } = await sql.query(
    "UPDATE money_claims SET lease_until = now() + $4 * interval '1 millisecond' WHERE account_id = $1 AND purchase_id = $2 AND token = $3 RETURNING 1",
    [claim.accountId, claim.purchaseId, claim.token, leaseMs],
  );
  return rows.length > 0;
}

/** Gives the claim back, if this run still holds it. */
export async function releaseMoneyClaim(sql: Sql, claim: { accountId: string; purchaseId: string; token: string }): Promise<void> {
  await sql.query('DELETE FROM money_claims WHERE account_id = $1 AND purchase_id = $2 AND token = $3', [claim.accountId, claim.purchaseId, claim.token]);
}

/**
 * A charge of the purchase still unresolved (pending, or awaiting 3-D Secure) that could still take
 * money when it resolves: an installment's (a collection, the shopper's payment now), the pot's
 * rest, or a hold's renewal.
 */
export async function unresolvedMoneyCharge(sql: Sql, accountId: string, purchaseId: string): Promise<{ id: string; purpose: string } | undefined> {
  const { rows } = await sql.query<{ id: string; purpose: string }>(
    `SELECT id, purpose FROM payments WHERE account_id = $1 AND purchase_id = $2 AND status IN ('pending', 'requires_action')
       AND (purpose IN ('installment', 'rest') OR idempotency_key LIKE '%:reauth:%') LIMIT 1`,
    [accountId, purchaseId],
  );
  return rows[0];
}
