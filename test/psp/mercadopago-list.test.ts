import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPspFault, type TransactionRef } from '../../src/psp/connector.ts';
import { MercadoPagoConnector } from '../../src/psp/mercadopago/connector.ts';
import { LOCAL_PSP_HTTP } from './fixtures/local-http.ts';
import { unusedOperations } from './fixtures/operations.ts';
import { ACCESS_TOKEN, WEBHOOK_SECRET, mercadopagoHarness, type MercadoPagoHarness } from './fixtures/mercadopago/harness.ts';
import { testCard } from './fixtures/sandbox/cards.ts';
import { byTransaction, cardPayment, expectListedAsRetrieved, listAll } from './fixtures/list-all.ts';

const key = () => `list-${randomUUID()}`;
const HOUR = 3_600_000;

describe('mercadopago listTransactions (payment search, docs/money-operations.md#reconciliation)', () => {
  let h: MercadoPagoHarness;
  let lister: MercadoPagoConnector;
  let start: Date;
  let end: Date;
  const ids = {} as Record<'untouched' | 'refundedInPeriod' | 'refunded' | 'partlyCaptured' | 'onlyHeld' | 'chargedBack' | 'reimbursed' | 'after', string>;

  const listerWith = (baseUrl: string, timeoutMs = 2_000) =>
    new MercadoPagoConnector({
      accessToken: ACCESS_TOKEN,
      webhookSecret: WEBHOOK_SECRET,
      baseUrl,
      sandbox: true,
      clock: h.clock,
      timeoutMs,
      http: LOCAL_PSP_HTTP,
      operations: unusedOperations(h.clock),
      listPageSize: 2,
    });

  const pay = (amountCents: number, capture: 'automatic' | 'manual') => cardPayment(h.connector, testCard('4111 1111 1111 1111'), amountCents, capture);
  const refund = (transaction: TransactionRef, amountCents: number) => h.connector.refund({ idempotencyKey: key(), transaction, amountCents });

  beforeAll(async () => {
    h = await mercadopagoHarness();
    lister = listerWith(h.fake.url);
    ids.untouched = (await pay(900, 'automatic')).transactionId;
    const early = await pay(1_000, 'automatic');
    ids.refundedInPeriod = early.transactionId;
    h.clock.advance(HOUR);
    start = h.clock.now();
    await refund(early, 400);
    const refunded = await pay(5_000, 'automatic');
    ids.refunded = refunded.transactionId;
    await refund(refunded, 1_200);
    await refund(refunded, 300);
    const held = await pay(8_000, 'manual');
    ids.partlyCaptured = held.transactionId;
    await h.connector.capture({ idempotencyKey: key(), transaction: held, amountCents: 6_500 });
    ids.onlyHeld = (await pay(2_500, 'manual')).transactionId;
    ids.chargedBack = (await pay(4_000, 'automatic')).transactionId;
    ids.reimbursed = (await pay(3_000, 'automatic')).transactionId;
    h.fake.chargeback(ids.chargedBack, 'in_mediation');
    h.fake.chargeback(ids.reimbursed, 'in_mediation');
    h.clock.advance(HOUR);
    h.fake.chargeback(ids.chargedBack, 'settled');
    h.fake.chargeback(ids.reimbursed, 'reimbursed');
    h.clock.advance(HOUR);
    end = h.clock.now();
    ids.after = (await pay(700, 'automatic')).transactionId;
    await refund(refunded, 500);
  });
  afterAll(() => h.teardown());

  it('lists the payments created or last changed in the period, a page at a time, with their current totals', async () => {
    const { records, pages } = await listAll(lister, start, end);
    expect(pages).toBeGreaterThan(4);
    const { seen, totals } = byTransaction(records);
    const base = { currency: 'EUR', refundedCents: 0, chargedBackCents: 0 };
    // Created before the period, refunded in it: found by its last update.
    expect(totals(ids.refundedInPeriod)).toEqual({
      ...base,
      transactionId: ids.refundedInPeriod,
      status: 'refunded',
      amountCents: 1_000,
      capturedCents: 1_000,
      refundedCents: 400,
    });
    // Refunded once more after the period: its last update is outside, its creation inside; today's totals.
    expect(totals(ids.refunded)).toEqual({ ...base, transactionId: ids.refunded, status: 'refunded', amountCents: 5_000, capturedCents: 5_000, refundedCents: 2_000 });
    // Mercado Pago's transaction_amount is the captured amount once captured in part.
    expect(totals(ids.partlyCaptured)).toEqual({ ...base, transactionId: ids.partlyCaptured, status: 'captured', amountCents: 6_500, capturedCents: 6_500 });
    expect(totals(ids.onlyHeld)).toEqual({ ...base, transactionId: ids.onlyHeld, status: 'authorized', amountCents: 2_500, capturedCents: 0 });
    expect(totals(ids.chargedBack)).toEqual({ ...base, transactionId: ids.chargedBack, status: 'captured', amountCents: 4_000, capturedCents: 4_000, chargedBackCents: 4_000 });
    expect(totals(ids.reimbursed)).toEqual({ ...base, transactionId: ids.reimbursed, status: 'captured', amountCents: 3_000, capturedCents: 3_000 });
    expect(seen.has(ids.untouched)).toBe(false);
    expect(seen.has(ids.after)).toBe(false);
    expect(seen.get(ids.refunded)).toHaveLength(1);
    expect(seen.get(ids.refundedInPeriod)).toHaveLength(1);
  });

  it('gives each payment the totals retrieve reads', async () => {
    // A charged-back payment reads the same both ways (captured, its chargeback apart from refunds); a partly captured one is read by retrieve with the authorised amount of its state.
    await expectListedAsRetrieved(h.connector, (await listAll(lister, start, end)).records, [ids.refundedInPeriod, ids.refunded, ids.onlyHeld, ids.chargedBack, ids.reimbursed]);
  });

  it('sends the documented search: range, begin_date and end_date (both included), sort, criteria, offset, limit', async () => {
    const before = h.fake.requests.length;
    await listAll(lister, start, end);
    const searches = h.fake.requests.slice(before).map((r) => new URLSearchParams(r.query));
    expect(searches.length).toBeGreaterThan(4);
    expect(Object.fromEntries(searches[0]!)).toEqual({
      range: 'date_created',
      begin_date: start.toISOString(),
      end_date: new Date(end.getTime() - 1).toISOString(),
      sort: 'date_created',
      criteria: 'asc',
      offset: '0',
      limit: '2',
    });
    expect(searches[1]!.get('offset')).toBe('2');
    expect(searches.at(-1)!.get('range')).toBe('date_last_updated');
  });

  it('a fault at Mercado Pago throws a PSP fault, and the page is read again from the same cursor', async () => {
    const first = await lister.listTransactions({ from: start, to: end, cursor: null });
    h.fake.failNextSearch('server_error');
    const failed = await lister.listTransactions({ from: start, to: end, cursor: first.nextCursor }).catch((e: unknown) => e);
    expect(isPspFault(failed)).toBe(true);
    h.fake.failNextSearch('malformed_json');
    await expect(lister.listTransactions({ from: start, to: end, cursor: first.nextCursor })).rejects.toMatchObject({ code: 'bad_response' });
    const again = await lister.listTransactions({ from: start, to: end, cursor: first.nextCursor });
    expect(again.records).toHaveLength(2);
    await expect(listerWith('http://127.0.0.1:9', 500).listTransactions({ from: start, to: end, cursor: null })).rejects.toMatchObject({ code: 'unreachable' });
  });
});
