import type { Actor } from '../audit/audit-log.ts';
import { recordAudit } from '../audit/audit-repository.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Database } from '../db/database.ts';
import type { Clock } from '../domain/clock.ts';
import { toPublicId } from '../domain/ids.ts';
import { maskIban } from '../domain/payouts.ts';
import { bankDetailsView, checkBankDetails, type BankDetailsView } from '../payouts/bank-details.ts';
import { findBankDetails, saveBankDetails } from '../payouts/bank-details-repository.ts';

/**
 * The merchant's payout bank details (docs/money-operations.md#bank-details): read masked, set by
 * an admin of the account (the back office's page and API), each change audited.
 */

export interface BankDetailsDeps {
  db: Database;
  box: SecretBox;
  clock: Clock;
}

/** The account's bank details as shown (the IBAN masked), or undefined when none are set. */
export async function readBankDetails(deps: Pick<BankDetailsDeps, 'db' | 'box'>, accountId: string): Promise<BankDetailsView | undefined> {
  const stored = await findBankDetails(deps.db, deps.box, accountId);
  return stored && bankDetailsView(stored.details, stored.updatedAt);
}

export type SetBankDetailsOutcome = { kind: 'ok'; details: BankDetailsView; changed: boolean } | { kind: 'invalid'; field: string; message: string };

/**
 * Sets the account's bank details (all three fields), checked first: a wrong one answers which
 * field and why, and nothing is written. Written and audited (`payout_bank_details_set`: each
 * changed field `{from, to}`, the IBAN masked, never whole) in one transaction; the same details
 * again write nothing.
 */
export async function setBankDetails(
  deps: BankDetailsDeps,
  accountId: string,
  actor: Actor,
  input: { holder_name?: unknown; iban?: unknown; bic?: unknown },
): Promise<SetBankDetailsOutcome> {
  const checked = checkBankDetails(input);
  if (!checked.ok) return { kind: 'invalid', field: checked.field, message: checked.message };
  const next = checked.details;
  return deps.db.transaction(async (tx) => {
    const current = await findBankDetails(tx, deps.box, accountId, { lock: true });
    const was = current?.details;
    const changes: Record<string, unknown> = {};
    if (was?.holderName !== next.holderName) changes.holder_name = { from: was?.holderName ?? null, to: next.holderName };
    if (was?.iban !== next.iban) changes.iban = { from: was ? maskIban(was.iban) : null, to: maskIban(next.iban) };
    if (was?.bic !== next.bic) changes.bic = { from: was?.bic ?? null, to: next.bic };
    if (current && Object.keys(changes).length === 0) return { kind: 'ok', details: bankDetailsView(current.details, current.updatedAt), changed: false } as const;
    const now = deps.clock.now();
    await saveBankDetails(tx, deps.box, accountId, next, now);
    await recordAudit(tx, { accountId, actor, action: 'payout_bank_details_set', subject: toPublicId('acc', accountId), details: changes });
    return { kind: 'ok', details: bankDetailsView(next, now), changed: true } as const;
  });
}
