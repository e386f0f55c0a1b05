/**
 * Refunds and disputes on the same payment (docs/money-operations.md#refunds-and-disputes), the
 * two ways money could go wrong, each checked against the sandbox PSP:
 *
 * - money given back twice: a payment refunded in full, then charged back in full. What a
 *   payment gives back, refunds and lost chargebacks together, never exceeds what it captured:
 *   in the ledger, the purchase's figures, reconciliation's Chipin side and at the sandbox PSP; a
 *   refund is refused (`charge_disputed`) while a chargeback is open on a payment it needs;
 * - dispute notices dropped: a notice told before Chipin recorded the payment's PSP transaction id
 *   is kept (parked) and applied once the transaction is recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purchaseDetail } from '../../src/use-cases/back-office/purchase-detail.ts';
import { paymentsByTransactions } from '../../src/payments/reconciliation-repository.ts';
import { listPledges } from '../../src/payments/pledge-repository.ts';
import { PspIntegrationError, type AuthorizeInput, type NotifiedDispute, type PspConnector, type TransactionResult } from '../../src/psp/connector.ts';
import { shopperSessions } from '../../src/http/routes/shopper-space/guard.ts';
import { applyDisputeNotice } from '../../src/use-cases/disputes/dispute.ts';
import type { PaymentDeps } from '../../src/use-cases/deps.ts';
import { payAsLeader } from '../../src/use-cases/checkout/pay-as-leader.ts';
import { payPledge } from '../../src/use-cases/pot/pay-pledge.ts';
import { previewRefund } from '../../src/use-cases/refunds/refund-preview.ts';
import { refundPurchase } from '../../src/use-cases/refunds/refund-purchase.ts';
import { caller, type Caller } from '../helpers/api.ts';
import { onPostgres, startTestApp, type TestApp } from '../helpers/app.ts';
import { form, signIn } from '../helpers/dashboard.ts';
import { card, CARDS, newShop, type Shop } from './support.ts';

/** The sandbox's dispute cards (docs/money-operations.md#the-sandbox-psps-disputes). */
const CHARGEBACK = '4000000000000259';
const INQUIRY = '4000000000001976';
const FRAUD_WARNING = '4000000000005423';

let app: TestApp;
let shop: Shop;
beforeAll(async () => {
  // Jobs run only when the test runs them: the sandbox's dispute notices arrive when it says.
  app = await startTestApp({ jobPollIntervalMs: 0 });
  shop = await newShop(app);
});
afterAll(() => app?.close());

const deps = () => app.services.payments;
const ret = () => 'http://127.0.0.1:3000/return';
const q = async <T>(sql: string, params: unknown[]) => (await app.services.db.query<T>(sql, params)).rows;
const actor = { label: 'test' };

/** Runs every job due now (the sandbox's dispute notices, the parked notices' retries). */
async function runJobs(): Promise<void> {
  while ((await app.services.jobs.runDue()) > 0);
}

/** Moves the service clock (and runs what fell due), as `POST /api/sandbox/clock` does. */
async function advance(c: Caller, seconds: number): Promise<void> {
  const res = await c.post('/api/sandbox/clock', { advance_seconds: seconds });
  expect(res.statusCode, res.body).toBe(200);
}

/** A SHARED purchase of `c` paid by its leader alone with `number` (captured in full); its bare id. */
async function paid(c: Caller, amount: number, number: string): Promise<string> {
  const created = await c.post('/api/merchants/v1/purchases', { title: 'Bike', amount, client: { email: 'leader@example.com' }, merchant_uid: c.offer('SHARED') });
  expect(created.statusCode, created.body).toBe(201);
  const id = (created.json() as { id: string }).id;
  const res = await c.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: number });
  expect(res.statusCode, res.body).toBe(200);
  return id;
}

