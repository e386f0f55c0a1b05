import type { Actor } from '../../audit/audit-log.ts';
import { recordAudit } from '../../audit/audit-repository.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Database } from '../../db/database.ts';
import type { Clock } from '../../domain/clock.ts';
import { newUuid, toPublicId } from '../../domain/ids.ts';
import { SEPA_CURRENCY } from '../../domain/payouts.ts';
import type { BankDetails } from '../../payouts/bank-details.ts';
import { bankDetailsOf } from '../../payouts/bank-details-repository.ts';
import { buildPain001, MAX_TRANSFERS_PER_FILE, messageIdOf, type PainFormat } from '../../payouts/pain001.ts';
import {
  createdPayoutsForOperator,
  createdPayoutsNotIn,
  findExport,
  insertExport,
  listExports,
  lockPayoutsToExport,
  payoutsOfExport,
  type ExportSummaryRow,
  type OperatorPayoutRow,
  type PayoutRow,
} from '../../payouts/payout-repository.ts';
import { markPayout, type PayoutDeps } from './payouts.ts';

/**
 * The operator's SEPA file of the payouts (docs/money-operations.md#the-sepa-file): the euro
 * payouts still `created` become one pain.001 file and `exported`, in one transaction; the file is
 * kept (sealed: it names the merchants' IBANs) so that it can be produced again. One code path for
 * the operator's command line (`chipin payout export|file|mark`) and the operator's back-office
 * page (docs/back-office.md#the-operators-pages): each action is in the audit log of every merchant
 * whose payout it concerns, with who did it (`cli`, or the operator's staff member), in the
 * action's own transaction.
 */

/** Who acts when the caller names no one: the operator's command line. */
const CLI: Actor = { label: 'cli' };

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
 * payouts' status move in one transaction, with a `payout_export` audit entry on each payout's
 * merchant (by `actor`, the command line's when not given): a file is answered only once its
 * payouts are exported, and a payout is in one file only.
 */
export async function exportPayouts(deps: ExportDeps, settings: ExportSettings, opts: { upTo?: string; executionDay?: string; actor?: Actor } = {}): Promise<ExportOutcome> {
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
    for (const p of exportable) {
      await recordAudit(tx, {
        accountId: p.account_id,
        actor: opts.actor ?? CLI,
        action: 'payout_export',
        subject: toPublicId('po', p.id),
        details: { export_id: toPublicId('pex', id), message_id: file.messageId, amount_cents: p.amount_cents, currency: p.currency },
      });
    }
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

/**
 * A file produced before, as it was (its id: `pex_…` without the prefix); undefined when unknown.
 * Each download is audited (`payout_file_download`, by `actor`, the command line's when not given)
 * on the merchant of each payout it carries, in the transaction that reads it: the file names their
 * IBANs.
 */
export async function exportedFile(
  deps: Pick<ExportDeps, 'db' | 'box'>,
  exportId: string,
  actor: Actor = CLI,
): Promise<{ xml: string; messageId: string; createdAt: Date } | undefined> {
  return deps.db.transaction(async (tx) => {
    const row = await findExport(tx, exportId);
    if (!row) return undefined;
    for (const p of await payoutsOfExport(tx, exportId)) {
      await recordAudit(tx, {
        accountId: p.account_id,
        actor,
        action: 'payout_file_download',
        subject: toPublicId('po', p.id),
        details: { export_id: toPublicId('pex', exportId), message_id: row.message_id },
      });
    }
    return { xml: deps.box.open(row.file_enc).reveal(), messageId: row.message_id, createdAt: row.created_at };
  });
}

/** A file's message id (its name), without reading the file nor recording a download: what a HEAD request answers. */
export async function exportedFileName(db: Database, exportId: string): Promise<string | undefined> {
  return (await findExport(db, exportId))?.message_id;
}

/** What the operator's page shows (docs/back-office.md#the-operators-pages): the payouts no file holds yet, and the files, newest first. */
export interface OperatorPayoutsView {
  created: OperatorPayoutRow[];
  exports: ExportSummaryRow[];
}

export async function operatorPayoutsView(db: Database, limits: { created: number; exports: number }): Promise<OperatorPayoutsView> {
  return { created: await createdPayoutsForOperator(db, limits.created), exports: await listExports(db, limits.exports) };
}

export type MarkFileOutcome =
  { kind: 'not_found' } | { kind: 'marked'; messageId: string; marked: PayoutRow[]; refused: { payout: PayoutRow; message: string }[]; alreadyDone: PayoutRow[] };

/**
 * The operator's "the bank took this file": each of its payouts still `exported` is marked `sent`
 * by the command line's own use case (`markPayout`: the merchant's `payout.paid` webhook, and its
 * `payout_mark` audit entry in the same transaction as the status); those already sent or
 * returned are left as they are.
 */
export async function markFileSent(deps: PayoutDeps, exportId: string, actor: Actor): Promise<MarkFileOutcome> {
  const file = await findExport(deps.db, exportId);
  if (!file) return { kind: 'not_found' };
  const marked: PayoutRow[] = [];
  const refused: { payout: PayoutRow; message: string }[] = [];
  const alreadyDone: PayoutRow[] = [];
  for (const p of await payoutsOfExport(deps.db, exportId)) {
    if (p.status !== 'exported') {
      alreadyDone.push(p);
      continue;
    }
    const outcome = await markPayout(deps, p.id, 'sent', actor);
    if (outcome.kind === 'marked') marked.push(outcome.payout);
    else if (outcome.kind === 'refused') refused.push({ payout: p, message: outcome.message });
  }
  return { kind: 'marked', messageId: file.message_id, marked, refused, alreadyDone };
}
