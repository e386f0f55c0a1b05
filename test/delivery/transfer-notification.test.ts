/**
 * The transfer-mode payment notification (docs/webhooks.md#transfer-mode-payment-notification): a
 * transfer-mode purchase validated (by card, or by a bank transfer the operator recorded) tells its
 * `paymentNotificationUrl` once, `{"signature": <HS256 JWT>}` of the original interface's body,
 * under the delivery retries; a real HTTP receiver on 127.0.0.1 checks the JWT with the offer's
 * secret, written here from RFC 7515 without the service's code.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { transferCreated, transferOrderItemUid } from '../../src/delivery/transfer-notification.ts';
import { receiveTransfer } from '../../src/use-cases/checkout/receive-transfer.ts';
import { caller, type Caller } from '../helpers/api.ts';
import { isolatedDatabase, onPostgres, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { useTransferMode } from '../helpers/transfer-mode.ts';
import { deliveries, newLinkPurchase, NO_JOB_POLL, Receiver, TEST_DELIVERY } from './helpers.ts';

let db: IsolatedDatabase;
let app: TestApp;
let receiver: Receiver;
let m: Caller;

beforeAll(async () => {
  db = await isolatedDatabase();
  app = await startTestApp(NO_JOB_POLL, { db: db.open(), delivery: TEST_DELIVERY });
  receiver = await Receiver.start();
  m = await caller(app);
  await useTransferMode(app, m);
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
  await db?.dispose();
});
beforeEach(async () => {
  receiver.answer = { kind: 'status', code: 200 };
  receiver.received.length = 0;
  await app.services.db.query(`UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL WHERE status = 'pending'`);
});

const runDue = () => app.services.deliveries.worker.runDue();
const secret = () => m.merchant.offers.find((o) => o.type === 'SHARED')!.secret;

/** The JWT's payload when its HS256 signature is the secret's, else a failure: the receiver's own check. */
function verified(token: string, key: string): Record<string, unknown> {
  const [header, payload, signature] = token.split('.');
  expect(JSON.parse(Buffer.from(header!, 'base64url').toString('utf8'))).toEqual({ alg: 'HS256', typ: 'JWT' });
  const expected = createHmac('sha256', key).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature!, 'base64url');
  expect(given.length === expected.length && timingSafeEqual(given, expected), 'signature made with the offer secret').toBe(true);
  return JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** A transfer-mode purchase with a reference and a notification URL on the receiver. */
const purchase = (reference: string) => newLinkPurchase(m, { reference, amountCents: 30_000, paymentNotificationUrl: receiver.url(`/notify?order=${reference}`) });

describe(`transfer-mode payment notification (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('a purchase paid by bank transfer: one POST of {signature}, the JWT of the original interface body signed with the offer secret', async () => {
    const id = await purchase('TR-1');
    const before = app.services.clock.now();
    expect((await receiveTransfer(app.services, { purchaseId: id, amountCents: 30_000, actor: { label: 'cli' } })).kind).toBe('recorded');
    await runDue();

    expect(receiver.received.map((r) => [r.method, r.path])).toEqual([['POST', '/notify?order=TR-1']]);
    const sent = JSON.parse(receiver.received[0]!.body) as Record<string, unknown>;
    expect(Object.keys(sent)).toEqual(['signature']);
    const claims = verified(sent.signature as string, secret());
    expect(Object.keys(claims)).toEqual(['reference', 'created', 'transfer_order_item_uid', 'merchant_uid', 'purchase_uid', 'amount_cents']);
    expect(claims).toEqual({
      reference: 'TR-1',
      created: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/),
      transfer_order_item_uid: expect.stringMatching(/^tri_[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      merchant_uid: m.offer('SHARED'),
      purchase_uid: `pur_${id}`,
      amount_cents: 30_000,
    });
    // `created` is the validation's instant, in UTC.
    const created = new Date(`${(claims.created as string).replace(' ', 'T').slice(0, 23)}Z`);
    expect(created.getTime()).toBeGreaterThanOrEqual(before.getTime());
    expect(claims.created).toBe(transferCreated(created));
    expect(claims.transfer_order_item_uid).toBe(transferOrderItemUid(id));
    expect(receiver.received[0]!.headers['content-type']).toBe('application/json');
  });

  it('a purchase paid by card tells its notification URL the same transfer-mode body, once, not the back-mode one', async () => {
    const id = await purchase('TR-2');
    const paid = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: '4242424242424242' });
    expect(paid.json().state).toBe('SUCCESSFUL');
    // A refund afterwards: back mode would notify `refunded`; transfer mode tells the validation only.
    expect((await m.post(`/api/purchases/pur_${id}/credit_by_transfer`, { amount_cents: 1_000 })).statusCode).toBe(201);
    await runDue();
    expect(receiver.received).toHaveLength(1);
    const claims = verified((JSON.parse(receiver.received[0]!.body) as { signature: string }).signature, secret());
    expect(claims).toMatchObject({ reference: 'TR-2', purchase_uid: `pur_${id}`, amount_cents: 30_000, transfer_order_item_uid: transferOrderItemUid(id) });
  });

  it('is retried as every notification is until the shop accepts it, the same body each time', async () => {
    const id = await purchase('TR-3');
    receiver.answer = { kind: 'status', code: 503 };
    expect((await receiveTransfer(app.services, { purchaseId: id, amountCents: 30_000, actor: { label: 'cli' } })).kind).toBe('recorded');
    await runDue();
    expect(receiver.received).toHaveLength(1);
    receiver.answer = { kind: 'status', code: 200 };
    await app.services.db.query(`UPDATE deliveries SET next_attempt_at = $2 WHERE purchase_id = $1 AND status = 'pending'`, [id, app.services.clock.now()]);
    await runDue();
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
    const notifications = (await deliveries(app, m.accountId)).filter((d) => d.kind === 'notification' && d.status === 'succeeded');
    expect(notifications.filter((d) => d.attempts === 2)).toHaveLength(1);
  });

  it('the transfer order item is a name-based uuid of the purchase: the same for a purchase, another for another', () => {
    const p = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
    expect(transferOrderItemUid(p)).toBe(transferOrderItemUid(p.toUpperCase()));
    expect(transferOrderItemUid(p)).not.toBe(transferOrderItemUid('7c9e6679-7425-40de-944b-e07fc1f90ae8'));
    expect(transferCreated(new Date('2020-09-17T15:00:02.052Z'))).toBe('2020-09-17 15:00:02.052000');
  });
});
