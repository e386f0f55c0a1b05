/**
 * Hyperswitch's outgoing webhooks through Chipin's route, replayed (docs/psp/hyperswitch.md#webhooks):
 * a webhook is signed (HMAC-SHA512 of the body) but Chipin checks no freshness, since Hyperswitch's
 * retries send the first delivery's body again. It is harmless because a webhook only says "look
 * again": Chipin never applies the state its body reports, it reads the payment from Hyperswitch.
 * An old signed webhook replayed after the payment moved on, and a signed body that lies about the
 * payment, move nothing.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicId } from '../../src/domain/ids.ts';
import { caller, type Caller } from '../helpers/api.ts';
import { isolatedDatabase, onPostgres, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { NO_JOB_POLL, TEST_DELIVERY } from '../delivery/helpers.ts';
import { CREDENTIALS, hyperswitchHarness, type HyperswitchHarness } from './fixtures/hyperswitch/harness.ts';

let db: IsolatedDatabase;
let app: TestApp;
let h: HyperswitchHarness;
let m: Caller;
let psa: string;

beforeAll(async () => {
  db = await isolatedDatabase();
  app = await startTestApp({ ...NO_JOB_POLL }, { db: db.open(), delivery: TEST_DELIVERY });
  h = await hyperswitchHarness();
  m = await caller(app);
  const created = await m.post(
    '/api/backoffice/psp_accounts',
    { psp: 'hyperswitch', environment: 'test', label: 'Hyperswitch', credentials: CREDENTIALS, endpoint_url: h.fake.url },
    { authorization: m.dashboard },
  );
  expect(created.statusCode, created.body).toBe(201);
  psa = created.json().id as string;
  for (const offer of [m.offer('DEFERRED'), m.offer('INSTALLMENTS', 3)]) {
    const bound = await app.server.inject({
      method: 'PATCH',
      url: `/api/backoffice/offers/${offer}`,
      headers: { authorization: m.dashboard, 'content-type': 'application/json' },
      payload: JSON.stringify({ psp_account_id: psa }),
    });
    expect(bound.statusCode, bound.body).toBe(200);
  }
});
afterAll(async () => {
  await app?.close();
  await h?.teardown();
  await db?.dispose();
});

describe(`Hyperswitch webhooks replayed through Chipin (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('an old signed webhook replayed after the payment was voided, and a signed body saying it succeeded, leave it voided: the state is read from Hyperswitch', async () => {
    const link = await m.post(`/api/merchants/${m.offer('DEFERRED')}/purchase_link`, {
      data: { title: 'Weekend in Ghent', amountCents: 8_000, email: 'leader@example.com', language: 'en_GB', reference: 'hyperswitch-replay' },
      purchase_link_settings: {},
    });
    expect(link.statusCode, link.body).toBe(200);
    const id = parsePublicId('pur', (link.json() as { purchase_uid: string }).purchase_uid)!;
    const paid = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: h.cards.success.number });
    expect(paid.statusCode, paid.body).toBe(200);
    const payment = async () =>
      (
        await app.services.db.query<{ status: string; psp_transaction_id: string; captured_cents: number }>(
          'SELECT status, psp_transaction_id, captured_cents FROM payments WHERE purchase_id = $1',
          [id],
        )
      ).rows[0]!;
    const events = async () =>
      (await app.services.db.query<{ n: number }>("SELECT count(*)::int AS n FROM purchase_events WHERE purchase_id = $1 AND type = 'payment.transaction'", [id])).rows[0]!.n;
    const hold = await payment();
    expect(hold.status).toBe('authorized');
    const post = (n: { headers: Record<string, string>; rawBody: string }) =>
      app.server.inject({ method: 'POST', url: `/api/psp/${psa}/notifications`, headers: n.headers, payload: n.rawBody });

    // Hyperswitch's webhook of the hold, delivered now: nothing to change.
    const old = h.fake.event(hold.psp_transaction_id);
    expect(JSON.parse(old.rawBody)).toMatchObject({ event_type: 'payment_authorized', content: { object: { status: 'requires_capture' } } });
    expect((await post(old)).statusCode).toBe(200);
    expect((await payment()).status).toBe('authorized');

    // The merchant cancels: the hold is voided at Hyperswitch and on the payment.
    const cancelled = await m.post(`/api/merchants/v1/purchases/${id}/cancel`, {});
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect((await payment()).status).toBe('voided');
    const before = await events();

    // The old webhook, signed and unchanged (its timestamp included), sent again hours later.
    h.clock.advance(6 * 3_600_000);
    const read = h.fake.requests.length;
    const replayed = await post(old);
    expect(replayed.statusCode, replayed.body).toBe(200);
    expect(await payment()).toMatchObject({ status: 'voided', captured_cents: 0 });
    // Taken (signature good, no freshness refused), and answered by reading the payment from Hyperswitch.
    expect(h.fake.requests.slice(read)).toEqual([`GET /payments/${hold.psp_transaction_id}?force_sync=true key`]);

    // A body signed with the profile's key that says the payment succeeded: Chipin reads the
    // payment from Hyperswitch instead of the body, and it is cancelled there.
    const body = JSON.parse(old.rawBody) as { event_type: string; content: { object: Record<string, unknown> }; timestamp: string };
    body.event_type = 'payment_succeeded';
    body.content.object = { ...body.content.object, status: 'succeeded', amount_received: 8_000, amount_capturable: 0 };
    body.timestamp = h.clock.now().toISOString();
    const rawBody = JSON.stringify(body);
    const lying = {
      headers: { 'x-webhook-signature-512': createHmac('sha512', CREDENTIALS.payment_response_hash_key).update(rawBody).digest('hex'), 'content-type': 'application/json' },
      rawBody,
    };
    const reread = h.fake.requests.length;
    expect((await post(lying)).statusCode).toBe(200);
    expect(h.fake.requests.slice(reread)).toEqual([`GET /payments/${hold.psp_transaction_id}?force_sync=true key`]);
    expect(await payment()).toMatchObject({ status: 'voided', captured_cents: 0 });
    expect(await events()).toBe(before);
    expect(((await m.get(`/api/merchants/v1/purchases/${id}`)).json() as { state: string }).state).toBe('CANCELLED');
  });

  it('a dispute webhook sent again after the dispute was lost leaves it lost: the dispute is read from Hyperswitch, not from the body', async () => {
    const link = await m.post(`/api/merchants/${m.offer('INSTALLMENTS', 3)}/purchase_link`, {
      data: { title: 'Weekend in Bruges', amountCents: 9_000, email: 'leader@example.com', language: 'en_GB', reference: 'hyperswitch-dispute-replay' },
      purchase_link_settings: {},
    });
    expect(link.statusCode, link.body).toBe(200);
    const id = parsePublicId('pur', (link.json() as { purchase_uid: string }).purchase_uid)!;
    const paid = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: h.cards.success.number });
    expect(paid.statusCode, paid.body).toBe(200);
    const { rows } = await app.services.db.query<{ psp_transaction_id: string }>('SELECT psp_transaction_id FROM payments WHERE purchase_id = $1 AND captured_cents > 0', [id]);
    const pay = rows[0]!.psp_transaction_id;
    const dispute = async () => (await app.services.db.query<{ state: string }>('SELECT state FROM disputes WHERE purchase_id = $1', [id])).rows.map((r) => r.state);
    const post = (n: { headers: Record<string, string>; rawBody: string }) =>
      app.server.inject({ method: 'POST', url: `/api/psp/${psa}/notifications`, headers: n.headers, payload: n.rawBody });

    // The issuer's chargeback: won by the merchant first...
    const dp = h.fake.openDispute(pay);
    h.fake.settleDispute(dp, 'dispute_won');
    const won = h.fake.disputeEvent(dp);
    expect((await post(won)).statusCode).toBe(200);
    expect(await dispute()).toEqual(['won']);
    // ... then lost (at pre-arbitration, the same dispute id).
    h.fake.settleDispute(dp, 'dispute_lost');
    expect((await post(h.fake.disputeEvent(dp))).statusCode).toBe(200);
    expect(await dispute()).toEqual(['lost']);
    // The old "won" webhook, signed, sent again: the dispute stays lost.
    expect((await post(won)).statusCode).toBe(200);
    expect(await dispute()).toEqual(['lost']);
  });
});
