/**
 * Test helpers for payouts: synthetic ledger journals against `merchant_payable` booked with
 * `postJournal` itself (the bookings of real purchases are the other use cases'), the payouts'
 * sums read back from the database, and the ISO 20022 schemas of Debian's libhbci4j-core-java
 * (extracted to a temporary directory, never copied into the repository) with xmllint.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Database, Sql } from '../../src/db/database.ts';
import type { Leg } from '../../src/domain/balance-books.ts';
import { postJournal } from '../../src/payments/balance-repository.ts';
import type { PainFormat } from '../../src/payouts/pain001.ts';

export type SyntheticKind = 'validated' | 'refund' | 'chargeback';

/**
 * Books a synthetic journal: `validated` owes the merchant `cents` (Dr shopper_receivable, Cr
 * merchant_payable), `refund` and `chargeback` take `cents` back (Dr merchant_payable, Cr psp_cash).
 * Answers what it adds to what is owed.
 */
export async function book(sql: Sql, p: { accountId: string; currency: string; kind: SyntheticKind; cents: number; at: Date; purchaseId?: string | null }): Promise<number> {
  const owed = p.kind === 'validated' ? p.cents : -p.cents;
  const legs: Leg[] =
    p.kind === 'validated'
      ? [
          { book: 'shopper_receivable', amountCents: p.cents },
          { book: 'merchant_payable', amountCents: -p.cents },
        ]
      : [
          { book: 'merchant_payable', amountCents: p.cents },
          { book: 'psp_cash', amountCents: -p.cents },
        ];
  await postJournal(sql, {
    accountId: p.accountId,
    currency: p.currency,
    journal: `${p.kind}:test-${randomUUID()}`,
    kind: p.kind,
    purchaseId: p.purchaseId ?? null,
    occurredAt: p.at,
    legs,
  });
  return owed;
}

export interface MerchantSums {
  /** −Σ merchant_payable: what is owed now. */
  owed: number;
  /** −Σ paid_out. */
  paidOut: number;
  /** Σ of every posting (0: the ledger balances). */
  all: number;
  /** What the postings no payout holds add up to (owed), a payout's own excepted. */
  unpaid: number;
  /** Σ amount of the payouts not returned. */
  payoutsNotReturned: number;
  payouts: { id: string; amount: number; lineCount: number; linesSum: number; lines: number; status: string; businessDay: string }[];
  /** Postings held by more than one line (must be none). */
  doubled: number;
}

export async function sumsOf(sql: Sql, accountId: string, currency: string): Promise<MerchantSums> {
  const totals = await sql.query<Record<'owed' | 'paid_out' | 'all_sum' | 'unpaid' | 'not_returned' | 'doubled', number | string>>(
    `SELECT
       (SELECT -coalesce(sum(amount_cents), 0) FROM balance_postings WHERE account_id = $1 AND currency = $2 AND book = 'merchant_payable') AS owed,
       (SELECT -coalesce(sum(amount_cents), 0) FROM balance_postings WHERE account_id = $1 AND currency = $2 AND book = 'paid_out') AS paid_out,
       (SELECT coalesce(sum(amount_cents), 0) FROM balance_postings WHERE account_id = $1 AND currency = $2) AS all_sum,
       (SELECT -coalesce(sum(amount_cents), 0) FROM balance_postings bp WHERE account_id = $1 AND currency = $2 AND book = 'merchant_payable' AND kind <> 'payout'
          AND NOT EXISTS (SELECT 1 FROM payout_lines l WHERE l.posting_id = bp.id)) AS unpaid,
       (SELECT coalesce(sum(amount_cents), 0) FROM payouts WHERE account_id = $1 AND currency = $2 AND status <> 'returned') AS not_returned,
       (SELECT count(*) FROM (SELECT l.posting_id FROM payout_lines l JOIN payouts p ON p.id = l.payout_id
          WHERE p.account_id = $1 AND p.currency = $2 GROUP BY l.posting_id HAVING count(*) > 1) x) AS doubled`,
    [accountId, currency],
  );
  const t = totals.rows[0]!;
  const { rows } = await sql.query<{
    id: string;
    amount_cents: number;
    line_count: number;
    lines_sum: number | string;
    lines: number | string;
    status: string;
    business_day: string;
  }>(
    `SELECT p.id, p.amount_cents, p.line_count, coalesce(sum(l.amount_cents), 0) AS lines_sum, count(l.posting_id) AS lines, p.status, to_char(p.business_day, 'YYYY-MM-DD') AS business_day
       FROM payouts p LEFT JOIN payout_lines l ON l.payout_id = p.id WHERE p.account_id = $1 AND p.currency = $2
      GROUP BY p.id ORDER BY p.business_day`,
    [accountId, currency],
  );
  return {
    owed: Number(t.owed),
    paidOut: Number(t.paid_out),
    all: Number(t.all_sum),
    unpaid: Number(t.unpaid),
    payoutsNotReturned: Number(t.not_returned),
    doubled: Number(t.doubled),
    payouts: rows.map((r) => ({
      id: r.id,
      amount: Number(r.amount_cents),
      lineCount: Number(r.line_count),
      linesSum: Number(r.lines_sum),
      lines: Number(r.lines),
      status: r.status,
      businessDay: r.business_day,
    })),
  };
}