interface PaymentMoney {
  id: string;
  transactionId: string;
  captured: number;
  refunded: number;
}
async function paymentsOf(purchaseId: string): Promise<PaymentMoney[]> {
  const rows = await q<{ id: string; psp_transaction_id: string; captured_cents: string; refunded_cents: string }>(
    'SELECT id, psp_transaction_id, captured_cents, refunded_cents FROM payments WHERE purchase_id = $1 AND captured_cents > 0 ORDER BY created_at',
    [purchaseId],
  );
  return rows.map((r) => ({ id: r.id, transactionId: r.psp_transaction_id, captured: Number(r.captured_cents), refunded: Number(r.refunded_cents) }));
}

/** Per payment, the ledger's sums (docs/money-operations.md#the-ledger). */
async function ledgerOf(paymentId: string): Promise<{ captured: number; refunded: number; chargedBack: number }> {
  const [r] = await q<{ captured: string; refunded: string; charged_back: string }>(
    `SELECT COALESCE(sum(amount_cents) FILTER (WHERE kind = 'capture'), 0) AS captured,
            COALESCE(sum(amount_cents) FILTER (WHERE kind = 'refund'), 0) AS refunded,
            COALESCE(sum(amount_cents) FILTER (WHERE kind = 'chargeback'), 0) - COALESCE(sum(amount_cents) FILTER (WHERE kind = 'chargeback_reversal'), 0) AS charged_back
       FROM ledger_entries WHERE payment_id = $1`,
    [paymentId],
  );
  return { captured: Number(r!.captured), refunded: Number(r!.refunded), chargedBack: Number(r!.charged_back) };
}

/** The sandbox PSP's own record of a transaction. */
async function atSandbox(transactionId: string): Promise<{ captured: number; refunded: number; chargedBack: number }> {
  const [r] = await q<{ captured_cents: string; refunded_cents: string; charged_back_cents: string }>(
    'SELECT captured_cents, refunded_cents, charged_back_cents FROM sandbox_psp_transactions WHERE id = $1',
    [transactionId],
  );
  return { captured: Number(r!.captured_cents), refunded: Number(r!.refunded_cents), chargedBack: Number(r!.charged_back_cents) };
}

async function sandboxDisputes(c: Caller, purchaseId: string): Promise<{ id: string; psp_dispute_id: string; kind: string; state: string; amount_cents: number }[]> {
  const res = await c.get(`/api/sandbox/purchases/pur_${purchaseId}/disputes`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { disputes: { id: string; psp_dispute_id: string; kind: string; state: string; amount_cents: number }[] }).disputes;
}

/**
 * Every count of what one payment gave back stays within what it captured: Chipin's ledger, the
 * purchase's figures (its page), reconciliation's Chipin side, and the sandbox PSP's own record.
 */
async function expectNeverMoreThanCaptured(c: Caller, purchaseId: string): Promise<void> {
  const payments = await paymentsOf(purchaseId);
  let captured = 0;
  let refunded = 0;
  for (const p of payments) {
    const ledger = await ledgerOf(p.id);
    expect(ledger.captured, 'ledger: captured').toBe(p.captured);
    expect(ledger.refunded + ledger.chargedBack, 'ledger: refunded + charged back').toBeLessThanOrEqual(ledger.captured);
    const psp = await atSandbox(p.transactionId);
    expect(psp.refunded + psp.chargedBack, 'sandbox PSP: refunded + charged back').toBeLessThanOrEqual(psp.captured);
    const [recon] = await paymentsByTransactions(app.services.db, c.accountId, 'sandbox', null, [p.transactionId]);
    expect(Number(recon!.refunded_cents) + Number(recon!.charged_back_cents), 'reconciliation: refunded + charged back').toBeLessThanOrEqual(Number(recon!.captured_cents));
    // Chipin's ledger and its reconciliation count the same chargeback.
    expect(Number(recon!.charged_back_cents)).toBe(ledger.chargedBack);
    captured += p.captured;
    refunded += p.refunded;
  }
  const detail = (await purchaseDetail(app.services.db, c.accountId, purchaseId))!;
  expect(refunded + detail.chargedBackCents, "the purchase's figures: refunded + lost to chargebacks").toBeLessThanOrEqual(captured);
}

