import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyHs256 } from '../../src/delivery/jwt.ts';
import { verifyNotificationSignature } from '../../src/delivery/notification-signature.ts';
import { OUTBOX_CHANNEL } from '../../src/domain/events.ts';
import { payAsLeader } from '../../src/use-cases/checkout/pay-as-leader.ts';
import { caller, type Caller } from '../helpers/api.ts';
import { signIn } from '../helpers/dashboard.ts';
import { decoded, smtpListener } from '../helpers/smtp.ts';
import { isolatedDatabase, onPostgres, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { card, CARDS } from '../use-cases/support.ts';
import { deliveries, newLinkPurchase, newPurchase, NO_JOB_POLL, Receiver, setWebhook, TEST_DELIVERY } from './helpers.ts';

// What a checkout's end sends the merchant's back end (docs/webhooks.md#back-mode-notification,
// #error-notification): a refused card the leader may retry sends nothing; the secured checkout one
// `completed`; a purchase that can no longer be paid one error notification, through the outbox.

let db: IsolatedDatabase;
let app: TestApp;
let receiver: Receiver;
let smtp: Awaited<ReturnType<typeof smtpListener>>;

beforeAll(async () => {
  smtp = await smtpListener();
  db = await isolatedDatabase();
  // A mailto: refusal is one SMTP exchange within the attempt's time limit: 10 s rather than
  // TEST_DELIVERY's 300 ms, as in notifications.test.ts. No test here waits for that limit to pass.
  app = await startTestApp({ ...NO_JOB_POLL, smtpUrl: `smtp://127.0.0.1:${smtp.port}` }, { db: db.open(), delivery: { ...TEST_DELIVERY, timeoutMs: 10_000 } });
  receiver = await Receiver.start();
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
  await smtp?.close();
  await db?.dispose();
});
beforeEach(async () => {
  receiver.answer = { kind: 'status', code: 200 };
  receiver.received.length = 0;
  await app.services.db.query(`UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL WHERE status = 'pending'`);
});

const runDue = () => app.services.deliveries.worker.runDue();
const offerSecret = (m: Caller) => m.merchant.offers.find((o) => o.type === 'SHARED')!.secret;
const declinedPayment = (m: Caller, purchaseId: string) =>
  payAsLeader(app.services.payments, { id: purchaseId, accountId: m.accountId }, card(CARDS.declined), [], (p) => `http://127.0.0.1:3000/return?payment=${p}`);
const bodies = (path: string) => receiver.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body) as Record<string, unknown>);

const paidPayment = (m: Caller, purchaseId: string) =>
  payAsLeader(app.services.payments, { id: purchaseId, accountId: m.accountId }, card(CARDS.ok), [], (p) => `http://127.0.0.1:3000/return?payment=${p}`);

async function acceptedTransactionOf(purchaseId: string): Promise<string> {
  const { rows } = await app.services.db.query<{ psp_transaction_id: string }>(`SELECT psp_transaction_id FROM payments WHERE purchase_id = $1 AND status <> 'declined'`, [
    purchaseId,
  ]);
  expect(rows).toHaveLength(1);
  return rows[0]!.psp_transaction_id;
}

