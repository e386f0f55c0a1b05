import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPspFault, type TransactionRef } from '../../src/psp/connector.ts';
import { HyperswitchConnector } from '../../src/psp/hyperswitch/connector.ts';
import { LOCAL_PSP_HTTP } from './fixtures/local-http.ts';
import { unusedOperations } from './fixtures/operations.ts';
import { CREDENTIALS, HYPERSWITCH_FAKE_CARDS, PUBLIC_URL, hyperswitchHarness, type HyperswitchHarness } from './fixtures/hyperswitch/harness.ts';
import { testCard } from './fixtures/sandbox/cards.ts';
import { byTransaction, expectListedAsRetrieved, listAll } from './fixtures/list-all.ts';

const key = () => `list-${randomUUID()}`;
const HOUR = 3_600_000;

describe('hyperswitch listTransactions (payments list, refunds list; docs/money-operations.md#reconciliation)', () => {
  let h: HyperswitchHarness;
  let lister: HyperswitchConnector;
  let start: Date;
  let end: Date;
  let pm: string;
  const ids = {} as Record<'untouched' | 'refundedInPeriod' | 'refunded' | 'partlyCaptured' | 'onlyHeld' | 'voided' | 'declined' | 'after', string>;

  const listerAt = (baseUrl: string, timeoutMs = 2_000) =>
    new HyperswitchConnector(
      { id: randomUUID(), environment: 'test', credentials: CREDENTIALS, baseUrl },
      { clock: h.clock, publicUrl: PUBLIC_URL, timeoutMs, http: LOCAL_PSP_HTTP, operations: unusedOperations(h.clock) },
      { listPageSize: 2 },
    );
  const pay = async (amountCents: number, capture: 'automatic' | 'manual', method = pm): Promise<TransactionRef> => {
    const r = await h.hyperswitch.authorize({ idempotencyKey: key(), paymentMethodId: method, amountCents, currency: 'EUR', capture, returnUrl: 'https://shop.example/back' });
    return { transactionId: r.transactionId, pspState: r.pspState ?? null };
  };
  const refund = (transaction: TransactionRef, amountCents: number) => h.hyperswitch.refund({ idempotencyKey: key(), transaction, amountCents });

  beforeAll(async () => {
    h = await hyperswitchHarness();
    lister = listerAt(h.fake.url);
    const a = await h.hyperswitch.attachPaymentMethod({ idempotencyKey: key(), card: HYPERSWITCH_FAKE_CARDS.success });
    if (!a.ok) throw new Error(a.reason);
    pm = a.paymentMethodId;
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
    await h.hyperswitch.capture({ idempotencyKey: key(), transaction: held, amountCents: 6_500 });
    // The processor reports disputes: one lost (its amount taken back), one won (nothing).
    h.fake.settleDispute(h.fake.openDispute(held.transactionId, 5_000), 'dispute_lost');
    h.fake.settleDispute(h.fake.openDispute(refunded.transactionId), 'dispute_won');
    ids.onlyHeld = (await pay(2_500, 'manual')).transactionId;
    const toVoid = await pay(1_500, 'manual');
    ids.voided = toVoid.transactionId;
    await h.hyperswitch.void({ idempotencyKey: key(), transaction: toVoid });
    // The fake's card 0341 is saved, then refused off session: a declined payment.
    const refusing = await h.hyperswitch.attachPaymentMethod({ idempotencyKey: key(), card: testCard('4000 0000 0000 0341') });
    if (!refusing.ok) throw new Error(refusing.reason);
    const declined = await h.hyperswitch.chargeOffSession({ idempotencyKey: key(), paymentMethodId: refusing.paymentMethodId, amountCents: 600, currency: 'EUR' });
    expect(declined.status).toBe('declined');
    ids.declined = declined.transactionId;
    h.clock.advance(HOUR);
    end = h.clock.now();
    ids.after = (await pay(700, 'automatic')).transactionId;
    await refund(refunded, 500);
  });
  afterAll(() => h.teardown());

  it('lists the payments created in the period and those refunded in it, a page at a time, with their current totals', async () => {
    const { records, pages } = await listAll(lister, start, end);
    expect(pages).toBeGreaterThan(3);
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
    // Listed once as created, twice as refunded in the period; the refund after it already counts.
    expect(seen.get(ids.refunded)).toHaveLength(3);
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
    expect(totals(ids.declined)).toEqual({ ...base, transactionId: ids.declined, status: 'declined', amountCents: 600, capturedCents: 0 });
    for (const absent of [ids.untouched, ids.after]) expect(seen.has(absent)).toBe(false);
    // The zero-amount payments that saved the cards move no money.
    expect(records.every((r) => r.amountCents > 0)).toBe(true);
  });

  it('gives each payment the totals retrieve reads', async () => {
    await expectListedAsRetrieved(h.hyperswitch, (await listAll(lister, start, end)).records, [
      ids.refundedInPeriod,
      ids.refunded,
      ids.partlyCaptured,
      ids.onlyHeld,
      ids.voided,
      ids.declined,
    ]);
  });

  it('sends the documented lists: created.gte / created.lt / limit / starting_after, then start_time / end_time / offset / limit', async () => {
    const before = h.fake.requests.length;
    const bodies = h.fake.bodies.length;
    await listAll(lister, start, end);
    const lines = h.fake.requests.slice(before).filter((l) => l.includes('/list'));
    const first = new URLSearchParams(lines[0]!.split(' ')[1]!.split('?')[1]);
    expect(Object.fromEntries(first)).toEqual({ 'created.gte': start.toISOString(), 'created.lt': end.toISOString(), limit: '2' });
    expect(new URLSearchParams(lines[1]!.split(' ')[1]!.split('?')[1]).get('starting_after')).toMatch(/^pay_/);
    const refundLists = h.fake.bodies.slice(bodies).filter((b) => b.path === '/refunds/list');
    expect(refundLists[0]!.body).toEqual({ start_time: start.toISOString(), end_time: new Date(end.getTime() - 1).toISOString(), offset: 0, limit: 2 });
    expect(refundLists[1]!.body).toMatchObject({ offset: 2 });
  });

  it('a fault at Hyperswitch throws a PSP fault, and the page is read again from the same cursor', async () => {
    const first = await lister.listTransactions({ from: start, to: end, cursor: null });
    h.fake.fail('http_500', { path: '/payments/list' });
    expect(isPspFault(await lister.listTransactions({ from: start, to: end, cursor: first.nextCursor }).catch((e: unknown) => e))).toBe(true);
    h.fake.fail('malformed', { path: '/refunds/list' });
    await expect(lister.listTransactions({ from: start, to: end, cursor: 'refunds:0' })).rejects.toMatchObject({ code: 'bad_response' });
    h.fake.fail('http_500', { path: '/payments/pay_' });
    expect(isPspFault(await lister.listTransactions({ from: start, to: end, cursor: 'refunds:0' }).catch((e: unknown) => e))).toBe(true);
    expect((await lister.listTransactions({ from: start, to: end, cursor: 'refunds:0' })).records).toHaveLength(2);
    await expect(listerAt('http://127.0.0.1:9', 500).listTransactions({ from: start, to: end, cursor: null })).rejects.toMatchObject({ code: 'unreachable' });
  });
});
