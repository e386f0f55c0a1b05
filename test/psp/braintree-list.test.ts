import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPspFault, type TransactionRef } from '../../src/psp/connector.ts';
import { BraintreeConnector } from '../../src/psp/braintree/connector.ts';
import { LOCAL_PSP_HTTP } from './fixtures/local-http.ts';
import { unusedOperations } from './fixtures/operations.ts';
import { MERCHANT, braintreeHarness, type BraintreeHarness } from './fixtures/braintree/harness.ts';
import { testCard } from './fixtures/sandbox/cards.ts';
import { byTransaction, cardPayment, expectListedAsRetrieved, listAll } from './fixtures/list-all.ts';

const key = () => `list-${randomUUID()}`;
const HOUR = 3_600_000;

describe('braintree listTransactions (transaction search, docs/money-operations.md#reconciliation)', () => {
  let h: BraintreeHarness;
  let lister: BraintreeConnector;
  let start: Date;
  let end: Date;
  const ids = {} as Record<'untouched' | 'refundedInPeriod' | 'capturedInPeriod' | 'refunded' | 'partlyCaptured' | 'onlyHeld' | 'voided' | 'declined' | 'after', string>;

  const listerAt = (baseUrl: string, timeoutMs = 2_000) =>
    new BraintreeConnector({
      credentials: { merchantId: MERCHANT.merchantId, publicKey: MERCHANT.publicKey, privateKey: MERCHANT.privateKey },
      baseUrl,
      sandbox: true,
      clock: h.clock,
      timeoutMs,
      http: LOCAL_PSP_HTTP,
      operations: unusedOperations(h.clock),
      listPageSize: 2,
    });
  const pay = (amountCents: number, capture: 'automatic' | 'manual', card = '4111 1111 1111 1111') => cardPayment(h.connector, testCard(card), amountCents, capture);
  const refund = (transaction: TransactionRef, amountCents: number) => h.connector.refund({ idempotencyKey: key(), transaction, amountCents });
  const capture = (transaction: TransactionRef, amountCents: number) => h.connector.capture({ idempotencyKey: key(), transaction, amountCents });

  beforeAll(async () => {
    h = await braintreeHarness();
    lister = listerAt(h.account.baseUrl);
    ids.untouched = (await pay(900, 'automatic')).transactionId;
    const early = await pay(1_000, 'automatic');
    ids.refundedInPeriod = early.transactionId;
    const earlyHold = await pay(3_000, 'manual');
    ids.capturedInPeriod = earlyHold.transactionId;
    h.clock.advance(HOUR);
    start = h.clock.now();
    await refund(early, 400);
    await capture(earlyHold, 3_000);
    const refunded = await pay(5_000, 'automatic');
    ids.refunded = refunded.transactionId;
    await refund(refunded, 1_200);
    await refund(refunded, 300);
    const held = await pay(8_000, 'manual');
    ids.partlyCaptured = held.transactionId;
    await capture(held, 6_500);
    // Chargebacks: one lost in part (its amount taken back), one won, a retrieval request (nothing taken).
    h.fake.dispute(held.transactionId, 'lost', { amount: 5_000 });
    h.fake.dispute(refunded.transactionId, 'won');
    h.fake.dispute(refunded.transactionId, 'lost', { kind: 'retrieval' });
    ids.onlyHeld = (await pay(2_500, 'manual')).transactionId;
    const toVoid = await pay(1_500, 'manual');
    ids.voided = toVoid.transactionId;
    await h.connector.void({ idempotencyKey: key(), transaction: toVoid });
    // The fake's insufficient-funds card is saved, then refused at the sale (processor 2001).
    ids.declined = (await pay(600, 'automatic', '4000 0000 0000 9995')).transactionId;
    h.clock.advance(HOUR);
    end = h.clock.now();
    ids.after = (await pay(700, 'automatic')).transactionId;
    await refund(refunded, 500);
  });
  afterAll(() => h.teardown());

  it('lists the sales created, captured or refunded in the period, a page at a time, with their current totals', async () => {
    const { records, pages } = await listAll(lister, start, end);
    expect(pages).toBeGreaterThan(4);
    const { seen, totals } = byTransaction(records);
    const base = { currency: 'EUR', refundedCents: 0, chargedBackCents: 0 };
    expect(totals(ids.refundedInPeriod)).toEqual({
      ...base,
      transactionId: ids.refundedInPeriod,
      status: 'refunded',
      amountCents: 1_000,
      capturedCents: 1_000,
      refundedCents: 400,
    });
    expect(totals(ids.capturedInPeriod)).toEqual({ ...base, transactionId: ids.capturedInPeriod, status: 'captured', amountCents: 3_000, capturedCents: 3_000 });
    // Created (and settled) in the period, refunded twice in it: three records; the refund after it already counts.
    expect(seen.get(ids.refunded)).toHaveLength(4);
    expect(totals(ids.refunded)).toEqual({ ...base, transactionId: ids.refunded, status: 'refunded', amountCents: 5_000, capturedCents: 5_000, refundedCents: 2_000 });
    expect(totals(ids.partlyCaptured)).toEqual({
      ...base,
      transactionId: ids.partlyCaptured,
      status: 'captured',
      amountCents: 8_000,
      capturedCents: 6_500,
      chargedBackCents: 5_000,
    });
    expect(totals(ids.onlyHeld)).toEqual({ ...base, transactionId: ids.onlyHeld, status: 'authorized', amountCents: 2_500, capturedCents: 0 });
    expect(totals(ids.voided)).toEqual({ ...base, transactionId: ids.voided, status: 'voided', amountCents: 1_500, capturedCents: 0 });
    expect(totals(ids.declined)).toMatchObject({ transactionId: ids.declined, status: 'declined', capturedCents: 0, refundedCents: 0 });
    for (const absent of [ids.untouched, ids.after]) expect(seen.has(absent)).toBe(false);
  });

  it('gives each payment the totals retrieve reads', async () => {
    await expectListedAsRetrieved(h.connector, (await listAll(lister, start, end)).records, [
      ids.refundedInPeriod,
      ids.capturedInPeriod,
      ids.refunded,
      ids.partlyCaptured,
      ids.onlyHeld,
      ids.voided,
      ids.declined,
    ]);
  });

  it('searches as the SDK sends it: the type and a date range (both ends included), then the page by ids', async () => {
    const before = h.fake.requests.length;
    await lister.listTransactions({ from: start, to: end, cursor: null });
    const [idsSearch, pageSearch] = h.fake.requests.slice(before);
    expect(idsSearch!.path).toBe(`/merchants/${MERCHANT.merchantId}/transactions/advanced_search_ids`);
    expect(idsSearch!.body).toEqual({ search: { created_at: { min: start.toISOString(), max: new Date(end.getTime() - 1).toISOString() }, type: ['sale'] } });
    expect(pageSearch!.path).toBe(`/merchants/${MERCHANT.merchantId}/transactions/advanced_search_ids`);
    expect(Object.keys((pageSearch!.body as { search: object }).search)).toEqual(['ids']);
    const credits = h.fake.requests.length;
    await lister.listTransactions({ from: start, to: end, cursor: 'credits:0' });
    expect(h.fake.requests[credits]!.body).toEqual({ search: { created_at: { min: start.toISOString(), max: new Date(end.getTime() - 1).toISOString() }, type: ['credit'] } });
  });

  it('a fault at Braintree throws a PSP fault, and the page is read again from the same cursor', async () => {
    const first = await lister.listTransactions({ from: start, to: end, cursor: null });
    h.fake.failNext('server_error', 1, (p) => p.endsWith('/advanced_search_ids'));
    expect(isPspFault(await lister.listTransactions({ from: start, to: end, cursor: first.nextCursor }).catch((e: unknown) => e))).toBe(true);
    h.fake.failNext('malformed', 1, (p) => p.endsWith('/advanced_search'));
    await expect(lister.listTransactions({ from: start, to: end, cursor: first.nextCursor })).rejects.toMatchObject({ code: 'bad_response' });
    expect((await lister.listTransactions({ from: start, to: end, cursor: first.nextCursor })).records).toHaveLength(2);
    await expect(listerAt('http://127.0.0.1:9', 500).listTransactions({ from: start, to: end, cursor: null })).rejects.toMatchObject({ code: 'unreachable' });
  });
});