describe(`outcomes of a checkout (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('a refused card then a good one: nothing for the refusal, then one signed `completed` at paymentNotificationUrl; nothing at errorNotificationUrl', async () => {
    const m = await caller(app);
    await setWebhook(app, m, receiver.url('/webhook'), ['paymentFailed', 'paymentProcessed']);
    const p = await newLinkPurchase(m, { reference: 'ORDER-R3', paymentNotificationUrl: receiver.url('/notify'), errorNotificationUrl: receiver.url('/error') });
    expect(await declinedPayment(m, p)).toMatchObject({ kind: 'declined', attemptsLeft: 2 });
    await runDue();
    // The webhook tells of the refusal; the shop's order is left alone while the leader may retry.
    expect(receiver.received.map((r) => r.path)).toEqual(['/webhook']);

    expect(await paidPayment(m, p)).toMatchObject({ kind: 'processed' });
    await runDue();
    expect(receiver.received.map((r) => r.path).sort()).toEqual(['/notify', '/webhook', '/webhook']);
    const [notification] = bodies('/notify');
    expect(notification).toMatchObject({ status: 'completed', error: '', reference: 'ORDER-R3', id: await acceptedTransactionOf(p) });
    expect(verifyNotificationSignature(notification!, offerSecret(m))).toBe(true);
    expect((await deliveries(app, m.accountId)).filter((d) => d.kind !== 'webhook').map((d) => [d.kind, d.status])).toEqual([['notification', 'succeeded']]);
  });

  it('the last attempt refused: one error notification, the JWT of {reference, purchase_state PRIMARY_KO, purchase_uid, state}; nothing at paymentNotificationUrl', async () => {
    const m = await caller(app);
    const p = await newLinkPurchase(m, { reference: 'ORDER-R1', paymentNotificationUrl: receiver.url('/notify'), errorNotificationUrl: receiver.url('/error?shop=1') });
    for (let attempt = 1; attempt <= 3; attempt++) await declinedPayment(m, p);
    await runDue();

    expect(receiver.received.map((r) => r.path)).toEqual(['/error?shop=1']);
    const [sent] = bodies('/error?shop=1');
    expect(Object.keys(sent!)).toEqual(['signature']);
    const claims = verifyHs256(sent!.signature as string, offerSecret(m));
    expect(claims).toEqual({ reference: 'ORDER-R1', purchase_state: 'PRIMARY_KO', purchase_uid: `pur_${p}`, state: 'PRIMARY_KO' });
    expect(verifyHs256(sent!.signature as string, 'another secret')).toBeUndefined();
    expect(receiver.received[0]!.headers['webhook-id']).toMatch(/^dlv_[0-9a-f-]{36}$/);
    // The back office lists it as a delivery of its own kind, and the purchase's page names it.
    const listed = await app.server.inject({ url: `/api/backoffice/deliveries?purchase_uid=pur_${p}`, headers: { authorization: m.dashboard } });
    expect(listed.json().data).toEqual([expect.objectContaining({ kind: 'refusal', event: 'purchase.failed', status: 'succeeded', url: receiver.url('/error?shop=1') })]);
    const { cookie } = await signIn(app, m.merchant);
    const page = await app.server.inject({ url: `/dashboard/purchases/pur_${p}`, headers: { cookie } });
    expect(page.body).toMatch(/Error notification<br><span class="muted">dlv_[0-9a-f-]{36}<\/span><\/td><td>Delivered<\/td>/);
  });

  it('a purchase ended by the risk rules is SCORING_KO; one failing after it was secured sends nothing', async () => {
    const m = await caller(app);
    const p = await newPurchase(m, { ref: 'ORDER-R4', errorNotificationUrl: receiver.url('/error') });
    await app.services.db.query(`UPDATE purchases SET state = 'FAILED' WHERE id = $1`, [p]);
    await app.services.db.query(
      `INSERT INTO purchase_events (account_id, purchase_id, type, from_state, to_state, data, created_at) VALUES ($1, $2, 'purchase.failed', 'CREATED', 'FAILED', $3, now())`,
      [m.accountId, p, JSON.stringify({ reason: 'risk_refused' })],
    );
    // A purchase that fails after it was secured (a pot's deadline, dunning) is not one of these.
    const r = await newPurchase(m, { ref: 'ORDER-R6', errorNotificationUrl: receiver.url('/later') });
    await app.services.db.query(
      `INSERT INTO purchase_events (account_id, purchase_id, type, from_state, to_state, data, created_at) VALUES ($1, $2, 'purchase.failed', 'LEADER_PROCESSED', 'FAILED', '{}', now())`,
      [m.accountId, r],
    );
    app.services.db.notify(OUTBOX_CHANNEL);
    await runDue();
    const [scoring] = bodies('/error');
    expect(verifyHs256(scoring!.signature as string, offerSecret(m))).toMatchObject({ purchase_state: 'SCORING_KO', state: 'SCORING_KO', reference: 'ORDER-R4' });
    expect(bodies('/later')).toEqual([]);
  });

  it('sends nothing for a failed purchase without errorNotificationUrl', async () => {
    const m = await caller(app);
    const p = await newPurchase(m, { ref: 'ORDER-R2' });
    for (let attempt = 1; attempt <= 3; attempt++) await declinedPayment(m, p);
    await runDue();
    expect(receiver.received).toEqual([]);
    expect(await deliveries(app, m.accountId)).toEqual([]);
  });

  it('a mailto: errorNotificationUrl gets the same body as an e-mail titled "Error notification"', async () => {
    const m = await caller(app);
    const p = await newPurchase(m, { ref: 'MAIL-R1', errorNotificationUrl: 'mailto:refusals@shop.example' });
    for (let attempt = 1; attempt <= 3; attempt++) await declinedPayment(m, p);
    await runDue();
    const mail = smtp.received.find((r) => r.to.includes('refusals@shop.example'));
    expect(mail, 'an e-mail to refusals@shop.example').toBeDefined();
    expect(decoded(mail!.raw)).toMatch(/Subject: Error notification MAIL-R1/);
    const { rows } = await app.services.db.query<{ body: string }>(`SELECT body FROM outbound_messages WHERE account_id = $1 AND purchase_id = $2`, [m.accountId, p]);
    const body = JSON.parse(rows[0]!.body) as { signature: string };
    expect(verifyHs256(body.signature, offerSecret(m))).toMatchObject({ reference: 'MAIL-R1', purchase_state: 'PRIMARY_KO' });
  });

  it('is retried with the same webhook-id and the same bytes until the receiver takes it', async () => {
    const m = await caller(app);
    const p = await newPurchase(m, { errorNotificationUrl: receiver.url('/error') });
    for (let attempt = 1; attempt <= 3; attempt++) await declinedPayment(m, p);
    receiver.answer = { kind: 'status', code: 503 };
    await runDue();
    expect(receiver.received).toHaveLength(1);
    await app.services.db.query(`UPDATE deliveries SET next_attempt_at = now() - interval '1 second' WHERE account_id = $1 AND status = 'pending'`, [m.accountId]);
    receiver.answer = { kind: 'status', code: 200 };
    await runDue();
    expect(receiver.received).toHaveLength(2);
    const [first, second] = receiver.received;
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(second!.body).toBe(first!.body);
    expect((await deliveries(app, m.accountId)).map((d) => [d.kind, d.status, d.attempts])).toEqual([['refusal', 'succeeded', 2]]);
  });
});

describe('errorNotificationUrl at creation', () => {
  it('Merchant API v1 stores and echoes it, and refuses a bad one with 406 naming the field', async () => {
    const m = await caller(app);
    const created = await m.post('/api/merchants/v1/purchases', {
      title: 'Weekend in Lisbon',
      amount: 30_000,
      client: { email: 'leader@example.com' },
      errorNotificationUrl: 'mailto:ops@shop.example',
    });
    expect(created.statusCode).toBe(201);
    expect(created.json().errorNotificationUrl).toBe('mailto:ops@shop.example');
    expect((await m.get(`/api/merchants/v1/purchases/${created.json().id}`)).json().errorNotificationUrl).toBe('mailto:ops@shop.example');

    for (const bad of ['javascript:alert(1)', 'not a url', `https://shop.example/${'x'.repeat(2050)}`]) {
      const res = await m.post('/api/merchants/v1/purchases', { title: 'T', amount: 30_000, client: { email: 'leader@example.com' }, errorNotificationUrl: bad });
      expect(res.statusCode, bad).toBe(406);
      expect(res.json().error.message).toContain('errorNotificationUrl');
    }
  });

  it('the Token API purchase_link stores it, and refuses a bad one with 400 naming the field', async () => {
    const m = await caller(app);
    const p = await newLinkPurchase(m, { errorNotificationUrl: 'https://shop.example/refused' });
    expect((await m.get(`/api/merchants/v1/purchases/${p}`)).json().errorNotificationUrl).toBe('https://shop.example/refused');

    const res = await m.post(`/api/merchants/${m.offer('SHARED')}/purchase_link`, {
      data: { title: 'T', amountCents: 30_000, email: 'leader@example.com', errorNotificationUrl: 'ftp://shop.example/refused' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.debug).toContain('data.errorNotificationUrl');
  });

  it('the OpenAPI document shows the field on both creations and on the v1 purchase', async () => {
    const doc = (await app.server.inject('/api/openapi.json')).json();
    const v1 = doc.paths['/api/merchants/v1/purchases'].post;
    const schemaOf = (s: { $ref?: string }) => (s.$ref ? doc.components.schemas[s.$ref.split('/').pop()!] : s);
    expect(schemaOf(v1.requestBody.content['application/json'].schema).properties.errorNotificationUrl).toMatchObject({ type: 'string', maxLength: 2048 });
    expect(schemaOf(v1.responses['201'].content['application/json'].schema).properties.errorNotificationUrl).toMatchObject({ type: 'string' });
    const link = doc.paths['/api/merchants/{merchant_uid}/purchase_link'].post;
    expect(schemaOf(link.requestBody.content['application/json'].schema).properties.data.properties.errorNotificationUrl).toMatchObject({ type: 'string' });
  });
});