describe(`money given back twice (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('a full refund asked before the chargeback is known, then the chargeback lost: never more given back than captured, at Chipin and at the sandbox PSP', async () => {
    const c = await caller(app);
    const id = await paid(c, 276_257, CHARGEBACK);
    // The sandbox opened the chargeback at capture; its notice has not reached Chipin yet.
    const refund = await c.post(`/api/merchants/v1/purchases/${id}/refunds`, {});
    expect([201, 409], refund.body).toContain(refund.statusCode);
    await runJobs();
    const [dispute] = await sandboxDisputes(c, id);
    expect(dispute).toMatchObject({ kind: 'chargeback', state: 'open' });
    expect((await c.post(`/api/sandbox/disputes/${dispute!.id}/lose`)).statusCode).toBe(200);
    await expectNeverMoreThanCaptured(c, id);
    // Given back once: by the chargeback, the refund refused at the PSP while it was open.
    const [p] = await paymentsOf(id);
    expect(await atSandbox(p!.transactionId)).toEqual({ captured: 276_257, refunded: 0, chargedBack: 276_257 });
  });

  it('a chargeback lost after refunds books only what was left, each after the earlier lost ones; the figures and reconciliation count the same', async () => {
    const c = await caller(app);
    const id = await paid(c, 276_257, CARDS.ok);
    const refund = await c.post(`/api/merchants/v1/purchases/${id}/refunds`, { amount: 100_000 });
    expect(refund.statusCode, refund.body).toBe(201);
    const [p] = await paymentsOf(id);
    expect(p!.refunded).toBe(100_000);
    const where = { accountId: c.accountId, pspAccountId: null };
    const lost = (pspDisputeId: string, amountCents: number, status: 'lost' | 'won' = 'lost'): NotifiedDispute => ({
      pspDisputeId,
      transactionId: p!.transactionId,
      kind: 'chargeback',
      status,
      reason: 'fraudulent',
      amountCents,
      currency: 'EUR',
    });
    // The bank tells the whole captured amount: only the 176,257 not refunded is taken.
    expect(await applyDisputeNotice(deps(), where, lost(`dp_a_${id}`, 276_257))).toBe('changed');
    expect(await ledgerOf(p!.id)).toMatchObject({ chargedBack: 176_257 });
    expect((await purchaseDetail(app.services.db, c.accountId, id))!.chargedBackCents).toBe(176_257);
    // A second chargeback lost on the same payment: nothing is left to take.
    expect(await applyDisputeNotice(deps(), where, lost(`dp_b_${id}`, 50_000))).toBe('changed');
    expect(await ledgerOf(p!.id)).toMatchObject({ chargedBack: 176_257 });
    await expectNeverMoreThanCaptured(c, id);
    // The first reversed (won after all): the second now takes its 50,000.
    expect(await applyDisputeNotice(deps(), where, lost(`dp_a_${id}`, 276_257, 'won'))).toBe('changed');
    expect(await ledgerOf(p!.id)).toMatchObject({ chargedBack: 50_000 });
    expect((await purchaseDetail(app.services.db, c.accountId, id))!.chargedBackCents).toBe(50_000);
    await expectNeverMoreThanCaptured(c, id);
    // And what is refundable now counts it: 276,257 − 100,000 − 50,000.
    expect(await previewRefund(app.services.db, c.accountId, id)).toMatchObject({ kind: 'ok', amountCents: 126_257 });
  });

  it('a refund made after a lost chargeback refunds only what the chargeback left', async () => {
    const c = await caller(app);
    const id = await paid(c, 20_000, CHARGEBACK);
    await runJobs();
    const [dispute] = await sandboxDisputes(c, id);
    expect((await c.post(`/api/sandbox/disputes/${dispute!.id}/lose`)).statusCode).toBe(200);
    const refund = await c.post(`/api/merchants/v1/purchases/${id}/refunds`, {});
    expect(refund.statusCode, refund.body).toBe(406);
    expect(refund.json()).toMatchObject({ error: { code: 'invalid_input' } });
    await expectNeverMoreThanCaptured(c, id);
  });
});

describe("a friend's share given back while the bank disputes it", () => {
  it('is left to the bank: the follow-up waits while the chargeback is open, and ends once it is lost, nothing refunded on top', async () => {
    const c = await caller(app);
    const created = await c.post('/api/merchants/v1/purchases', { title: 'Bike', amount: 30_000, client: { email: 'leader@example.com' }, merchant_uid: c.offer('SHARED') });
    const id = (created.json() as { id: string }).id;
    const led = await c.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: CARDS.ok, pledgers: [{ email: 'ann@example.com', amount_cents: 10_000 }] });
    expect(led.statusCode, led.body).toBe(200);
    // Ann pays with the chargeback card; the PSP charges her, but its answer is lost.
    const [ann] = await listPledges(app.services.db, c.accountId, id);
    const real = deps();
    const lost = {
      ...real,
      psps: {
        ...real.psps,
        definition: (n: string) => real.psps.definition(n),
        forOffer: async (o: Parameters<typeof real.psps.forOffer>[0]) => answersLost(await real.psps.forOffer(o)),
        // The charge itself is made by the money engine on the payment's connector (src/money/psp-call.ts).
        forPayment: async (p: Parameters<typeof real.psps.forPayment>[0]) => answersLost(await real.psps.forPayment(p)),
      },
    };
    await expect(payPledge(lost, ann!, card(CHARGEBACK), ret)).rejects.toThrow(PspIntegrationError);
    // The pot's deadline (48 hours) closes Ann's pledge, charges the leader the whole rest and
    // resolves her payment: captured and disputed at once, so its refund is refused and followed up.
    await advance(c, 3 * 86_400);
    const [payment] = await q<{ id: string; psp_transaction_id: string }>("SELECT id, psp_transaction_id FROM payments WHERE purchase_id = $1 AND purpose = 'pledge'", [id]);
    const followUp = () => q<{ done: boolean }>("SELECT done_at IS NOT NULL AS done FROM jobs WHERE kind = 'payment.release' AND payload->>'paymentId' = $1", [payment!.id]);
    expect(await q('SELECT state FROM purchases WHERE id = $1', [id])).toEqual([{ state: 'SUCCESSFUL' }]);
    expect(await atSandbox(payment!.psp_transaction_id)).toEqual({ captured: 10_000, refunded: 0, chargedBack: 0 });
    expect(await followUp()).toEqual([{ done: false }]);
    // Hours pass with the chargeback open: the follow-up waits (nothing refunded), then the
    // chargeback lapses unanswered (lost) and the bank has given Ann's money back.
    await advance(c, 3 * 3_600);
    expect(await followUp()).toEqual([{ done: false }]);
    await advance(c, 5 * 86_400);
    await advance(c, 2 * 3_600);
    expect(await q("SELECT state FROM disputes WHERE payment_id = $1 AND kind = 'chargeback'", [payment!.id])).toEqual([{ state: 'lost' }]);
    expect(await atSandbox(payment!.psp_transaction_id)).toEqual({ captured: 10_000, refunded: 0, chargedBack: 10_000 });
    expect(await followUp(), 'the follow-up ends: nothing is left to give back').toEqual([{ done: true }]);
    await expectNeverMoreThanCaptured(c, id);
  });
});

describe('a refund while a chargeback is open', () => {
  it('is refused with charge_disputed by the use case, the v1 route (409) and the back-office API (409), and goes through once the chargeback is won', async () => {
    const c = await caller(app);
    const id = await paid(c, 30_000, CHARGEBACK);
    await runJobs();
    const [dispute] = await sandboxDisputes(c, id);
    expect(dispute).toMatchObject({ kind: 'chargeback', state: 'open' });

    expect(await refundPurchase(deps(), { accountId: c.accountId, purchaseId: id, amountCents: 1_000, actor })).toMatchObject({ kind: 'charge_disputed' });
    const v1 = await c.post(`/api/merchants/v1/purchases/${id}/refunds`, { amount: 1_000 });
    expect(v1.statusCode, v1.body).toBe(409);
    expect(v1.json()).toEqual({ error: { code: 'charge_disputed', message: expect.stringContaining('chargeback') } });
    const everything = await c.post(`/api/merchants/v1/purchases/${id}/refunds`, {});
    expect(everything.statusCode, everything.body).toBe(409);
    const backoffice = await app.server.inject({
      method: 'POST',
      url: `/api/backoffice/purchases/pur_${id}/refunds`,
      headers: { authorization: c.dashboard, 'content-type': 'application/json' },
      payload: JSON.stringify({ amount: 1_000 }),
    });
    expect(backoffice.statusCode, backoffice.body).toBe(409);
    expect(backoffice.json()).toMatchObject({ error: { app_error: 'charge_disputed' } });
    // The back office's page: the preview and the confirmed refund alike, in the staff's language.
    const s = await signIn(app, c.merchant);
    for (const fields of [{ amount: '10.00' }, { amount: '10.00', confirm: 'yes' }] as Record<string, string>[]) {
      const page = await app.server.inject({
        method: 'POST',
        url: `/dashboard/purchases/pur_${id}/refund`,
        headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: form({ csrf: s.csrf, ...fields }),
      });
      expect(page.statusCode).toBe(409);
      expect(page.body).toContain('A chargeback is open on a payment this refund needs');
    }
    // Nothing was reserved, nothing refunded.
    expect(await q('SELECT 1 FROM refunds WHERE purchase_id = $1', [id])).toEqual([]);
    // The back office's figures: nothing refundable while it is open.
    expect((await purchaseDetail(app.services.db, c.accountId, id))!.refundableCents).toBe(0);

    expect((await c.post(`/api/sandbox/disputes/${dispute!.id}/win`)).statusCode).toBe(200);
    const after = await c.post(`/api/merchants/v1/purchases/${id}/refunds`, { amount: 1_000 });
    expect(after.statusCode, after.body).toBe(201);
    expect(after.json()).toMatchObject({ state: 'succeeded' });
  });

  it('on a pot, a refund the other payments can serve is allocated around the disputed one; one that needs it is refused', async () => {
    const id = await shop.purchase({ amount: 10_000 });
    const led = await payAsLeader(deps(), { id, accountId: shop.accountId }, card(CHARGEBACK), [{ email: 'ann@example.com', amountCents: 4_000 }], ret);
    expect(led.kind).toBe('processed');
    const [ann] = await listPledges(app.services.db, shop.accountId, id);
    expect(await payPledge(deps(), ann!, card(CARDS.ok), ret)).toEqual({ kind: 'paid' });
    await runJobs();
    const disputes = await q<{ payment_id: string; state: string }>("SELECT payment_id, state FROM disputes WHERE purchase_id = $1 AND kind = 'chargeback'", [id]);
    expect(disputes.map((d) => d.state)).toEqual(['open']);
    const leaderPayment = disputes[0]!.payment_id;
    const annPayment = (await paymentsOf(id)).find((p) => p.id !== leaderPayment)!;
    expect(annPayment.captured).toBe(4_000);

    // What Ann paid can be refunded: all of it goes to her, none to the disputed leader's payment.
    expect(await previewRefund(app.services.db, shop.accountId, id)).toMatchObject({ kind: 'charge_disputed', refundableCents: 4_000 });
    const served = await refundPurchase(deps(), { accountId: shop.accountId, purchaseId: id, amountCents: 3_000, actor });
    expect(served).toMatchObject({ kind: 'created', refund: { state: 'succeeded' } });
    const allocations = (served as { refund: { allocations: { paymentId: string | null; amountCents: number }[] } }).refund.allocations;
    expect(allocations.map((a) => [a.paymentId, a.amountCents])).toEqual([[annPayment.id, 3_000]]);
    // 1,000 of Ann's is left; asking more needs the leader's disputed payment.
    expect(await refundPurchase(deps(), { accountId: shop.accountId, purchaseId: id, amountCents: 1_001, actor })).toMatchObject({ kind: 'charge_disputed' });
    expect(await refundPurchase(deps(), { accountId: shop.accountId, purchaseId: id, actor })).toMatchObject({ kind: 'charge_disputed' });
    expect(await refundPurchase(deps(), { accountId: shop.accountId, purchaseId: id, amountCents: 1_000, actor })).toMatchObject({ kind: 'created' });
    const [state] = await q<{ state: string }>('SELECT state FROM purchases WHERE id = $1', [id]);
    expect(state!.state).not.toBe('REFUNDED');
  });
});

/**
 * A connector wrapper whose `authorize` hands its answer to `meanwhile` before Chipin records it:
 * what a PSP's notice sent at once meets (the transaction exists at the PSP, not yet in Chipin).
 */
function noticeBeforeRecord(meanwhile: (result: TransactionResult) => Promise<void>): PaymentDeps {
  const real = deps();
  const wrap = <T extends object>(connector: T): T =>
    new Proxy(connector, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop, target);
        if (prop !== 'authorize' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
        return async (input: AuthorizeInput) => {
          const result = (await (value as (i: AuthorizeInput) => Promise<TransactionResult>).call(target, input)) as TransactionResult;
          await meanwhile(result);
          return result;
        };
      },
    });
  return {
    ...real,
    psps: {
      ...real.psps,
      definition: (n: string) => real.psps.definition(n),
      forOffer: (o) => real.psps.forOffer(o),
      // The leader's authorisation is made by the money engine on the payment's connector (src/money/psp-call.ts).
      forPayment: async (p) => wrap(await real.psps.forPayment(p)),
    },
  };
}

describe('dispute notices told before the transaction is recorded', () => {
  it('are kept and applied once the transaction is recorded: a fraud warning, a retrieval request and a chargeback, each once, in the account that was told', async () => {
    const c = await caller(app);
    const other = await caller(app);
    const kinds = ['fraud_warning', 'retrieval', 'chargeback'] as const;
    const ids: string[] = [];
    for (const kind of kinds) {
      const created = await c.post('/api/merchants/v1/purchases', { title: 'Bike', amount: 12_000, client: { email: 'leader@example.com' }, merchant_uid: c.offer('SHARED') });
      const id = (created.json() as { id: string }).id;
      ids.push(id);
      const outcomes: string[] = [];
      const d = noticeBeforeRecord(async (result) => {
        const notice: NotifiedDispute = {
          pspDisputeId: `dp_${kind}_${id}`,
          transactionId: result.transactionId,
          kind,
          status: 'opened',
          reason: kind === 'fraud_warning' ? null : 'fraudulent',
          amountCents: 12_000,
          currency: 'EUR',
        };
        // Told twice (a redelivery), and to another account naming the same transaction.
        outcomes.push(await applyDisputeNotice(deps(), { accountId: c.accountId, pspAccountId: null }, notice));
        outcomes.push(await applyDisputeNotice(deps(), { accountId: c.accountId, pspAccountId: null }, notice));
        outcomes.push(await applyDisputeNotice(deps(), { accountId: other.accountId, pspAccountId: null }, { ...notice, pspDisputeId: `dp_other_${kind}_${id}` }));
      });
      expect((await payAsLeader(d, { id, accountId: c.accountId }, card(CARDS.ok), [], ret)).kind).toBe('processed');
      expect(outcomes).toEqual(['parked', 'unchanged', 'parked']);
      expect(await q('SELECT 1 FROM disputes WHERE purchase_id = $1', [id])).toEqual([]);
    }
    // The parked notices' retry falls due a few seconds later.
    await advance(c, 60);
    for (const [i, kind] of kinds.entries()) {
      const rows = await q<{ kind: string; state: string; psp_dispute_id: string; account_id: string }>(
        'SELECT kind, state, psp_dispute_id, account_id FROM disputes WHERE purchase_id = $1',
        [ids[i]],
      );
      expect(rows).toEqual([{ kind, state: 'open', psp_dispute_id: `dp_${kind}_${ids[i]}`, account_id: c.accountId }]);
      const events = await q<{ type: string }>("SELECT type FROM purchase_events WHERE purchase_id = $1 AND type = 'purchase.disputed'", [ids[i]]);
      expect(events).toHaveLength(1);
    }
    // The other account's notice names no payment of its own: kept, never applied to this one.
    expect(await q('SELECT 1 FROM disputes WHERE account_id = $1', [other.accountId])).toEqual([]);
    // Applied once: the retries that follow change nothing.
    await advance(c, 3_600);
    expect(await q("SELECT 1 FROM purchase_events WHERE purchase_id = ANY($1::uuid[]) AND type = 'purchase.disputed'", [ids])).toHaveLength(3);
  });

  it('a later notice parked beside an earlier one is applied after it: the chargeback opened, then lost, books its loss', async () => {
    const c = await caller(app);
    const created = await c.post('/api/merchants/v1/purchases', { title: 'Bike', amount: 9_000, client: { email: 'leader@example.com' }, merchant_uid: c.offer('SHARED') });
    const id = (created.json() as { id: string }).id;
    const d = noticeBeforeRecord(async (result) => {
      const notice = (status: 'opened' | 'lost'): NotifiedDispute => ({
        pspDisputeId: `dp_${id}`,
        transactionId: result.transactionId,
        kind: 'chargeback',
        status,
        reason: null,
        amountCents: 9_000,
        currency: 'EUR',
      });
      expect(await applyDisputeNotice(deps(), { accountId: c.accountId, pspAccountId: null }, notice('opened'))).toBe('parked');
      expect(await applyDisputeNotice(deps(), { accountId: c.accountId, pspAccountId: null }, notice('lost'))).toBe('parked');
    });
    expect((await payAsLeader(d, { id, accountId: c.accountId }, card(CARDS.ok), [], ret)).kind).toBe('processed');
    await advance(c, 60);
    expect(await q('SELECT state FROM disputes WHERE purchase_id = $1', [id])).toEqual([{ state: 'lost' }]);
    const [p] = await paymentsOf(id);
    expect(await ledgerOf(p!.id)).toEqual({ captured: 9_000, refunded: 0, chargedBack: 9_000 });
  });

  it("the sandbox PSP's own notice, sent before Chipin recorded the transaction, is delivered again until it is applied (a chargeback, a retrieval request, a fraud warning)", async () => {
    const c = await caller(app);
    for (const [number, kind] of [
      [CHARGEBACK, 'chargeback'],
      [INQUIRY, 'retrieval'],
      [FRAUD_WARNING, 'fraud_warning'],
    ] as const) {
      const created = await c.post('/api/merchants/v1/purchases', { title: 'Bike', amount: 8_000, client: { email: 'leader@example.com' }, merchant_uid: c.offer('SHARED') });
      const id = (created.json() as { id: string }).id;
      // The sandbox's notice job runs between its answer and Chipin's record.
      const d = noticeBeforeRecord(() => runJobs());
      expect((await payAsLeader(d, { id, accountId: c.accountId }, card(number), [], ret)).kind).toBe('processed');
      expect(await q('SELECT 1 FROM disputes WHERE purchase_id = $1', [id])).toEqual([]);
      await advance(c, 60);
      expect(await q('SELECT kind, state FROM disputes WHERE purchase_id = $1', [id])).toEqual([{ kind, state: 'open' }]);
    }
  });

  it("a shopper's early repayment with the chargeback card, its answer lost for 25 minutes: its chargeback is recorded, and the merchant told with its deadline, within minutes of the repayment's record", async () => {
    const c = await caller(app);
    const email = 'repays@example.com';
    const created = await c.post('/api/merchants/v1/purchases', { title: 'Bike', amount: 30_000, client: { email }, merchant_uid: c.offer('INSTALLMENTS', 3) });
    const id = (created.json() as { id: string }).id;
    expect((await c.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: CHARGEBACK })).statusCode).toBe(200);
    await advance(c, 60);
    expect(await q('SELECT state FROM disputes WHERE purchase_id = $1', [id])).toEqual([{ state: 'open' }]);

    // The PSP charges the repayment (and opens its chargeback, whose notice it sends at once), but
    // its answers are lost: to the shopper's request, and to every reconciliation for 25 minutes.
    const payments = app.services.payments;
    const real = payments.psps;
    payments.psps = { ...real, definition: (n) => real.definition(n), forOffer: (o) => real.forOffer(o), forPayment: async (p) => answersLost(await real.forPayment(p)) };
    try {
      const { token, session } = await shopperSessions(app.services).create({ kind: 'email', value: email });
      const repaid = await app.server.inject({
        method: 'POST',
        url: `/space/purchases/pur_${id}/repay`,
        headers: { cookie: `chipin_space=${token}`, 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
        payload: form({ csrf: session.csrf }),
      });
      expect(repaid.headers.location ?? '').not.toContain('done=repaid');
      // Each move runs every job due, the sandbox's notice among them (not applied: no payment has
      // recorded its transaction) and the reconciliation (no answer): eight tries of the notice.
      for (const seconds of [6, 12, 24, 48, 96, 192, 384, 768]) await advance(c, seconds);
    } finally {
      payments.psps = real;
    }
    const repayment = async () =>
      (
        await q<{ status: string; psp_transaction_id: string }>("SELECT status, psp_transaction_id FROM payments WHERE purchase_id = $1 AND idempotency_key LIKE '%:repay:1'", [id])
      )[0]!;
    expect((await repayment()).status).toBe('pending');
    // The PSP answers again: the reconciliation records the repayment, and the dispute follows within minutes.
    for (let minute = 0; minute < 5; minute++) await advance(c, 60);
    const { status, psp_transaction_id: transaction } = await repayment();
    expect(status).toBe('captured');
    const disputes = await q<{ id: string; state: string }>(
      "SELECT d.id, d.state FROM disputes d JOIN payments p ON p.id = d.payment_id WHERE p.purchase_id = $1 AND p.psp_transaction_id = $2 AND d.kind = 'chargeback'",
      [id, transaction],
    );
    expect(disputes).toEqual([{ id: expect.any(String), state: 'open' }]);
    const told = await q<{ data: { evidence_due_at: string | null } }>(
      "SELECT data FROM purchase_events WHERE purchase_id = $1 AND type = 'purchase.disputed' AND data->>'dispute_id' = $2",
      [id, `dsp_${disputes[0]!.id}`],
    );
    expect(told).toHaveLength(1);
    expect(told[0]!.data.evidence_due_at).not.toBeNull();
  });
});

/** A connector whose calls reach the PSP but whose answers never come back (a PSP answering nobody for a while). */
function answersLost<C extends PspConnector>(connector: C): C {
  return new Proxy(connector, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (prop !== 'authorize' && prop !== 'retrieve') return value.bind(target);
      return async (...args: unknown[]) => {
        if (prop === 'authorize') await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        throw new PspIntegrationError(target.name, 'unreachable', 'no answer');
      };
    },
  });
}