/** Owed by the postings no payout holds, booked before `before`. */
export async function unpaidBefore(sql: Sql, accountId: string, currency: string, before: Date): Promise<{ owed: number; count: number }> {
  const { rows } = await sql.query<{ owed: number | string; n: number | string }>(
    `SELECT -coalesce(sum(amount_cents), 0) AS owed, count(*) AS n FROM balance_postings bp
      WHERE account_id = $1 AND currency = $2 AND book = 'merchant_payable' AND kind <> 'payout' AND occurred_at < $3
        AND NOT EXISTS (SELECT 1 FROM payout_lines l WHERE l.posting_id = bp.id)`,
    [accountId, currency, before],
  );
  return { owed: Number(rows[0]!.owed), count: Number(rows[0]!.n) };
}

const JAR = '/usr/share/java/hbci4j-core.jar';

/**
 * The pain.001 schemas, from Debian's libhbci4j-core-java (`.ci/run` installs it with
 * libxml2-utils): extracted once per test file into a temporary directory.
 */
export function painSchemas(): Record<PainFormat, string> {
  if (!existsSync(JAR)) throw new Error(`${JAR} is missing: apt-get install libhbci4j-core-java libxml2-utils unzip (.ci/run does)`);
  const dir = mkdtempSync(join(tmpdir(), 'chipin-pain001-'));
  const out = {} as Record<PainFormat, string>;
  for (const format of ['pain.001.001.09', 'pain.001.001.03'] as const) {
    const file = join(dir, `${format}.xsd`);
    writeFileSync(file, execFileSync('unzip', ['-p', JAR, `${format}.xsd`]));
    out[format] = file;
  }
  return out;
}

/** Validates a document against a schema with xmllint; throws with xmllint's message when it does not. */
export function validateXml(xml: string, xsd: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'chipin-pain001-doc-'));
  const file = join(dir, 'file.xml');
  writeFileSync(file, xml);
  try {
    execFileSync('xmllint', ['--noout', '--schema', xsd, file], { stdio: 'pipe' });
  } catch (err) {
    const e = err as { stderr?: Buffer };
    throw new Error(`pain.001 does not validate against ${xsd}: ${e.stderr?.toString() ?? String(err)}`, { cause: err });
  }
}

/** The control sums and transaction counts the file states (group header and payment block). */
export function fileTotals(xml: string): { sums: string[]; counts: string[] } {
  return {
    sums: [...xml.matchAll(/<CtrlSum>([^<]*)<\/CtrlSum>/g)].map((m) => m[1]!),
    counts: [...xml.matchAll(/<NbOfTxs>([^<]*)<\/NbOfTxs>/g)].map((m) => m[1]!),
  };
}

export const SILENT = { info: () => {}, warn: () => {}, error: () => {} };

export const BANKS = [
  { holder_name: 'Boutique Éa & Fils', iban: 'FR76 3000 6000 0112 3456 7890 189', bic: 'AGRIFRPP' },
  { holder_name: 'Laden Müller GmbH', iban: 'DE89 3704 0044 0532 0130 00', bic: 'COBADEFFXXX' },
];

export const OPERATOR = { holderName: 'Chipin Opérateur SAS', iban: 'FR7630006000011234567890189', bic: 'AGRIFRPPXXX' };

/** The database, its transactions failing at the payout's journal: a run that dies before its commit. */
export function crashingAtJournal(real: Database): Database {
  const wrap = (tx: Sql): Sql => ({
    query: (text, params, options) => (text.includes('INSERT INTO balance_postings') ? Promise.reject(new Error('crash before commit')) : tx.query(text, params, options)),
    exec: (script) => tx.exec(script),
    notify: (channel) => tx.notify(channel),
  });
  return {
    kind: real.kind,
    query: (text, params, options) => real.query(text, params, options),
    exec: (script) => real.exec(script),
    notify: (channel) => real.notify(channel),
    listen: (channel, fn) => real.listen(channel, fn),
    close: () => real.close(),
    transaction: (fn) => real.transaction((tx) => fn(wrap(tx))),
  };
}
