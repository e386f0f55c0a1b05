import type { Config } from '../config.ts';
import { SecretBox } from '../crypto/secret-box.ts';
import { isDay, DAY_RULE } from '../domain/dates.ts';
import { parsePublicId, toPublicId } from '../domain/ids.ts';
import { decimalOfCents, MARKED_STATUSES, PAYOUT_STATUSES, type MarkedStatus, type PayoutStatus } from '../domain/payouts.ts';
import { exportedFile, exportPayouts } from '../use-cases/payouts/payout-export.ts';
import { markPayout, runPayouts, type PayoutRunResult } from '../use-cases/payouts/payouts.ts';
import { listPayoutsForOperator, type PayoutRow } from '../payouts/payout-repository.ts';
import { withDatabase, withDatabaseAndClock } from './command.ts';

/**
 * The operator's payout commands (`chipin payout …`, docs/deployment.md#payouts): the same use
 * cases as the daily job, on the service clock (the sandbox's, moved or not). Each answers a line
 * for people, the data for `--json`, and the file to write for an export.
 */

/** A refusal, printed as one line. */
export class PayoutCliError extends Error {}

export interface CliAnswer {
  human: string;
  data: unknown;
  /** The pain.001 file an export produced or produced again. */
  xml?: string;
}

function dayOption(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !isDay(value)) throw new PayoutCliError(`--${name} must be ${DAY_RULE}`);
  return value;
}

function payoutLine(p: PayoutRow): string {
  return `${toPublicId('po', p.id)}  ${toPublicId('acc', p.account_id)}  ${p.business_day}  ${decimalOfCents(p.amount_cents)} ${p.currency}  ${p.line_count} line(s)  ${p.status}`;
}

function payoutJson(p: PayoutRow) {
  return {
    payout_id: toPublicId('po', p.id),
    account_id: toPublicId('acc', p.account_id),
    currency: p.currency,
    business_day: p.business_day,
    amount_cents: p.amount_cents,
    line_count: p.line_count,
    status: p.status,
    ...(p.export_id ? { export_id: toPublicId('pex', p.export_id) } : {}),
  };
}

function runLine(r: PayoutRunResult): string {
  const who = `${toPublicId('acc', r.accountId)} ${r.currency} ${r.businessDay}`;
  const o = r.outcome;
  switch (o.kind) {
    case 'created':
      return `${who}: paid out ${decimalOfCents(o.payout.amount_cents)} in ${toPublicId('po', o.payout.id)} (${o.payout.line_count} line(s))`;
    case 'already_paid':
      return `${who}: already paid out in ${toPublicId('po', o.payout.id)}`;
    case 'nothing_owed':
      return `${who}: nothing owed`;
    case 'not_positive':
      return `${who}: ${decimalOfCents(o.owedCents)} over ${o.lineCount} line(s), not positive: carried to the next day`;
    case 'no_bank_details':
      return `${who}: ${decimalOfCents(o.owedCents)} owed, no bank details: stays owed`;
    case 'held':
      return `${who}: ${decimalOfCents(o.owedCents)} owed, held until ${o.until.toISOString()} (its IBAN changed): stays owed`;
    case 'day_not_ended':
      return `${who}: the day ends at ${o.endsAt.toISOString()} in the merchant's time zone: not yet`;
  }
}

function runJson(r: PayoutRunResult) {
  const o = r.outcome;
  return {
    account_id: toPublicId('acc', r.accountId),
    currency: r.currency,
    business_day: r.businessDay,
    outcome: o.kind,
    ...(o.kind === 'created' || o.kind === 'already_paid' ? { payout: payoutJson(o.payout) } : {}),
    ...(o.kind === 'not_positive' || o.kind === 'no_bank_details' || o.kind === 'held' ? { owed_cents: o.owedCents, line_count: o.lineCount } : {}),
    ...(o.kind === 'held' ? { held_until: o.until.toISOString() } : {}),
  };
}

/** `chipin payout run [--date D]`: the daily run now, for day D in each merchant's zone (default: each one's yesterday). */
export async function runPayoutsFromCli(config: Config, opts: { date?: unknown }): Promise<CliAnswer> {
  const day = dayOption('date', opts.date);
  return withDatabaseAndClock(config, async (db, clock) => {
    const results = await runPayouts({ db, clock, logger: { info: () => {}, warn: () => {}, error: () => {} } }, day === undefined ? {} : { day });
    return { human: results.length ? results.map(runLine).join('\n') : 'nothing to pay out', data: results.map(runJson) };
  });
}

