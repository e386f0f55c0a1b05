import type { Actor } from '../../audit/audit-log.ts';
import { recordAudit } from '../../audit/audit-repository.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Database } from '../../db/database.ts';
import type { Clock } from '../../domain/clock.ts';
import { toPublicId } from '../../domain/ids.ts';
import { maskIban } from '../../domain/payouts.ts';
import { bankDetailsView, checkBankDetails, type BankDetailsProblem, type BankDetailsView } from '../../payouts/bank-details.ts';
import { adminEmails, findBankDetails, releaseBankDetailsHold, saveBankDetails } from '../../payouts/bank-details-repository.ts';
import { DEFAULT_PAYOUT_BANK_DETAILS_HOLD_HOURS } from '../../config.ts';
import type { Mailer } from '../../messaging/mailer.ts';
import { bankDetailsChangedMail } from '../../payouts/bank-details-mail.ts';

/**
 * The merchant's payout bank details (docs/money-operations.md#bank-details): read masked, set by
 * an admin of the account (the back office's page and API), each change audited.
 */

export interface BankDetailsDeps {
  db: Database;
  box: SecretBox;
  clock: Clock;
  /** Tells the account's admins of each change (after the commit; a failed send is logged, the change stands). The back office's routes pass it. */
  mailer?: { mailer: Pick<Mailer, 'send'>; logger: { warn(obj: object, msg: string): void } };
  /** The cooling-off after an IBAN change (PAYOUT_BANK_DETAILS_HOLD_HOURS), in ms; 0: none. Absent: the default, 3 days. */
  holdMs?: number;
}

/** The account's bank details as shown (the IBAN masked), or undefined when none are set. */
export async function readBankDetails(deps: Pick<BankDetailsDeps, 'db' | 'box' | 'clock'>, accountId: string): Promise<BankDetailsView | undefined> {
  const stored = await findBankDetails(deps.db, deps.box, accountId);
  return stored && bankDetailsView(stored.details, stored.updatedAt, heldNow(stored.holdUntil, deps.clock.now()));
}

/** The hold's end while it runs, null once it has ended. */
function heldNow(holdUntil: Date | null, now: Date): Date | null {
  return holdUntil && holdUntil > now ? holdUntil : null;
}

export type SetBankDetailsOutcome = { kind: 'ok'; details: BankDetailsView; changed: boolean } | { kind: 'invalid'; field: string; message: string; problem: BankDetailsProblem };

/**
 * Sets the account's bank details (all three fields), checked first: a wrong one answers which
 * field and why, and nothing is written. Written and audited (`payout_bank_details_set`: each
 * changed field `{from, to}`, the IBAN masked, never whole) in one transaction; the same details
 * again write nothing. Replacing an IBAN (not setting the first one) holds the merchant's payouts
 * for `holdMs` on the service clock; a change that keeps the IBAN keeps a hold running. Every change
 * is e-mailed to each admin of the account, the IBANs masked, once committed.
 */
export async function setBankDetails(
  deps: BankDetailsDeps,
  accountId: string,
  actor: Actor,
  input: { holder_name?: unknown; iban?: unknown; bic?: unknown },
): Promise<SetBankDetailsOutcome> {
  const checked = checkBankDetails(input);
  if (!checked.ok) return { kind: 'invalid', field: checked.field, message: checked.message, problem: checked.problem };
  const next = checked.details;
  let mail: { to: string[]; from: string | null; to_: string; holdUntil: Date | null; at: Date } | undefined;
  const outcome = await deps.db.transaction(async (tx) => {
    const current = await findBankDetails(tx, deps.box, accountId, { lock: true });
    const was = current?.details;
    const changes: Record<string, unknown> = {};
    if (was?.holderName !== next.holderName) changes.holder_name = { from: was?.holderName ?? null, to: next.holderName };
    if (was?.iban !== next.iban) changes.iban = { from: was ? maskIban(was.iban) : null, to: maskIban(next.iban) };
    if (was?.bic !== next.bic) changes.bic = { from: was?.bic ?? null, to: next.bic };
    if (current && Object.keys(changes).length === 0)
      return { kind: 'ok', details: bankDetailsView(current.details, current.updatedAt, heldNow(current.holdUntil, deps.clock.now())), changed: false } as const;
    const now = deps.clock.now();
    const holdMs = deps.holdMs ?? DEFAULT_PAYOUT_BANK_DETAILS_HOLD_HOURS * 3_600_000;
    const holdUntil = was && was.iban !== next.iban ? (holdMs > 0 ? new Date(now.getTime() + holdMs) : null) : heldNow(current?.holdUntil ?? null, now);
    if (holdUntil) changes.hold_until = holdUntil.toISOString();
    await saveBankDetails(tx, deps.box, accountId, next, now, holdUntil);
    await recordAudit(tx, { accountId, actor, action: 'payout_bank_details_set', subject: toPublicId('acc', accountId), details: changes });
    mail = { to: await adminEmails(tx, accountId), from: was ? maskIban(was.iban) : null, to_: maskIban(next.iban), holdUntil, at: now };
    return { kind: 'ok', details: bankDetailsView(next, now, holdUntil), changed: true } as const;
  });
  if (mail && deps.mailer) {
    const { mailer, logger } = deps.mailer;
    const m = mail;
    const text = bankDetailsChangedMail({ by: actor.label, fromIban: m.from, toIban: m.to_, holdUntil: m.holdUntil, at: m.at });
    for (const to of m.to) {
      const sent = await mailer.send({ to, ...text });
      if (!sent.accepted) logger.warn({ account_id: accountId, error: sent.error }, 'bank details change: an admin could not be e-mailed');
    }
  }
  return outcome;
}

export type ReleaseHoldOutcome = { kind: 'released'; heldUntil: Date } | { kind: 'not_held' };

/**
 * The operator's early release of a cooling-off (`chipin payout release`): the next run pays the
 * merchant. Audited on the merchant's log (`payout_hold_release`, with the end the hold had).
 */
export async function releasePayoutHold(deps: Pick<BankDetailsDeps, 'db' | 'clock'>, accountId: string, actor: Actor): Promise<ReleaseHoldOutcome> {
  return deps.db.transaction(async (tx) => {
    const heldUntil = await releaseBankDetailsHold(tx, accountId, deps.clock.now());
    if (!heldUntil) return { kind: 'not_held' } as const;
    await recordAudit(tx, { accountId, actor, action: 'payout_hold_release', subject: toPublicId('acc', accountId), details: { hold_until: heldUntil.toISOString() } });
    return { kind: 'released', heldUntil } as const;
  });
}
