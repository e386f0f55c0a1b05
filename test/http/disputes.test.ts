/**
 * Disputes end to end on the sandbox PSP (docs/money-operations.md#disputes): a dispute card's
 * captured payment opens a dispute at the sandbox, which notifies Chipin (a durable job); the
 * dispute is recorded once with `purchase.disputed` (webhook `purchaseDisputed` to a REAL
 * receiver); the sandbox helpers win or lose it (`dispute.closed`, webhook `disputeClosed`; a lost
 * chargeback charged back at the sandbox); an unanswered one lapses as lost with the clock; a
 * redelivered notice changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyDisputeNotice, deliverSandboxDisputeNotice } from '../../src/use-cases/disputes/dispute.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { onPostgres, startTestApp, type TestApp } from '../helpers/app.ts';
import { Receiver, setWebhook } from '../delivery/helpers.ts';
import { addDashboardUser, form, signIn } from '../helpers/dashboard.ts';

let app: TestApp;
let receiver: Receiver;
let c: Caller;
beforeAll(async () => {
  app = await startTestApp({ jobPollIntervalMs: 0 });
  receiver = await Receiver.start();
  c = await caller(app);
  await setWebhook(app, c, receiver.url('/hook'), ['purchaseDisputed', 'disputeClosed']);
});
afterAll(async () => {
  await receiver?.close();
  await app?.close();
});

const CHARGEBACK = '4000 0000 0000 0259';
const INQUIRY = '4000 0000 0000 1976';
const FRAUD_WARNING = '4000 0000 0000 5423';
const DAY = 86_400;

interface Dispute {
  id: string;
  psp_dispute_id: string;
  kind: string;
  state: string;
  reason: string | null;
  amount_cents: number;
  currency: string;
  evidence_due_at: string | null;
  closed_at: string | null;
}

/** A purchase of `c` on the 3x offer paid as the leader with `card` (its first installment captured at once); its bare id. */
async function paidPurchase(card: string, ref?: string): Promise<string> {
  const created = await c.post('/api/merchants/v1/purchases', minimalPurchase({ merchant_uid: c.offer('INSTALLMENTS', 3), ...(ref ? { ref } : {}) }));
  expect(created.statusCode, created.body).toBe(201);
  const id = (created.json() as { id: string }).id;
  const paid = await c.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: card });
  expect(paid.statusCode, paid.body).toBe(200);
  return id;
}

/** Moves the sandbox clock, which runs what fell due (the sandbox's dispute notices among it). */
async function advance(seconds: number): Promise<void> {
  const res = await c.post('/api/sandbox/clock', { advance_seconds: seconds });
  expect(res.statusCode, res.body).toBe(200);
}

async function disputesOf(id: string): Promise<Dispute[]> {
  const res = await c.get(`/api/sandbox/purchases/pur_${id}/disputes`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { disputes: Dispute[] }).disputes;
}

async function eventsOf(id: string): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const { rows } = await app.services.db.query<{ type: string; data: unknown }>(
    "SELECT type, data FROM purchase_events WHERE account_id = $1 AND purchase_id = $2 AND type IN ('purchase.disputed', 'dispute.closed') ORDER BY id",
    [c.accountId, id],
  );
  return rows.map((r) => ({ type: r.type, data: (typeof r.data === 'string' ? JSON.parse(r.data) : r.data) as Record<string, unknown> }));
}

const webhooksFor = (id: string, trigger: string) =>
  receiver.received.filter((r) => {
    const body = JSON.parse(r.body) as { triggerName: string; objects: { purchaseId: string } };
    return body.triggerName === trigger && body.objects.purchaseId === id;
  });

const OK_CARD = '4242 4242 4242 4242';

