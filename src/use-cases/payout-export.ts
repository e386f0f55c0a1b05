import type { SecretBox } from '../crypto/secret-box.ts';
import type { Database } from '../db/database.ts';
import type { Clock } from '../domain/clock.ts';
import { newUuid } from '../domain/ids.ts';
import { SEPA_CURRENCY } from '../domain/payouts.ts';
import type { BankDetails } from '../payouts/bank-details.ts';
import { bankDetailsOf } from '../payouts/bank-details-repository.ts';
import { buildPain001, MAX_TRANSFERS_PER_FILE, messageIdOf, type PainFormat } from '../payouts/pain001.ts';
import { createdPayoutsNotIn, findExport, insertExport, lockPayoutsToExport, type PayoutRow } from '../payouts/payout-repository.ts';

/**
 * The operator's SEPA file of the payouts (docs/money-operations.md#the-sepa-file): the euro
 * payouts still `created` become one pain.001 file and `exported`, in one transaction; the file is
 * kept (sealed: it names the merchants' IBANs) so that it can be produced again.
 */

export interface ExportDeps {
  db: Database;
  box: SecretBox;
  clock: Clock;
}

export interface ExportSettings {
  /** The operator's account the transfers are paid from (OPERATOR_NAME, OPERATOR_IBAN, OPERATOR_BIC). */
  debtor: BankDetails;
  format: PainFormat;
}

export type ExportOutcome =
  | {
      kind: 'exported';
      exportId: string;
      messageId: string;
      xml: string;
      controlSumCents: number;
      payouts: PayoutRow[];
      /** Created payouts in other currencies: no SEPA file carries them (another rail, then `chipin payout mark --status sent`). */
      otherRails: PayoutRow[];
    }
  | { kind: 'nothing'; otherRails: PayoutRow[] };

/**
 * Exports the euro payouts `created` of business days up to `upTo` (`YYYY-MM-DD`, every one when
 * absent), oldest first, at most {@link MAX_TRANSFERS_PER_FILE} (the rest go into the next file):
 * one credit transfer each to the merchant's IBAN and BIC as they are now, executed on
 * `executionDay` (the service clock's day in UTC when absent). The file, its record and the
 * payouts' status move in one transaction: a file is answered only once its payouts are exported,
 * and a payout is in one file only.
 */
export async function exportPayouts(deps: ExportDeps, settings: ExportSettings, opts: { upTo?: string; executionDay?: string } = {}): Promise<ExportOutcome> {
  const now = deps.clock.now();
  const upTo = opts.upTo ?? null;
  const otherRails = await createdPayoutsNotIn(deps.db, SEPA_CURRENCY, upTo);
  const done = await deps.db.transaction(async (tx) => {
    const payouts = await lockPayoutsToExport(tx, SEPA_CURRENCY, upTo, MAX_TRANSFERS_PER_FILE);
    if (payouts.length === 0) return undefined;
    const details = await bankDetailsOf(
      tx,
      deps.box,
      payouts.map((p) => p.account_id),
    );
    // A payout is made only with bank details, and they are never removed: one without them would
    // be a bug, kept created rather than sent nowhere.
    const exportable = payouts.filter((p) => details.has(p.account_id));
    if (exportable.length === 0) return undefined;
    const id = newUuid();
    const day = now.toISOString().slice(0, 10);
    const file = buildPain001({
      format: settings.format,
      messageId: messageIdOf(id, day),
      createdAt: now,
      executionDay: opts.executionDay ?? day,
      debtor: settings.debtor,
      transfers: exportable.map((p) => ({ payoutId: p.id, amountCents: p.amount_cents, businessDay: p.business_day, creditor: details.get(p.account_id)! })),
    });
    await insertExport(
      tx,
      {
        id,
        pain_format: settings.format,
        message_id: file.messageId,
        transaction_count: file.transactionCount,
        control_sum_cents: file.controlSumCents,
        file_enc: deps.box.seal(file.xml),
        created_at: now,
      },
      exportable.map((p) => p.id),
    );
    return { id, file, payouts: exportable.map((p) => ({ ...p, status: 'exported' as const, export_id: id, exported_at: now })) };
  });
  if (!done) return { kind: 'nothing', otherRails };
  return {
    kind: 'exported',
    exportId: done.id,
    messageId: done.file.messageId,
    xml: done.file.xml,
    controlSumCents: done.file.controlSumCents,
    payouts: done.payouts,
    otherRails,
  };
}

/** A file produced before, as it was (its id: `pex_…` without the prefix); undefined when unknown. */
export async function exportedFile(deps: Pick<ExportDeps, 'db' | 'box'>, exportId: string): Promise<{ xml: string; messageId: string; createdAt: Date } | undefined> {
  const row = await findExport(deps.db, exportId);
  return row && { xml: deps.box.open(row.file_enc).reveal(), messageId: row.message_id, createdAt: row.created_at };
}