/** `chipin payout export [--date D] [--execution-date E]`: the euro payouts created (of days up to D) as one pain.001 file. */
export async function exportPayoutsFromCli(config: Config, opts: { date?: unknown; executionDate?: unknown }): Promise<CliAnswer> {
  const upTo = dayOption('date', opts.date);
  const executionDay = dayOption('execution-date', opts.executionDate);
  const debtor = config.operatorDebtor;
  if (!debtor) throw new PayoutCliError('no debtor account: set OPERATOR_NAME, OPERATOR_IBAN and OPERATOR_BIC (docs/deployment.md#payouts)');
  return withDatabaseAndClock(config, async (db, clock) => {
    const outcome = await exportPayouts(
      { db, box: new SecretBox(config.masterKey), clock },
      { debtor, format: config.payoutPainFormat ?? 'pain.001.001.09' },
      { ...(upTo ? { upTo } : {}), ...(executionDay ? { executionDay } : {}) },
    );
    const others = outcome.otherRails.map((p) => `  ${payoutLine(p)}  (not SEPA: pay by another rail, then "chipin payout mark --status sent")`);
    if (outcome.kind === 'nothing') {
      return {
        human: ['no euro payout to export', ...(others.length ? ['payouts in other currencies:', ...others] : [])].join('\n'),
        data: { exported: null, other_rails: outcome.otherRails.map(payoutJson) },
      };
    }
    return {
      human: [
        `export ${toPublicId('pex', outcome.exportId)}: ${outcome.payouts.length} transfer(s), ${decimalOfCents(outcome.controlSumCents)} EUR, message id ${outcome.messageId}`,
        ...outcome.payouts.map((p) => `  ${payoutLine(p)}`),
        ...(others.length ? ['payouts in other currencies:', ...others] : []),
      ].join('\n'),
      data: {
        exported: {
          export_id: toPublicId('pex', outcome.exportId),
          message_id: outcome.messageId,
          control_sum_cents: outcome.controlSumCents,
          payouts: outcome.payouts.map(payoutJson),
        },
        other_rails: outcome.otherRails.map(payoutJson),
      },
      xml: outcome.xml,
    };
  });
}

/** `chipin payout file --export pex_…`: a file exported before, again. */
export async function exportedFileFromCli(config: Config, opts: { export?: unknown }): Promise<CliAnswer> {
  const id = typeof opts.export === 'string' ? parsePublicId('pex', opts.export) : undefined;
  if (!id) throw new PayoutCliError('--export must be pex_<uuid>');
  return withDatabase(config, async (db) => {
    const file = await exportedFile({ db, box: new SecretBox(config.masterKey) }, id);
    if (!file) throw new PayoutCliError(`no export ${String(opts.export)}`);
    return {
      human: `export ${toPublicId('pex', id)}, message id ${file.messageId}, made ${file.createdAt.toISOString()}`,
      data: { export_id: toPublicId('pex', id), message_id: file.messageId },
      xml: file.xml,
    };
  });
}

/** `chipin payout mark --payout po_… --status sent|returned`. */
export async function markPayoutFromCli(config: Config, opts: { payout?: unknown; status?: unknown }): Promise<CliAnswer> {
  const id = typeof opts.payout === 'string' ? parsePublicId('po', opts.payout) : undefined;
  if (!id) throw new PayoutCliError('--payout must be po_<uuid>');
  if (typeof opts.status !== 'string' || !(MARKED_STATUSES as readonly string[]).includes(opts.status))
    throw new PayoutCliError(`--status must be ${MARKED_STATUSES.join(' or ')}`);
  const status = opts.status as MarkedStatus;
  return withDatabaseAndClock(config, async (db, clock) => {
    const outcome = await markPayout({ db, clock, logger: { info: () => {}, warn: () => {}, error: () => {} } }, id, status, { label: 'cli' });
    if (outcome.kind === 'not_found') throw new PayoutCliError(`no payout ${String(opts.payout)}`);
    if (outcome.kind === 'refused') throw new PayoutCliError(`payout ${String(opts.payout)}: ${outcome.message}`);
    const then = status === 'sent' ? 'the merchant is told (payout.paid)' : 'its amount is owed again and goes into the next payout';
    return { human: `${payoutLine(outcome.payout)}: ${then}`, data: payoutJson(outcome.payout) };
  });
}

/** `chipin payout list [--status S]`: the newest payouts of every merchant (100 at most). */
export async function listPayoutsFromCli(config: Config, opts: { status?: unknown }): Promise<CliAnswer> {
  if (opts.status !== undefined && (typeof opts.status !== 'string' || !(PAYOUT_STATUSES as readonly string[]).includes(opts.status)))
    throw new PayoutCliError(`--status must be one of ${PAYOUT_STATUSES.join(', ')}`);
  return withDatabase(config, async (db) => {
    const rows = await listPayoutsForOperator(db, (opts.status as PayoutStatus | undefined) ?? null, 100);
    return { human: rows.length ? rows.map(payoutLine).join('\n') : 'no payout', data: rows.map(payoutJson) };
  });
}
