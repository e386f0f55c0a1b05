import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyNotificationSignature } from '../../src/delivery/notification-signature.ts';
import { newUuid } from '../../src/domain/ids.ts';
import { payAsLeader, resumeLeaderAfterChallenge } from '../../src/use-cases/pay-as-leader.ts';
import { caller, type Caller } from '../helpers/api.ts';
import { signIn } from '../helpers/dashboard.ts';
import { decoded, smtpListener } from '../helpers/smtp.ts';
import { isolatedDatabase, onPostgres, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { answerChallenge, card, CARDS } from '../use-cases/support.ts';
import { contractSignature, deliveries, insertEvent, newLinkPurchase, newPurchase, NO_JOB_POLL, Receiver, setWebhook, TEST_DELIVERY } from './helpers.ts';

// Refusal notifications (docs/webhooks.md#refusal-notifications): every refused payment attempt of
// a purchase created with `errorNotificationUrl` is POSTed there, signed like back-mode
// notifications, through the delivery outbox.

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

async function pspTransactionOf(purchaseId: string): Promise<string> {
  const { rows } = await app.services.db.query<{ psp_transaction_id: string }>('SELECT psp_transaction_id FROM payments WHERE purchase_id = $1', [purchaseId]);
  expect(rows).toHaveLength(1);
  return rows[0]!.psp_transaction_id;
}

describe(`refusal notifications (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('a card declined at the sandbox PSP sends one signed refusal to errorNotificationUrl, with the reason code', async () => {
    const m = await caller(app);
    const p = await newPurchase(m, { ref: 'ORDER-R1', metadata: { cart: 'c-1' }, errorNotificationUrl: receiver.url('/refused?shop=1') });
    expect(await declinedPayment(m, p)).toMatchObject({ kind: 'declined', reason: 'card_declined' });
    await runDue();

    expect(receiver.received.map((r) => r.path)).toEqual(['/refused?shop=1']);
    const [refusal] = bodies('/refused?shop=1');
    expect(Object.keys(refusal!)).toEqual(['created_at', 'id', 'additional_data', 'metadata', 'status', 'sandbox', 'error', 'reference', 'signature']);
    expect(refusal).toEqual({
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      id: await pspTransactionOf(p),
      additional_data: { payer: 'leader', attempt: 1 },
      metadata: { cart: 'c-1' },
      status: 'failed',
      sandbox: 'true',
      error: 'card_declined',
      reference: 'ORDER-R1',
      signature: contractSignature(refusal!, offerSecret(m)),
    });
    expect(verifyNotificationSignature(refusal!, offerSecret(m))).toBe(true);
    // The reason code is signed: a body whose error was changed no longer verifies.
    expect(verifyNotificationSignature({ ...refusal!, error: 'processing_error' }, offerSecret(m))).toBe(false);
    expect(receiver.received[0]!.headers['webhook-id']).toMatch(/^dlv_[0-9a-f-]{36}$/);
    expect((await deliveries(app, m.accountId)).filter((d) => d.kind === 'refusal').map((d) => d.status)).toEqual(['succeeded']);
    // The back office lists it as a delivery of its own kind.
    const listed = await app.server.inject({ url: `/api/backoffice/deliveries?purchase_uid=pur_${p}`, headers: { authorization: m.dashboard } });
    expect(listed.json().data).toEqual([expect.objectContaining({ kind: 'refusal', event: 'payment.failed', status: 'succeeded', url: receiver.url('/refused?shop=1') })]);
    // And the purchase's page names it.
    const { cookie } = await signIn(app, m.merchant);
    const page = await app.server.inject({ url: `/dashboard/purchases/pur_${p}`, headers: { cookie } });
    expect(page.body).toMatch(/Refusal notification<br><span class="muted">dlv_[0-9a-f-]{36}<\/span><\/td><td>succeeded<\/td>/);
  });

  it('3-D Secure failed: a refusal with authentication_failed', async () => {
    const m = await caller(app);
    const p = await newPurchase(m, { errorNotificationUrl: receiver.url('/refused') });
    let paymentId = '';
    const first = await payAsLeader(
      app.services.payments,
      { id: p, accountId: m.accountId },
      card(CARDS.challenge),
      [],
      (id) => ((paymentId = id), `http://127.0.0.1:3000/return?payment=${id}`),
    );
    await answerChallenge(app, (first as { url: string }).url, 'fail');
    expect(await resumeLeaderAfterChallenge(app.services.payments, { id: p, accountId: m.accountId }, paymentId)).toMatchObject({
      kind: 'declined',
      reason: 'authentication_failed',
    });
    await runDue();
    const [refusal] = bodies('/refused');
    expect(refusal).toMatchObject({ status: 'failed', error: 'authentication_failed', additional_data: { payer: 'leader', attempt: 1 } });
    expect(verifyNotificationSignature(refusal!, offerSecret(m))).toBe(true);
  });

  it('sends nothing for a refusal of a purchase without errorNotificationUrl', async () => {
    const m = await caller(app);
    const p = await newPurchase(m, { ref: 'ORDER-R2' });
    expect(await declinedPayment(m, p)).toMatchObject({ kind: 'declined' });
    await runDue();
    expect(receiver.received).toEqual([]);
    expect(await deliveries(app, m.accountId)).toEqual([]);
  });

  it('beside a webhook endpoint and back mode, each destination gets its own: paymentFailed, the failed transaction, the refusal', async () => {
    const m = await caller(app);
    await setWebhook(app, m, receiver.url('/webhook'), ['paymentFailed']);
    const p = await newLinkPurchase(m, { reference: 'ORDER-R3', paymentNotificationUrl: receiver.url('/notify'), errorNotificationUrl: receiver.url('/refused') });
    await declinedPayment(m, p);
    await runDue();

    expect(receiver.received.map((r) => r.path).sort()).toEqual(['/notify', '/refused', '/webhook']);
    const [webhook] = bodies('/webhook');
    expect(webhook).toMatchObject({ triggerName: 'paymentFailed', objects: { purchaseId: p } });
    const [transaction] = bodies('/notify');
    const [refusal] = bodies('/refused');
    expect(transaction).toMatchObject({ status: 'failed', id: await pspTransactionOf(p) });
    expect(refusal).toMatchObject({ status: 'failed', id: await pspTransactionOf(p), error: 'card_declined', reference: 'ORDER-R3' });
    expect(verifyNotificationSignature(refusal!, offerSecret(m))).toBe(true);
    expect((await deliveries(app, m.accountId)).map((d) => d.kind).sort()).toEqual(['notification', 'refusal', 'webhook']);
  });

  it("a risk refusal carries the rules' reason codes in additional_data.reasons, and Chipin's payment id when no PSP transaction existed", async () => {
    const m = await caller(app);
    const p = await newPurchase(m, { ref: 'ORDER-R4', errorNotificationUrl: receiver.url('/refused') });
    const paymentId = newUuid();
    await insertEvent(app, m, p, 'payment.failed', {
      reason: 'risk_refused',
      payment_id: paymentId,
      attempt: 2,
      risk: { decision_id: 'dec_1', reasons: ['CARD_PREPAID', 'VELOCITY_CARD_HOUR'] },
    });
    await runDue();

    const [refusal] = bodies('/refused');
    expect(refusal).toMatchObject({
      id: paymentId,
      status: 'failed',
      error: 'risk_refused',
      additional_data: { payer: 'leader', attempt: 2, reasons: ['CARD_PREPAID', 'VELOCITY_CARD_HOUR'], decision_id: 'dec_1' },
      reference: 'ORDER-R4',
    });
    expect(refusal!.signature).toBe(contractSignature(refusal!, offerSecret(m)));
  });

  it("a pledger's refused transaction is a refusal too, beside its back-mode notification", async () => {
    const m = await caller(app);
    const p = await newLinkPurchase(m, { paymentNotificationUrl: receiver.url('/notify'), errorNotificationUrl: receiver.url('/refused') });
    await insertEvent(app, m, p, 'payment.transaction', {
      payment_id: newUuid(),
      purpose: 'pledge',
      transaction: { id: 'psp_tx_p1', status: 'failed', amount_cents: 4_000, created_at: '2026-03-04T10:15:00.123Z', error: 'insufficient_funds' },
    });
    // A leader's failed transaction is not: its refusal is the `payment.failed` event beside it.
    await insertEvent(app, m, p, 'payment.transaction', {
      payment_id: newUuid(),
      purpose: 'leader_share',
      transaction: { id: 'psp_tx_l1', status: 'failed', amount_cents: 4_000, created_at: '2026-03-04T10:15:00.123Z', error: 'card_declined' },
    });
    await runDue();

    expect(bodies('/notify').map((b) => b.id)).toEqual(['psp_tx_p1', 'psp_tx_l1']);
    expect(bodies('/refused')).toEqual([expect.objectContaining({ id: 'psp_tx_p1', error: 'insufficient_funds', additional_data: { payer: 'pledger' } })]);
  });

  it('a mailto: errorNotificationUrl gets the same signed body as an e-mail titled "Refusal notification"', async () => {
    const m = await caller(app);
    const p = await newPurchase(m, { ref: 'MAIL-R1', errorNotificationUrl: 'mailto:refusals@shop.example' });
    await declinedPayment(m, p);
    await runDue();
    const mail = smtp.received.find((r) => r.to.includes('refusals@shop.example'));
    expect(mail, 'an e-mail to refusals@shop.example').toBeDefined();
    const text = decoded(mail!.raw);
    expect(text).toMatch(/Subject: Refusal notification MAIL-R1/);
    const { rows } = await app.services.db.query<{ body: string }>(`SELECT body FROM outbound_messages WHERE account_id = $1 AND purchase_id = $2`, [m.accountId, p]);
    const body = JSON.parse(rows[0]!.body) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 'failed', error: 'card_declined', reference: 'MAIL-R1' });
    expect(verifyNotificationSignature(body, offerSecret(m))).toBe(true);
  });

  it('is retried with the same webhook-id and the same bytes until the receiver takes it', async () => {
    const m = await caller(app);
    const p = await newPurchase(m, { errorNotificationUrl: receiver.url('/refused') });
    await declinedPayment(m, p);
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
