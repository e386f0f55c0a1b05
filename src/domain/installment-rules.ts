/**
 * Collection of installments and deferred payments (docs/schedules.md#collection): when each
 * attempt runs and what `comment` says. Pure.
 */

/**
 * Dunning: a refused installment is tried again 1, 3 and 7 days after its due date; after the
 * fourth refusal the purchase is FAILED.
 */
const RETRY_DAYS = [1, 3, 7] as const;

/**
 * The key of the collection job that makes an installment's attempt after `attempts` refusals (0:
 * the due date's). Its row in `jobs` is the recorded schedule: when that attempt will actually run.
 */
export function collectionJobKey(installmentId: string, attempts: number): string {
  return `installment.collect:${installmentId}:${attempts}`;
}

/** Days after the due date of the retry following refused attempt `attempt` (1-based); undefined once dunning is exhausted. */
export function retryDelayDays(attempt: number): number | undefined {
  return RETRY_DAYS[attempt - 1];
}

/** Midnight UTC of a due date ('yyyy-mm-dd', or the Date a driver returns for a `date` column), plus some days. */
export function dueAt(dueDate: string | Date, plusDays = 0): Date {
  const day = typeof dueDate === 'string' ? dueDate : dueDate.toISOString().slice(0, 10);
  return new Date(Date.parse(`${day}T00:00:00Z`) + plusDays * 86_400_000);
}

/**
 * v1 `comment` after one more installment is paid; a deferred payment is a plan of one, a down
 * payment (`downPayment`) a deposit and its balance (docs/schedules.md#down-payment).
 */
export function installmentPaidComment(paid: number, total: number, downPayment = false): string {
  if (downPayment) return paid === total ? 'The balance is paid.' : 'The deposit is paid.';
  if (paid === total) return total === 1 ? 'The deferred payment is collected.' : `All ${total} installments are paid.`;
  return `${paid} of ${total} installments paid.`;
}

/** v1 `comment` once dunning is exhausted. `index` is 0-based. */
export function installmentFailedComment(index: number, total: number, attempts: number, reason: string, downPayment = false): string {
  const what = downPayment ? 'The balance' : total === 1 ? 'The deferred payment' : `Installment ${index + 1} of ${total}`;
  return `${what} could not be collected after ${attempts} attempts (${reason}).`;
}

/**
 * Repaying the rest of a plan early (docs/schedules.md#repaying-early): the shopper is charged the
 * principal still owed, and the fees of the installments not yet due are waived (they pay for
 * credit no longer used; no rule of the offer says otherwise). Integer minor units.
 */
export function earlyRepayment(remaining: readonly { amountCents: number; feesCents: number }[]): { chargeCents: number; waivedFeesCents: number } {
  let chargeCents = 0;
  let waivedFeesCents = 0;
  for (const line of remaining) {
    chargeCents += line.amountCents;
    waivedFeesCents += line.feesCents;
  }
  return { chargeCents, waivedFeesCents };
}

/** v1 `comment` once the shopper repaid the rest of the plan early (a down payment's balance paid before its date). */
export function repaidEarlyComment(total: number, downPayment = false): string {
  if (downPayment) return 'The balance is paid (before its date).';
  return total === 1 ? 'The deferred payment is paid.' : `All ${total} installments are paid (the rest repaid early).`;
}