/** The purchase's captured payment: its PSP transaction id, what it captured and refunded. */
async function capturedPayment(id: string): Promise<{ transactionId: string; capturedCents: number; refundedCents: number }> {
  const { rows } = await app.services.db.query<{ psp_transaction_id: string; captured_cents: string; refunded_cents: string }>(
    'SELECT psp_transaction_id, captured_cents, refunded_cents FROM payments WHERE account_id = $1 AND purchase_id = $2 AND captured_cents > 0 ORDER BY created_at LIMIT 1',
    [c.accountId, id],
  );
  return { transactionId: rows[0]!.psp_transaction_id, capturedCents: Number(rows[0]!.captured_cents), refundedCents: Number(rows[0]!.refunded_cents) };
}

/** The purchase's chargeback entries in the ledger, in the order appended. */
async function disputeLedger(id: string): Promise<[string, number][]> {
  const { rows } = await app.services.db.query<{ kind: string; amount_cents: string }>(
    "SELECT kind, amount_cents FROM ledger_entries WHERE account_id = $1 AND purchase_id = $2 AND kind IN ('chargeback', 'chargeback_reversal') ORDER BY id",
    [c.accountId, id],
  );
  return rows.map((r) => [r.kind, Number(r.amount_cents)]);
}

async function capturedCents(id: string): Promise<number> {
  const { rows } = await app.services.db.query<{ captured: string }>(
    'SELECT COALESCE(SUM(captured_cents), 0) AS captured FROM payments WHERE account_id = $1 AND purchase_id = $2',
    [c.accountId, id],
  );
  return Number(rows[0]!.captured);
}

