import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newUuid } from '../../src/domain/ids.ts';
import { applyMove } from '../../src/purchases/transitions.ts';
import { insertPayment } from '../../src/money/payment-record-repository.ts';
import { decoded, smtpListener } from '../helpers/smtp.ts';
import { caller, type Caller } from '../helpers/api.ts';
import { isolatedDatabase, onPostgres, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import {
  contractSignature,
  deliveries,
  insertEvent,
  leaderProcessed,
  newLinkPurchase,
  newPurchase,
  NO_JOB_POLL,
  pspAccount,
  Receiver,
  setWebhook,
  TEST_DELIVERY,
} from './helpers.ts';

let db: IsolatedDatabase;
let app: TestApp;
let receiver: Receiver;
let smtp: Awaited<ReturnType<typeof smtpListener>>;

beforeAll(async () => {
  smtp = await smtpListener();
  db = await isolatedDatabase();
  // A mailto: notification is one SMTP exchange within the attempt's time limit: TEST_DELIVERY's
  // 300 ms (made for local HTTP receivers) was exceeded under a loaded CI run, and the e-mail that
  // arrived was recorded as timed out. No test here waits for that limit to pass.
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

/** A transaction the merchant asked for (a refund, a cancel's void): its event carries `outcome`, as recordResult writes it. */
function transaction(over: Record<string, unknown> = {}) {
  return { outcome: true, transaction: { id: 'psp_tx_1', status: 'completed', amount_cents: 30_000, created_at: '2026-03-04T10:15:00.123Z', error: null, ...over } };
}

describe(`back-mode notifications (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('POSTs the contract body to paymentNotificationUrl for each outcome the merchant asked for, signed with the offer secret', async () => {
    const m = await caller(app);
    await setWebhook(app, m, receiver.url('/webhook'), ['paymentProcessed', 'paymentFailed', 'pledgerContributes', 'purchaseSucceeded']);
    const p = await newLinkPurchase(m, { reference: 'ORDER-1', metadata: { order: 'A-1', items: 2 }, paymentNotificationUrl: receiver.url('/notify?shop=1') });
    await insertEvent(app, m, p, 'payment.transaction', transaction({ status: 'refunded', additional_data: { psp_ref: 'R9' } }));
    // The purchase's inner workings: a refused card the leader may retry, an installment collected.
    const inner = (over: Record<string, unknown>) => ({ purpose: 'first_installment', transaction: { ...transaction(over).transaction } });
    await insertEvent(app, m, p, 'payment.transaction', inner({ id: 'psp_tx_2', status: 'failed', error: { code: 'do_not_honor', message: 'Card declined' } }));
    await insertEvent(app, m, p, 'payment.transaction', inner({ id: 'psp_tx_3', status: 'completed' }));
    await runDue();

    expect(receiver.received.map((r) => r.path)).toEqual(['/notify?shop=1']); // no webhook for transactions
    const [first] = receiver.received.map((r) => JSON.parse(r.body) as Record<string, unknown>);
    expect(Object.keys(first!)).toEqual(['created_at', 'id', 'additional_data', 'metadata', 'status', 'sandbox', 'error', 'reference', 'signature']);
    expect(first).toEqual({
      created_at: '2026-03-04T10:15:00.123Z',
      id: 'psp_tx_1',
      additional_data: { charge_id: 'psp_tx_1', psp_ref: 'R9' },
      metadata: { order: 'A-1', items: 2 },
      status: 'refunded',
      sandbox: 'true',
      error: '',
      reference: 'ORDER-1',
      signature: contractSignature(first!, offerSecret(m)),
    });
    expect(first!.signature).toMatch(/^[0-9A-F]{64}$/);
    expect(contractSignature(first!, 'another secret')).not.toBe(first!.signature);
    expect(receiver.received[0]!.headers['webhook-id']).toMatch(/^dlv_/);
    expect((await deliveries(app, m.accountId)).map((d) => [d.kind, d.status])).toEqual([['notification', 'succeeded']]);
  });

  it("a secured checkout is one `completed` notification naming the leader's transaction, even for a hold (deferred, a pot's guarantee)", async () => {
    const m = await caller(app);
    const p = await newLinkPurchase(m, { reference: 'ORDER-D', paymentNotificationUrl: receiver.url('/checkout') });
    const hold = { purpose: 'deferred', transaction: { id: 'psp_hold', status: 'authorized', amount_cents: 30_000, created_at: '2026-03-04T10:15:00.123Z', error: '' } };
    await insertEvent(app, m, p, 'payment.transaction', { purpose: 'deferred', transaction: { ...hold.transaction, id: 'psp_refused', status: 'failed', error: 'card_declined' } });
    await insertEvent(app, m, p, 'payment.failed', { reason: 'card_declined', attempt: 1 });
    await insertEvent(app, m, p, 'payment.transaction', hold);
    await leaderProcessed(app, m, p);
    await runDue();
    const sent = receiver.received.map((r) => JSON.parse(r.body) as Record<string, unknown>);
    expect(sent).toEqual([
      {
        created_at: '2026-03-04T10:15:00.123Z',
        id: 'psp_hold',
        additional_data: { charge_id: 'psp_hold' },
        metadata: {},
        status: 'completed',
        sandbox: 'true',
        error: '',
        reference: 'ORDER-D',
        signature: contractSignature(sent[0]!, offerSecret(m)),
      },
    ]);
  });

  it("a pot's end is told to the offer's purchase end notification URL as {reference, uid}; other offers' ends and other moves are not", async () => {
    const m = await caller(app);
    await app.services.db.query(`UPDATE offers SET purchase_end_notification_url = $2 WHERE account_id = $1`, [m.accountId, receiver.url('/end')]);
    app.services.offers.forget(m.accountId);
    const pot = await newLinkPurchase(m, { reference: 'POT-1' });
    await leaderProcessed(app, m, pot);
    await runDue();
    expect(receiver.received).toEqual([]); // the pot is open: not its end
    const moved = await app.services.db.transaction((tx) => applyMove(tx, app.services.clock, m.accountId, pot, 'succeed'));
    expect(moved.ok).toBe(true);
    await runDue();
    expect(receiver.received.map((r) => [r.path, JSON.parse(r.body)])).toEqual([['/end', { reference: 'POT-1', uid: `pur_${pot}` }]]);
    expect((await deliveries(app, m.accountId)).map((d) => [d.kind, d.status])).toEqual([['purchase_end', 'succeeded']]);
  });

  it('carries reference and metadata byte for byte whatever characters they hold (quotes, backslashes, braces, NULL, non-ASCII)', async () => {
    const m = await caller(app);
    await setWebhook(app, m, receiver.url('/webhook'), ['paymentFailed']);
    // What array literals and JSON escape: a dispatch batch passes payloads to PostgreSQL as text arrays.
    const reference = 'A"B\\C{D},E NULL';
    const metadata = { quote: 'say "hi"', backslash: 'C:\\temp\\n', braces: '{1,2}', null_word: 'NULL', text: 'café 💳 – ok', nested: { list: ['a,b', '"', ''] } };
    const p = await newLinkPurchase(m, { reference, metadata, paymentNotificationUrl: receiver.url('/notify') });
    await insertEvent(app, m, p, 'payment.transaction', transaction({ id: 'psp_"tx\\1' }));
    await insertEvent(app, m, p, 'payment.failed', { reason: 'a "quoted" \\ reason, NULL' });
    await runDue();

    const byPath = new Map(receiver.received.map((r) => [r.path, JSON.parse(r.body) as Record<string, unknown>]));
    const notification = byPath.get('/notify')!;
    expect(notification).toMatchObject({ id: 'psp_"tx\\1', reference, metadata });
    expect(notification.signature).toBe(contractSignature(notification, offerSecret(m)));
    expect(byPath.get('/webhook')).toMatchObject({ objects: { purchaseId: p } });
  });

  it('a payment through the Lyra REST connector adds uid (the Lyra transaction uuid) to the body and to the signature', async () => {
    const m = await caller(app);
    const p = await newLinkPurchase(m, { reference: 'ORDER-L', paymentNotificationUrl: receiver.url('/lyra') });
    const processor = { uid: '971b6b3b9e364e87bfbe9886b3a75df4', legacy_id: '900147', reference: 'chipin-ab', status_label: 'AUTHORISED' };
    await insertEvent(app, m, p, 'payment.transaction', transaction({ id: 'chipin-ab', processor }));
    await runDue();
    const body = JSON.parse(receiver.received[0]!.body) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['created_at', 'id', 'additional_data', 'metadata', 'status', 'sandbox', 'error', 'reference', 'uid', 'signature']);
    expect(body).toMatchObject({ id: 'chipin-ab', uid: '971b6b3b9e364e87bfbe9886b3a75df4', reference: 'ORDER-L' });
    expect(body.signature).toBe(contractSignature(body, offerSecret(m)));
    const { uid: _uid, ...withoutUid } = body;
    expect(contractSignature(withoutUid, offerSecret(m))).not.toBe(body.signature);
  });

  it('sandbox follows the PSP account the payment ran on: live "false", test "true", the built-in sandbox "true", whatever the offer is bound to now', async () => {
    const m = await caller(app);
    const p = await newLinkPurchase(m, { paymentNotificationUrl: receiver.url('/env') });
    const live = await pspAccount(app, m, 'live');
    const test = await pspAccount(app, m, 'test');
    // The offer now points at the live account: the built-in sandbox payment stays a test one.
    await app.services.db.query('UPDATE offers SET psp_account_id = $2 WHERE account_id = $1', [m.accountId, live]);
    for (const [tag, account] of [
      ['live', live],
      ['test', test],
      ['builtin', null],
    ] as const) {
      const pay = await insertPayment(
        app.services.db,
        {
          accountId: m.accountId,
          purchaseId: p,
          purpose: 'leader_share',
          psp: account ? 'lyra' : 'sandbox',
          pspAccountId: account,
          idempotencyKey: `env-${newUuid()}`,
          amountCents: 30_000,
        },
        app.services.clock.now(),
      );
      await insertEvent(app, m, p, 'payment.transaction', { payment_id: pay.id, purpose: 'leader_share', ...transaction({ id: `tx_${tag}` }) });
    }
    await runDue();
    const sent = receiver.received.map((r) => JSON.parse(r.body) as Record<string, unknown>);
    expect(sent.map((b) => [b.id, b.sandbox])).toEqual([
      ['tx_live', 'false'],
      ['tx_test', 'true'],
      ['tx_builtin', 'true'],
    ]);
    for (const b of sent) expect(b.signature).toBe(contractSignature(b, offerSecret(m)));
  });

  it('sends nothing for a purchase without a notification URL, nor for other events', async () => {
    const m = await caller(app);
    const p = await newPurchase(m);
    await insertEvent(app, m, p, 'payment.transaction', transaction());
    const q = await newLinkPurchase(m, { paymentNotificationUrl: receiver.url('/n') });
    await insertEvent(app, m, q, 'payment.failed', { reason: 'x' });
    await runDue();
    expect(receiver.received).toEqual([]);
    expect(await deliveries(app, m.accountId)).toEqual([]);
  });

  it('retries a failing notification URL on the same schedule; a 410 cancels the pending notifications to that URL', async () => {
    const m = await caller(app);
    const p = await newLinkPurchase(m, { reference: 'R-2', paymentNotificationUrl: receiver.url('/gone') });
    receiver.answer = { kind: 'status', code: 500 };
    await insertEvent(app, m, p, 'payment.transaction', transaction());
    await runDue();
    expect((await deliveries(app, m.accountId))[0]).toMatchObject({ status: 'pending', failures: 1 });

    receiver.answer = { kind: 'status', code: 410 };
    await insertEvent(app, m, p, 'payment.transaction', transaction({ id: 'psp_tx_9' }));
    await app.services.sandboxClock!.advance(7);
    await runDue();
    expect(receiver.received).toHaveLength(2);
    expect((await deliveries(app, m.accountId)).map((d) => d.status)).toEqual(['failed', 'cancelled']);
  });

  it('sends a mailto: notification as an e-mail carrying the same JSON body, recorded in outbound_messages', async () => {
    const m = await caller(app);
    const p = await newLinkPurchase(m, { reference: 'MAIL-1', metadata: { k: 'v' }, paymentNotificationUrl: 'mailto:payments@shop.example' });
    await insertEvent(app, m, p, 'payment.transaction', transaction({ id: 'psp_mail' }));
    await runDue();
    const mail = smtp.received.find((r) => r.to.includes('payments@shop.example'));
    expect(mail, 'an e-mail to payments@shop.example').toBeDefined();
    const text = decoded(mail!.raw);
    expect(text).toMatch(/Subject: Payment notification MAIL-1/);
    const { rows } = await app.services.db.query<{ body: string; accepted: boolean; recipient: string }>(
      `SELECT body, accepted, recipient FROM outbound_messages WHERE account_id = $1 AND purchase_id = $2`,
      [m.accountId, p],
    );
    expect(rows).toEqual([{ body: expect.any(String), accepted: true, recipient: 'payments@shop.example' }]);
    const body = JSON.parse(rows[0]!.body) as Record<string, unknown>;
    expect(body).toMatchObject({ id: 'psp_mail', reference: 'MAIL-1', metadata: { k: 'v' }, status: 'completed', error: '', sandbox: 'true' });
    expect(body.signature).toBe(contractSignature(body, offerSecret(m)));
    expect(text).toContain(`"signature":"${body.signature as string}"`);
    expect((await deliveries(app, m.accountId))[0]).toMatchObject({ kind: 'notification', status: 'succeeded', attempts: 1 });
  });
});
