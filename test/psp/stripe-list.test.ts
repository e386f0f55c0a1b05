import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPspFault } from '../../src/psp/connector.ts';
import { StripeConnector } from '../../src/psp/stripe/connector.ts';
import { LOCAL_PSP_HTTP } from './fixtures/local-http.ts';
import { unusedOperations } from './fixtures/operations.ts';
import { SECRET_KEY, WEBHOOK_SECRET, stripeHarness, testCard, type StripeHarness } from './fixtures/stripe/harness.ts';
import { byTransaction, cardPayment, expectListedAsRetrieved, listAll } from './fixtures/list-all.ts';

const key = () => `list-${randomUUID()}`;
const HOUR = 3_600_000;

describe('stripe listTransactions (balance transactions, docs/money-operations.md#reconciliation)', () => {
  let h: StripeHarness;
  /** Lists two balance transactions a page, so that every period here spans several pages. */
  let lister: StripeConnector;
  let start: Date;
  let end: Date;
  const ids = {} as Record<'before' | 'refunded' | 'partlyCaptured' | 'onlyHeld' | 'lost' | 'won' | 'after', string>;

  const pay = (card: string, amountCents: number, capture: 'automatic' | 'manual') => cardPayment(h.connector, testCard(card), amountCents, capture);

  beforeAll(async () => {
    h = await stripeHarness();
    // Stripe dates its objects to the second: the periods here start on a whole second.
    h.clock.advance(1_000 - (h.clock.now().getTime() % 1_000));
    lister = new StripeConnector({
      secretKey: SECRET_KEY,
      webhookSecret: WEBHOOK_SECRET,
      baseUrl: h.account.baseUrl,
      sandbox: true,
      clock: h.clock,
      timeoutMs: 2_000,
      http: LOCAL_PSP_HTTP,
      operations: unusedOperations(h.clock),
      listPageSize: 2,
    });
    // Before the period: captured, never touched again.
    ids.before = (await pay('4242 4242 4242 4242', 1_000, 'automatic')).transactionId;
    h.clock.advance(HOUR);
    start = h.clock.now();
    // In the period: a capture partly refunded twice; a hold captured in part; a hold never
    // captured (no funds move); a charge disputed and lost; one disputed and won.
    const refunded = await pay('4242 4242 4242 4242', 5_000, 'automatic');
    ids.refunded = refunded.transactionId;
    h.clock.advance(HOUR);
    await h.connector.refund({ idempotencyKey: key(), transaction: refunded, amountCents: 1_200 });
    await h.connector.refund({ idempotencyKey: key(), transaction: refunded, amountCents: 300 });
    const held = await pay('5555 5555 5555 4444', 8_000, 'manual');
    ids.partlyCaptured = held.transactionId;
    await h.connector.capture({ idempotencyKey: key(), transaction: held, amountCents: 6_500 });
    ids.onlyHeld = (await pay('4242 4242 4242 4242', 2_500, 'manual')).transactionId;
    // Stripe's test card 0259: captured, then disputed as fraudulent at once.
    ids.lost = (await pay('4000 0000 0000 0259', 4_000, 'automatic')).transactionId;
    ids.won = (await pay('4000 0000 0000 0259', 3_000, 'automatic')).transactionId;
    const dispute = (pi: string) => [...h.fake.disputes.values()].find((d) => d.paymentIntent === pi)!.id;
    h.clock.advance(HOUR);
    await fetch(`${h.account.baseUrl}/v1/disputes/${dispute(ids.lost)}/close`, { method: 'POST', headers: { authorization: `Bearer ${SECRET_KEY}` } });
    await fetch(`${h.account.baseUrl}/v1/disputes/${dispute(ids.won)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SECRET_KEY}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'evidence[uncategorized_text]=winning_evidence',
    });
    h.clock.advance(HOUR);
    end = h.clock.now();
    // After the period: a new capture, and a refund of the period's first payment.
    ids.after = (await pay('4242 4242 4242 4242', 700, 'automatic')).transactionId;
    await h.connector.refund({ idempotencyKey: key(), transaction: refunded, amountCents: 500 });
  });
  afterAll(() => h.teardown());

  it('lists every payment that moved in the period, a page at a time, with its current totals', async () => {
    const { records, pages } = await listAll(lister, start, end);
    expect(pages).toBeGreaterThan(2);
    const { seen, totals } = byTransaction(records);
    expect(new Set(seen.keys())).toEqual(new Set([ids.refunded, ids.partlyCaptured, ids.lost, ids.won]));
    // One record per movement: a capture and two refunds; a capture; a capture, a dispute; a capture, a dispute, its reversal.
    expect([ids.refunded, ids.partlyCaptured, ids.lost, ids.won].map((id) => seen.get(id)!.length)).toEqual([3, 1, 2, 3]);
    // The refund made after the period already counts: the totals are today's.
    expect(totals(ids.refunded)).toEqual({
      transactionId: ids.refunded,
      status: 'refunded',
      currency: 'EUR',
      amountCents: 5_000,
      capturedCents: 5_000,
      refundedCents: 2_000,
      chargedBackCents: 0,
    });
    expect(totals(ids.partlyCaptured)).toEqual({
      transactionId: ids.partlyCaptured,
      status: 'captured',
      currency: 'EUR',
      amountCents: 8_000,
      capturedCents: 6_500,
      refundedCents: 0,
      chargedBackCents: 0,
    });
    expect(totals(ids.lost)).toEqual({
      transactionId: ids.lost,
      status: 'captured',
      currency: 'EUR',
      amountCents: 4_000,
      capturedCents: 4_000,
      refundedCents: 0,
      chargedBackCents: 4_000,
    });
    expect(totals(ids.won)).toEqual({
      transactionId: ids.won,
      status: 'captured',
      currency: 'EUR',
      amountCents: 3_000,
      capturedCents: 3_000,
      refundedCents: 0,
      chargedBackCents: 0,
    });
    for (const absent of [ids.before, ids.after, ids.onlyHeld]) expect(seen.has(absent)).toBe(false);
  });

  it('gives each payment the totals retrieve reads', async () => {
    await expectListedAsRetrieved(h.connector, (await listAll(lister, start, end)).records, [ids.refunded, ids.partlyCaptured, ids.lost, ids.won]);
  });

  it('sends Stripe the documented list request: seconds, expand[]=data.source, limit, starting_after', async () => {
    const before = h.fake.requests.length;
    await listAll(lister, start, end);
    const lists = h.fake.requests.slice(before).filter((r) => r.method === 'GET' && r.path === '/v1/balance_transactions');
    expect(lists.length).toBeGreaterThan(2);
    const first = new URLSearchParams(lists[0]!.query);
    expect(first.get('created[gte]')).toBe(String(start.getTime() / 1000));
    expect(first.get('created[lt]')).toBe(String(end.getTime() / 1000));
    expect(first.get('limit')).toBe('2');
    expect([...first].filter(([k]) => k.startsWith('expand')).map(([, v]) => v)).toEqual(['data.source']);
    expect(first.has('starting_after')).toBe(false);
    expect(new URLSearchParams(lists[1]!.query).get('starting_after')).toMatch(/^txn_/);
  });

  it('a fault at Stripe throws a PSP fault, and the run resumes from the same cursor', async () => {
    const first = await lister.listTransactions({ from: start, to: end, cursor: null });
    expect(first.nextCursor).toMatch(/^txn_/);
    h.fake.fail('server_error', { path: /^\/v1\/balance_transactions$/ });
    const failed = await lister.listTransactions({ from: start, to: end, cursor: first.nextCursor }).catch((e: unknown) => e);
    // A 5xx: the PSP's fault, `unreachable` (src/psp/kit/status-fault.ts); the run retries the page later.
    expect(isPspFault(failed)).toBe(true);
    const again = await lister.listTransactions({ from: start, to: end, cursor: first.nextCursor });
    expect(again.records.length).toBeGreaterThan(0);
    // The newest page holds the won dispute's movements only: its charge is read, and fails.
    h.fake.fail('malformed_json', { path: /^\/v1\/charges\// });
    await expect(lister.listTransactions({ from: start, to: end, cursor: null })).rejects.toMatchObject({ code: 'bad_response' });
    h.fake.fail('server_error', { path: /^\/v1\/disputes$/ });
    await expect(lister.listTransactions({ from: start, to: end, cursor: null })).rejects.toMatchObject({ code: 'unreachable' });
    h.fake.fail('malformed_json', { path: /^\/v1\/balance_transactions$/ });
    await expect(lister.listTransactions({ from: start, to: end, cursor: null })).rejects.toMatchObject({ code: 'bad_response' });
    expect(await lister.listTransactions({ from: start, to: end, cursor: null })).toEqual(first);
    const down = new StripeConnector({
      secretKey: SECRET_KEY,
      webhookSecret: WEBHOOK_SECRET,
      baseUrl: 'http://127.0.0.1:9',
      sandbox: true,
      clock: h.clock,
      timeoutMs: 500,
      http: LOCAL_PSP_HTTP,
      operations: unusedOperations(h.clock),
    });
    await expect(down.listTransactions({ from: start, to: end, cursor: null })).rejects.toMatchObject({ code: 'unreachable' });
  });
});