describe(`disputes on the sandbox PSP (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('a chargeback card opens a dispute once captured, told by purchaseDisputed; lost via the helper, it is charged back and told by disputeClosed', async () => {
    const id = await paidPurchase(CHARGEBACK);
    await advance(1);
    const [opened, ...more] = await disputesOf(id);
    expect(more).toEqual([]);
    const captured = await capturedCents(id);
    expect(captured).toBeGreaterThan(0);
    expect(opened).toMatchObject({ kind: 'chargeback', state: 'open', reason: 'fraudulent', amount_cents: captured, currency: 'EUR', closed_at: null });
    expect(opened!.evidence_due_at).not.toBeNull();
    await receiver.waitFor(() => webhooksFor(id, 'purchaseDisputed').length === 1, 'purchaseDisputed');

    const lost = await c.post(`/api/sandbox/disputes/${opened!.id}/lose`);
    expect(lost.statusCode, lost.body).toBe(200);
    expect(lost.json()).toMatchObject({ id: opened!.id, state: 'lost' });
    const { rows } = await app.services.db.query<{ charged_back_cents: string }>(
      'SELECT charged_back_cents FROM sandbox_psp_transactions t JOIN sandbox_psp_disputes d ON d.transaction_id = t.id WHERE d.id = $1',
      [opened!.psp_dispute_id],
    );
    expect(Number(rows[0]!.charged_back_cents)).toBe(captured);
    // The ledger took the loss once, in the transaction that recorded it (docs/money-operations.md#the-ledger).
    const ledger = await app.services.db.query<{ kind: string; amount_cents: string }>(
      "SELECT kind, amount_cents FROM ledger_entries WHERE account_id = $1 AND purchase_id = $2 AND kind IN ('chargeback', 'chargeback_reversal')",
      [c.accountId, id],
    );
    expect(ledger.rows.map((r) => [r.kind, Number(r.amount_cents)])).toEqual([['chargeback', captured]]);
    await receiver.waitFor(() => webhooksFor(id, 'disputeClosed').length === 1, 'disputeClosed');
    expect((await eventsOf(id)).map((e) => [e.type, e.data.dispute_id, e.data.outcome ?? null])).toEqual([
      ['purchase.disputed', opened!.id, null],
      ['dispute.closed', opened!.id, 'lost'],
    ]);
    // Decided once: a second decision is refused.
    const again = await c.post(`/api/sandbox/disputes/${opened!.id}/win`);
    expect(again.statusCode, again.body).toBe(409);
  });

  it('a redelivered or replayed notice records nothing twice', async () => {
    const id = await paidPurchase(CHARGEBACK);
    await advance(1);
    const [d] = await disputesOf(id);
    const sandbox = app.services.psps.sandbox;
    expect(await deliverSandboxDisputeNotice(app.services.payments, sandbox, d!.psp_dispute_id)).toBe('unchanged');
    const notice = await sandbox.disputeNotificationFor(d!.psp_dispute_id);
    const verified = await sandbox.verifyNotification(notice!);
    if (!verified.ok || !verified.dispute) throw new Error('the sandbox notice did not verify');
    expect(await applyDisputeNotice(app.services.payments, { accountId: c.accountId, pspAccountId: null }, verified.dispute)).toBe('unchanged');
    // An older "opened" notice after the outcome does not reopen it.
    expect((await c.post(`/api/sandbox/disputes/${d!.id}/win`)).statusCode).toBe(200);
    expect(await applyDisputeNotice(app.services.payments, { accountId: c.accountId, pspAccountId: null }, verified.dispute)).toBe('unchanged');
    expect((await disputesOf(id)).map((x) => x.state)).toEqual(['won']);
    expect((await eventsOf(id)).map((e) => [e.type, e.data.outcome ?? null])).toEqual([
      ['purchase.disputed', null],
      ['dispute.closed', 'won'],
    ]);
    const { rows } = await app.services.db.query<{ n: string }>('SELECT count(*) AS n FROM disputes WHERE account_id = $1 AND purchase_id = $2', [c.accountId, id]);
    expect(Number(rows[0]!.n)).toBe(1);
  });

  it('a retrieval request and a fraud warning open as such and end closed; an unanswered chargeback lapses as lost at its deadline', async () => {
    const inquiry = await paidPurchase(INQUIRY);
    const warning = await paidPurchase(FRAUD_WARNING);
    const lapsing = await paidPurchase(CHARGEBACK);
    await advance(1);
    const [r] = await disputesOf(inquiry);
    const [w] = await disputesOf(warning);
    expect(r).toMatchObject({ kind: 'retrieval', state: 'open', reason: 'inquiry' });
    expect(w).toMatchObject({ kind: 'fraud_warning', state: 'open', evidence_due_at: null });
    expect((await c.post(`/api/sandbox/disputes/${w!.id}/lose`)).json()).toMatchObject({ state: 'closed' });
    await advance(8 * DAY);
    expect((await disputesOf(inquiry)).map((x) => x.state)).toEqual(['closed']);
    expect((await disputesOf(lapsing)).map((x) => x.state)).toEqual(['lost']);
    expect((await eventsOf(lapsing)).map((e) => e.data.outcome ?? null)).toEqual([null, 'lost']);
  });

  it("another account's dispute is not found", async () => {
    const id = await paidPurchase(CHARGEBACK);
    await advance(1);
    const [d] = await disputesOf(id);
    const other = await caller(app);
    expect((await other.post(`/api/sandbox/disputes/${d!.id}/win`)).statusCode).toBe(404);
    expect((await other.get(`/api/sandbox/purchases/pur_${id}/disputes`)).statusCode).toBe(404);
  });

  it('the back office lists open disputes by deadline and marks evidence as sent (API and page, a support user too), audited, once', async () => {
    const first = await paidPurchase(CHARGEBACK);
    await advance(DAY);
    const second = await paidPurchase(INQUIRY, 'ORDER-2042');
    await advance(1);
    const [d1] = await disputesOf(first);
    const [d2] = await disputesOf(second);
    const api = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
      app.server.inject({
        method,
        url,
        headers: { authorization: c.dashboard, ...(payload ? { 'content-type': 'application/json' } : {}) },
        ...(payload ? { payload: JSON.stringify(payload) } : {}),
      });
    const listed = await api('GET', '/api/backoffice/disputes?limit=1');
    expect(listed.statusCode, listed.body).toBe(200);
    const page1 = listed.json() as { data: Dispute[]; has_more: boolean; next_cursor?: string };
    // Deadlines: the first opened a day earlier, so it is due first (earlier tests' disputes are ended or due before).
    const open: Dispute[] = [...page1.data];
    let cursor = page1.next_cursor;
    while (cursor) {
      const more = (await api('GET', `/api/backoffice/disputes?limit=1&cursor=${cursor}`)).json() as { data: Dispute[]; next_cursor?: string };
      open.push(...more.data);
      cursor = more.next_cursor;
    }
    const ids = open.map((d) => d.id);
    expect(ids.indexOf(d1!.id)).toBeLessThan(ids.indexOf(d2!.id));
    expect(open.every((d) => d.state === 'open' || d.state === 'evidence_sent')).toBe(true);
    const dues = open.map((d) => d.evidence_due_at ?? '9999');
    expect([...dues].sort()).toEqual(dues);
    expect((await api('GET', '/api/backoffice/disputes?state=bogus')).statusCode).toBe(400);

    const marked = await api('POST', `/api/backoffice/disputes/${d1!.id}/evidence`, { text: 'Signed delivery receipt' });
    expect(marked.statusCode, marked.body).toBe(200);
    expect(marked.json()).toMatchObject({ dispute: { id: d1!.id, state: 'evidence_sent' }, submitted_to_psp: false });
    expect((await api('POST', `/api/backoffice/disputes/${d1!.id}/evidence`, { text: 'again' })).statusCode).toBe(409);
    const { rows } = await app.services.db.query<{ action: string }>("SELECT action FROM audit_log WHERE account_id = $1 AND action = 'dispute_evidence_sent'", [c.accountId]);
    expect(rows.length).toBe(1);
    // The bank still decides: won after the evidence.
    expect((await c.post(`/api/sandbox/disputes/${d1!.id}/win`)).json()).toMatchObject({ state: 'won' });

    // The pages: a support user sees the dispute on the purchase and the open list, and marks the evidence with the form.
    const support = await addDashboardUser(app, c.accountId, 'support');
    const s = await signIn(app, support);
    const get = (url: string) => app.server.inject({ method: 'GET', url, headers: { cookie: s.cookie } });
    const purchasePage = await get(`/dashboard/purchases/pur_${second}`);
    expect(purchasePage.statusCode).toBe(200);
    expect(purchasePage.body).toContain('Retrieval request');
    expect(purchasePage.body).toContain(`/dashboard/disputes/${d2!.id}/evidence`);
    const list = await get('/dashboard/disputes');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(`pur_${second}`);
    expect(list.body).not.toContain(`pur_${first}`);
    // The sale named as staff know it, by its reference and customer.
    expect(list.body).toContain(`>ORDER-2042</a><br><span class="muted">leader@example.com</span>`);
    const posted = await app.server.inject({
      method: 'POST',
      url: `/dashboard/disputes/${d2!.id}/evidence`,
      headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ csrf: s.csrf, text: 'Invoice attached' }),
    });
    expect(posted.statusCode, posted.body.slice(0, 300)).toBe(303);
    expect(posted.headers.location).toBe(`/dashboard/purchases/pur_${second}?done=evidence#disputes`);
    expect((await disputesOf(second)).map((d) => d.state)).toEqual(['evidence_sent']);
    const forged = await app.server.inject({
      method: 'POST',
      url: `/dashboard/disputes/${d2!.id}/evidence`,
      headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ csrf: 'forged', text: 'x' }),
    });
    expect(forged.statusCode).toBe(403);
  });

  it('a lost chargeback that tells no amount takes what is left after the refunds, not the refunded part again', async () => {
    const id = await paidPurchase(OK_CARD);
    const payment = await capturedPayment(id);
    // Money not collected yet is refunded first (installments lowered): refund all of it and part of the captured payment.
    const { rows } = await app.services.db.query<{ amount_cents: string }>('SELECT amount_cents FROM purchases WHERE account_id = $1 AND id = $2', [c.accountId, id]);
    const refunded = await c.post(`/api/merchants/v1/purchases/${id}/refunds`, { amount: Number(rows[0]!.amount_cents) - payment.capturedCents + 1_000 });
    expect(refunded.statusCode, refunded.body).toBe(201);
    const { refundedCents } = await capturedPayment(id);
    expect(refundedCents).toBeGreaterThan(0);
    expect(refundedCents).toBeLessThan(payment.capturedCents);
    const notice = { pspDisputeId: `dp_${id}`, transactionId: payment.transactionId, kind: 'chargeback' as const, status: 'lost' as const, reason: null };
    expect(await applyDisputeNotice(app.services.payments, { accountId: c.accountId, pspAccountId: null }, notice)).toBe('changed');
    const [d] = await disputesOf(id);
    expect(d).toMatchObject({ state: 'lost', amount_cents: payment.capturedCents - refundedCents });
    expect(await disputeLedger(id)).toEqual([['chargeback', payment.capturedCents - refundedCents]]);
  });

  it('a lost chargeback whose amount the PSP tells again, larger or smaller, moves the ledger by the difference; each outcome that turns too', async () => {
    const id = await paidPurchase(OK_CARD);
    const payment = await capturedPayment(id);
    const where = { accountId: c.accountId, pspAccountId: null };
    const notice = (status: 'lost' | 'won', amountCents: number) => ({
      pspDisputeId: `dp_${id}`,
      transactionId: payment.transactionId,
      kind: 'chargeback' as const,
      status,
      reason: null,
      amountCents,
      currency: 'EUR',
    });
    const net = async () => (await disputeLedger(id)).reduce((s, [kind, cents]) => s + (kind === 'chargeback' ? cents : -cents), 0);
    expect(await applyDisputeNotice(app.services.payments, where, notice('lost', 1_000))).toBe('changed');
    expect(await net()).toBe(1_000);
    // A second partial chargeback of the same dispute (HiPay's chargebackedAmount read again).
    expect(await applyDisputeNotice(app.services.payments, where, notice('lost', 1_500))).toBe('changed');
    expect(await applyDisputeNotice(app.services.payments, where, notice('lost', 1_500))).toBe('unchanged');
    expect(await net()).toBe(1_500);
    expect(await applyDisputeNotice(app.services.payments, where, notice('lost', 1_200))).toBe('changed');
    expect(await net()).toBe(1_200);
    // Reversed, then lost again (a second chargeback): each turn is in the ledger.
    expect(await applyDisputeNotice(app.services.payments, where, notice('won', 1_200))).toBe('changed');
    expect(await net()).toBe(0);
    expect(await applyDisputeNotice(app.services.payments, where, notice('lost', 1_200))).toBe('changed');
    expect(await net()).toBe(1_200);
    expect(await applyDisputeNotice(app.services.payments, where, notice('lost', 1_200))).toBe('unchanged');
    expect(await disputeLedger(id)).toEqual([
      ['chargeback', 1_000],
      ['chargeback', 500],
      ['chargeback_reversal', 300],
      ['chargeback_reversal', 1_200],
      ['chargeback', 1_200],
    ]);
    // The ledger's charged-back figure is the lost disputes' (what the purchase's page and reconciliation read).
    const { rows } = await app.services.db.query<{ lost: string }>(
      "SELECT COALESCE(SUM(amount_cents), 0) AS lost FROM disputes WHERE account_id = $1 AND purchase_id = $2 AND kind = 'chargeback' AND state = 'lost'",
      [c.accountId, id],
    );
    expect(Number(rows[0]!.lost)).toBe(await net());
  });

  it("a lost chargeback shows on the purchase's page as money lost, beside the refunds", async () => {
    const id = await paidPurchase(CHARGEBACK);
    await advance(1);
    const [d] = await disputesOf(id);
    await c.post(`/api/sandbox/disputes/${d!.id}/lose`);
    const s = await signIn(app, c.merchant);
    const page = await app.server.inject({ method: 'GET', url: `/dashboard/purchases/pur_${id}`, headers: { cookie: s.cookie } });
    expect(page.body).toContain('Lost to chargebacks');
    expect(page.body).toContain('Lost</td>');
  });
});
