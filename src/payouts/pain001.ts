import { Document } from 'sepa';
import { decimalOfCents, SEPA_CURRENCY, sepaText } from '../domain/payouts.ts';
import type { BankDetails } from './bank-details.ts';

/**
 * The operator's SEPA credit transfer file (ISO 20022 pain.001; docs/money-operations.md#the-sepa-file):
 * one payment information block debiting the operator's account, one credit transfer per payout to
 * the merchant's IBAN and BIC. Built with the `sepa` library (docs/dependencies.md), which writes
 * the XML and checks each field's length, IBAN and BIC.
 */

export const PAIN_FORMATS = ['pain.001.001.09', 'pain.001.001.03'] as const;
export type PainFormat = (typeof PAIN_FORMATS)[number];
/** The EPC's current rulebook version (SEPA 2019 rulebook, in force since November 2025); `.03` for banks that still ask for it. */
export const DEFAULT_PAIN_FORMAT: PainFormat = 'pain.001.001.09';

/**
 * Transfers per file at most: the ids the library derives (`<MsgId>.0.<n>`) must stay within the
 * 35 characters of `InstrId`; the payouts left over go into the next export.
 */
export const MAX_TRANSFERS_PER_FILE = 9_999;

export interface CreditTransfer {
  /** The payout's uuid. */
  payoutId: string;
  amountCents: number;
  /** `YYYY-MM-DD`, named in the remittance information. */
  businessDay: string;
  creditor: BankDetails;
}

export interface Pain001 {
  xml: string;
  messageId: string;
  transactionCount: number;
  controlSumCents: number;
}

/**
 * The file's message id (`MsgId`, at most 35 characters, unique per operator): the export's day and
 * 12 characters of its uuid, short enough for the ids the library derives from it.
 */
export function messageIdOf(exportId: string, day: string): string {
  return `CHIPIN${day.replace(/-/g, '')}${exportId.replace(/-/g, '').slice(0, 12).toUpperCase()}`;
}

/** What the transfer tells the merchant's bank statement: which payout, of which day (SEPA characters only). */
export function remittanceOf(t: Pick<CreditTransfer, 'payoutId' | 'businessDay'>): string {
  return `CHIPIN PAYOUT ${t.payoutId} ${t.businessDay}`;
}

/**
 * Builds the file. Amounts go to the library as numbers of euros (it takes no other form) and come
 * back written with two decimals; the group's and the block's control sums and counts it writes
 * are then checked against the sum of the payouts' integer cents, and a file that disagrees is
 * never answered (it throws).
 */
export function buildPain001(input: {
  format: PainFormat;
  messageId: string;
  createdAt: Date;
  /** `YYYY-MM-DD`: the day the operator asks its bank to execute the transfers. */
  executionDay: string;
  debtor: BankDetails;
  transfers: readonly CreditTransfer[];
}): Pain001 {
  if (input.transfers.length === 0) throw new Error('a pain.001 file needs at least one transfer');
  if (input.transfers.length > MAX_TRANSFERS_PER_FILE) throw new Error(`a pain.001 file holds at most ${MAX_TRANSFERS_PER_FILE} transfers`);
  const doc = new Document(input.format);
  doc.grpHdr.id = input.messageId;
  doc.grpHdr.created = input.createdAt;
  doc.grpHdr.initiatorName = sepaText(input.debtor.holderName, 70);

  const info = doc.createPaymentInfo();
  const [y, m, d] = input.executionDay.split('-').map(Number) as [number, number, number];
  // The library writes the date's local calendar day: noon of that day, local, whatever the zone.
  info.requestedExecutionDate = new Date(y, m - 1, d, 12);
  info.debtorIBAN = input.debtor.iban;
  info.debtorBIC = input.debtor.bic;
  info.debtorName = sepaText(input.debtor.holderName, 70);
  info.batchBooking = true;
  doc.addPaymentInfo(info);

  let controlSumCents = 0;
  for (const t of input.transfers) {
    if (!Number.isSafeInteger(t.amountCents) || t.amountCents <= 0) throw new Error(`payout ${t.payoutId}: a transfer's amount must be a positive integer of cents`);
    controlSumCents += t.amountCents;
    const tx = info.createTransaction();
    tx.creditorName = sepaText(t.creditor.holderName, 70);
    tx.creditorIBAN = t.creditor.iban;
    tx.creditorBIC = t.creditor.bic;
    tx.amount = Number(decimalOfCents(t.amountCents));
    tx.currency = SEPA_CURRENCY;
    tx.remittanceInfo = remittanceOf(t);
    // The payout's uuid without its dashes: 32 of the 35 characters an end-to-end id may have.
    tx.end2endId = t.payoutId.replace(/-/g, '');
    info.addTransaction(tx);
  }
  if (!Number.isSafeInteger(controlSumCents)) throw new Error('the control sum of a pain.001 file exceeds the integers JavaScript holds exactly');

  const xml = doc.toString();
  const expected = decimalOfCents(controlSumCents);
  const sums = [...xml.matchAll(/<CtrlSum>([^<]*)<\/CtrlSum>/g)].map((x) => x[1]);
  const counts = [...xml.matchAll(/<NbOfTxs>([^<]*)<\/NbOfTxs>/g)].map((x) => x[1]);
  if (sums.length !== 2 || sums.some((s) => s !== expected) || counts.length !== 2 || counts.some((c) => c !== String(input.transfers.length))) {
    throw new Error(`pain.001 control sums ${sums.join(', ')} or counts ${counts.join(', ')} differ from the payouts' ${expected} in ${input.transfers.length} transfers`);
  }
  return { xml, messageId: input.messageId, transactionCount: input.transfers.length, controlSumCents };
}
