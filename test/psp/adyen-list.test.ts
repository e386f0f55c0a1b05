import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADYEN_REPORT_LOOKBACK_DAYS, readReport, recordsOf, reportBaseUrl } from '../../src/psp/adyen/records.ts';
import type { PspRecord, TransactionRef, TransactionResult } from '../../src/psp/connector.ts';
import { ADYEN_CARDS, adyenHarness, type AdyenHarness } from './fixtures/adyen/harness.ts';
import { listAll } from './fixtures/list-all.ts';

const key = () => `list-${randomUUID()}`;
const DAY = 86_400_000;
const HOUR = 3_600_000;
const ref = (r: TransactionResult): TransactionRef => ({ transactionId: r.transactionId, pspState: r.pspState ?? null });

describe('adyen listTransactions (daily Payment accounting reports; docs/money-operations.md#reconciliation)', () => {
  let h: AdyenHarness;
  let pm: string;
  let declinedPm: string;
  /** The period: two whole UTC days, P1 and P2. */
  let from: Date;
  let to: Date;
  const ids = {} as Record<'untouched' | 'early' | 'refunded' | 'onlyHeld' | 'declined' | 'disputeWon' | 'held' | 'voided' | 'after', string>;

  const pay = async (amountCents: number, capture: 'automatic' | 'manual', method = pm) =>
    h.connector.authorize({ idempotencyKey: key(), paymentMethodId: method, amountCents, currency: 'EUR', capture, returnUrl: 'https://shop.example/back' });
  const refund = (r: TransactionResult, amountCents: number) => h.connector.refund({ idempotencyKey: key(), transaction: ref(r), amountCents });
  const day = (d: Date) => d.toISOString().slice(0, 10);

  beforeAll(async () => {
    h = await adyenHarness();
    const a = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: ADYEN_CARDS.success });
    const d = await h.connector.attachPaymentMethod({ idempotencyKey: key(), card: ADYEN_CARDS.declined });
    if (!a.ok || !d.ok) throw new Error('attach');
    pm = a.paymentMethodId;
    declinedPm = d.paymentMethodId;
    // 01:00 UTC of a day: five days before the period (its Settled record, two days later, is still before it).
    h.clock.advance(DAY - (h.clock.now().getTime() % DAY) + HOUR);
    ids.untouched = (await pay(900, 'automatic')).transactionId;
    h.clock.advance(3 * DAY);
    // Two days before the period: captured then, refunded in it; its Settled record falls on P1.
    const early = await pay(10_000, 'automatic');
    ids.early = early.transactionId;
    h.clock.advance(2 * DAY);
    from = new Date(h.clock.now().getTime() - HOUR);
    to = new Date(from.getTime() + 2 * DAY);
    // P1
    await refund(early, 2_500);
    const refunded = await pay(5_000, 'automatic');
    ids.refunded = refunded.transactionId;
    await refund(refunded, 1_200);
    await refund(refunded, 300);
    ids.onlyHeld = (await pay(2_500, 'manual')).transactionId;
    const declined = await pay(600, 'automatic', declinedPm);
    expect(declined.status).toBe('declined');
    ids.declined = declined.transactionId;
    ids.disputeWon = (await pay(3_000, 'automatic')).transactionId;
    // P2
    h.clock.advance(DAY);
    const held = await pay(8_000, 'manual');
    ids.held = held.transactionId;
    await h.connector.capture({ idempotencyKey: key(), transaction: ref(held), amountCents: 6_500 });
    h.fake.chargeback(ids.held, 5_000);
    h.fake.chargeback(ids.disputeWon, 3_000);
    h.fake.chargeback(ids.disputeWon, 3_000, 'ChargebackReversed');
    const toVoid = await pay(1_500, 'manual');
    ids.voided = toVoid.transactionId;
    await h.connector.void({ idempotencyKey: key(), transaction: ref(toVoid) });
    // P3, after the period: a payment, and one more refund of a payment of the period.
    h.clock.advance(DAY);
    ids.after = (await pay(700, 'automatic')).transactionId;
    await refund(refunded, 500);
    h.clock.advance(DAY);
  });
  afterAll(() => h.teardown());

  it('lists the payments each day of the period shows, in small pages, with their totals over the lookback, the period and the days since', async () => {
    const { records, pages } = await listAll(h.build({ reportPageSize: 2 }), from, to);
    // P1 shows five payments (three pages of two), P2 three (two pages).
    expect(pages).toBe(5);
    const seen = new Map<string, PspRecord[]>();
    for (const r of records) seen.set(r.transactionId, [...(seen.get(r.transactionId) ?? []), r]);
    const totals = (id: string) => {
      const all = seen.get(id) ?? [];
      for (const r of all) expect(r).toEqual(all[0]);
      return all[0];
    };
    const base = { currency: 'EUR', capturedCents: 0, refundedCents: 0, chargedBackCents: 0 };
    // Captured before the period (the lookback), its Settled record in it: counted once.
    expect(totals(ids.early)).toEqual({ ...base, transactionId: ids.early, status: 'refunded', amountCents: 10_000, capturedCents: 10_000, refundedCents: 2_500 });
    // The refund after the period counts too (the reports up to today's are read): totals as current as Adyen's last report.
    expect(totals(ids.refunded)).toEqual({ ...base, transactionId: ids.refunded, status: 'refunded', amountCents: 5_000, capturedCents: 5_000, refundedCents: 2_000 });
    expect(totals(ids.onlyHeld)).toEqual({ ...base, transactionId: ids.onlyHeld, status: 'authorized', amountCents: 2_500 });
    expect(totals(ids.declined)).toEqual({ ...base, transactionId: ids.declined, status: 'declined', amountCents: 600 });
    // Listed on both days, with the same totals: its chargeback reversed.
    expect(seen.get(ids.disputeWon)).toHaveLength(2);
    expect(totals(ids.disputeWon)).toEqual({ ...base, transactionId: ids.disputeWon, status: 'captured', amountCents: 3_000, capturedCents: 3_000 });
    expect(totals(ids.held)).toEqual({ ...base, transactionId: ids.held, status: 'captured', amountCents: 8_000, capturedCents: 6_500, chargedBackCents: 5_000 });
    expect(totals(ids.voided)).toEqual({ ...base, transactionId: ids.voided, status: 'voided', amountCents: 1_500 });
    for (const absent of [ids.untouched, ids.after]) expect(seen.has(absent)).toBe(false);
  });

  it('downloads each day’s documented file with the report user’s X-API-Key: the lookback, the period and the days after it up to today', async () => {
    const before = h.fake.requests.length;
    await h.connector.listTransactions({ from, to, cursor: null });
    const sent = h.fake.requests.slice(before);
    const files = sent.map((r) => r.path);
    const name = (t: number) => `/reports/download/MerchantAccount/ChipinTestECOM/payments_accounting_report_${day(new Date(t)).replace(/-/g, '_')}.csv`;
    expect(files[0]).toBe(name(from.getTime()));
    // The lookback, the period's two days, then every day after it up to today's.
    const after: string[] = [];
    for (let t = from.getTime() + 2 * DAY; day(new Date(t)) <= day(h.clock.now()); t += DAY) after.push(name(t));
    expect(after.length).toBeGreaterThan(0);
    expect(new Set(files)).toEqual(
      new Set([...Array.from({ length: ADYEN_REPORT_LOOKBACK_DAYS }, (_, n) => name(from.getTime() - (n + 1) * DAY)), name(from.getTime()), name(from.getTime() + DAY), ...after]),
    );
    for (const r of sent) {
      expect(r.method).toBe('GET');
      expect(r.headers['x-api-key']).toBe(h.credentials.report_api_key);
    }
  });

  it('downloads each day’s report once per run however many pages read it (only today’s, not made yet, is asked again)', async () => {
    const before = h.fake.requests.length;
    const { pages } = await listAll(h.build({ reportPageSize: 2 }), from, to);
    expect(pages).toBe(5);
    const asked = new Map<string, number>();
    for (const r of h.fake.requests.slice(before)) asked.set(r.path, (asked.get(r.path) ?? 0) + 1);
    const today = `payments_accounting_report_${day(h.clock.now()).replace(/-/g, '_')}.csv`;
    expect(asked.size).toBe(ADYEN_REPORT_LOOKBACK_DAYS + 2 + Math.round((h.clock.now().getTime() - to.getTime()) / DAY) + 1);
    for (const [path, n] of asked) expect(n, path).toBe(path.endsWith(today) ? pages : 1);
    // A new run (the first page again) downloads afresh.
    const again = h.fake.requests.length;
    await h.build({ reportPageSize: 2 }).listTransactions({ from, to, cursor: null });
    expect(h.fake.requests.length - again).toBe(asked.size);
  });

  it('a period day without its report yet, and a 5xx, are unreachable; the same cursor works once Adyen answers', async () => {
    const lister = h.build({ reportPageSize: 2 });
    const today = new Date(h.clock.now().getTime() - (h.clock.now().getTime() % DAY));
    // The period runs to the end of today, whose report Adyen makes tomorrow: every page needs it.
    const period = { from, to: new Date(today.getTime() + DAY) };
    await expect(lister.listTransactions({ ...period, cursor: null })).rejects.toMatchObject({ code: 'unreachable' });
    await expect(lister.listTransactions({ ...period, cursor: `${day(today)}:0` })).rejects.toMatchObject({ code: 'unreachable' });
    h.clock.advance(DAY);
    h.fake.failReports('http500');
    await expect(lister.listTransactions({ ...period, cursor: null })).rejects.toMatchObject({ code: 'unreachable' });
    expect((await lister.listTransactions({ ...period, cursor: null })).records).toHaveLength(2);
    // The day is over: its report holds the Settled record of the capture made two days before.
    const page = await lister.listTransactions({ ...period, cursor: `${day(today)}:0` });
    expect(page.records).toEqual([expect.objectContaining({ transactionId: ids.held, capturedCents: 6_500, chargedBackCents: 5_000 })]);
    // Over the longer period, the refund made after the first one counts, on every page.
    const { records } = await listAll(lister, period.from, period.to);
    const refunded = records.filter((r) => r.transactionId === ids.refunded);
    expect(refunded.length).toBeGreaterThan(1);
    for (const r of refunded) expect(r.refundedCents).toBe(2_000);
    expect(records.some((r) => r.transactionId === ids.after)).toBe(true);
    expect(page.nextCursor).toBeNull();
  });

  it('an answer that is not the report is bad_response; refused or missing report credentials are bad_credentials', async () => {
    h.fake.failReports('malformed');
    await expect(h.connector.listTransactions({ from, to, cursor: null })).rejects.toMatchObject({ code: 'bad_response' });
    // The ws user's API key is not the report user's: Adyen refuses it (401).
    await expect(h.build({ report_api_key: h.credentials.api_key }).listTransactions({ from, to, cursor: null })).rejects.toMatchObject({ code: 'bad_credentials' });
    const before = h.fake.requests.length;
    await expect(h.build({ report_api_key: '' }).listTransactions({ from, to, cursor: null })).rejects.toMatchObject({ code: 'bad_credentials' });
    expect(h.fake.requests.length).toBe(before);
    await expect(h.connector.listTransactions({ from, to, cursor: '1999-01-01:0' })).rejects.toThrow(RangeError);
  });

  it('reads amounts by record type whatever their sign, columns by name, quoted fields with commas', () => {
    const header = 'Merchant Account,"Company, Account",Psp Reference,Record Type,Payment Currency,Authorised (PC),Captured (PC),Received (PC)';
    const lines = (sign: string) =>
      [
        header,
        `M,"A, ""B""",AAAA000000000001,Authorised,EUR,${sign}80.00,,80.00`,
        `M,x,AAAA000000000001,SentForSettle,EUR,,${sign}65.00,`,
        `M,x,AAAA000000000001,Settled,EUR,,${sign}65.00,`,
        `M,x,AAAA000000000001,SentForRefund,EUR,,${sign}10.50,`,
        `M,x,AAAA000000000001,Chargeback,EUR,,${sign}20.00,`,
        `Other,x,AAAA000000000002,SentForSettle,EUR,,5.00,`,
        `M,x,AAAA000000000003,SentForSettle,JPY,,${sign}500,`,
      ].join('\r\n');
    const only = new Set(['AAAA000000000001', 'AAAA000000000002', 'AAAA000000000003']);
    const plus = recordsOf(readReport(lines(''), 'M'), only);
    expect(recordsOf(readReport(lines('-'), 'M'), only)).toEqual(plus);
    expect(plus.get('AAAA000000000001')).toEqual({
      transactionId: 'AAAA000000000001',
      status: 'refunded',
      currency: 'EUR',
      amountCents: 8_000,
      capturedCents: 6_500,
      refundedCents: 1_050,
      chargedBackCents: 2_000,
    });
    expect(plus.has('AAAA000000000002')).toBe(false);
    expect(plus.get('AAAA000000000003')).toMatchObject({ currency: 'JPY', capturedCents: 500 });
    expect(() => readReport(`${header}\r\nM,x,AAAA000000000001,SentForSettle,EUR,,1.234,`, 'M')).toThrow(/not an amount/);
    expect(() => readReport('Psp Reference,Record Type\r\nA,B', 'M')).toThrow(/no column/);
  });

  it('reads an amount written with more decimals than its currency has when they are zeros ("10.00" JPY, "12.340" EUR); a digit beyond, or an amount past exact integers, is not an amount', () => {
    const header = 'Merchant Account,Psp Reference,Record Type,Payment Currency,Authorised (PC),Captured (PC)';
    const rows = readReport(
      [header, 'M,AAAA000000000001,SentForSettle,JPY,,10.00', 'M,AAAA000000000002,SentForSettle,EUR,,-12.340', 'M,AAAA000000000003,SentForSettle,EUR,,7.000'].join('\n'),
      'M',
    );
    expect(rows.map((r) => r.captured)).toEqual([10, 1_234, 700]);
    expect(() => readReport(`${header}\nM,AAAA000000000001,SentForSettle,EUR,,12.341`, 'M')).toThrow(/not an amount/);
    expect(() => readReport(`${header}\nM,AAAA000000000001,SentForSettle,KWD,,9999999999999.999`, 'M')).toThrow(/not an amount/);
  });

  it('a payment whose capture lies before the lookback and that shows only refund or chargeback rows reads captured', () => {
    const row = (pspReference: string, recordType: string, captured: number) => ({
      pspReference,
      recordType,
      currency: 'EUR',
      authorised: undefined,
      captured,
      received: undefined,
    });
    const records = recordsOf(
      [
        row('AAAA000000000001', 'Chargeback', 3_000),
        row('AAAA000000000002', 'SentForRefund', 500),
        row('AAAA000000000002', 'RefundFailed', 500),
        row('AAAA000000000003', 'SentForRefund', 700),
      ],
      new Set(['AAAA000000000001', 'AAAA000000000002', 'AAAA000000000003']),
    );
    expect(records.get('AAAA000000000001')).toMatchObject({ status: 'captured', capturedCents: 0, chargedBackCents: 3_000 });
    expect(records.get('AAAA000000000002')).toMatchObject({ status: 'captured', capturedCents: 0, refundedCents: 0 });
    expect(records.get('AAAA000000000003')).toMatchObject({ status: 'refunded', refundedCents: 700 });
  });

  it('downloads reports from Adyen’s Customer Area host of the account’s environment', () => {
    expect(reportBaseUrl('https://checkout-test.adyen.com')).toBe('https://ca-test.adyen.com');
    expect(reportBaseUrl('https://1797a841fbb37ca7-AdyenDemo-checkout-live.adyenpayments.com/checkout')).toBe('https://ca-live.adyen.com');
    expect(reportBaseUrl('http://127.0.0.1:4100')).toBe('http://127.0.0.1:4100');
  });
});
