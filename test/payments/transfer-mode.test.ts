/**
 * Transfer mode (docs/money-operations.md#transfer-mode): the operator's collecting accounts, kept
 * away from every merchant's back office and API; offers in transfer mode, their mode and commission
 * shown read-only; payments, notifications and reconciliation on an operator's account across
 * merchants; and what each money event of a transfer-mode purchase books, to the cent
 * (docs/money-operations.md#bookings-per-event), once however often it is told. A back-mode
 * purchase books nothing. The ledger identity over random flows: transfer-ledger.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectInstallment } from '../../src/use-cases/installments/collect-installment.ts';
import { cancelPurchase } from '../../src/use-cases/checkout/cancel-purchase.ts';
import { applyDisputeNotice, deliverSandboxDisputeNotice } from '../../src/use-cases/disputes/dispute.ts';
import { createOperatorAccount, deleteOperatorAccount, listOperatorAccounts } from '../../src/use-cases/merchant-setup/operator-accounts.ts';
import { setOfferMode } from '../../src/use-cases/merchant-setup/offer-mode.ts';
import { refundPurchase } from '../../src/use-cases/refunds/refund-purchase.ts';
import { runReconciliation } from '../../src/use-cases/reconciliation/reconcile-psp.ts';
import { scheduledInstallments } from '../../src/payments/installment-repository.ts';
import { purchaseBooks } from '../../src/payments/transfer-booking-repository.ts';
import { bookBalances, owedCents } from '../../src/payments/balance-repository.ts';
import { minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { onPostgres, startTestApp, type TestApp } from '../helpers/app.ts';
import { signIn } from '../helpers/dashboard.ts';
import { bareRef } from '../psp/connector-contract.ts';

const OK = '4242424242424242';
const CHARGEBACK = '4000000000000259';

let app: TestApp;
let a: Caller;
let b: Caller;
let operatorPsa: string;
beforeAll(async () => {
  // Jobs run only when a test runs them: the sandbox's dispute notices arrive when it says.
  app = await startTestApp({ jobPollIntervalMs: 0 });
  [a, b] = await twoMerchants(app);
  const created = await createOperatorAccount(app.services.pspAccounts, { psp: 'sandbox', environment: 'test', label: 'Operator collecting', credentials: {} }, { verify: true });
  if (created.kind !== 'ok') throw new Error(`operator account: ${JSON.stringify(created)}`);
  operatorPsa = created.account.id;
});
afterAll(() => app?.close());

const deps = () => app.services.payments;
const actor = { label: 'test' };
const q = async <T>(sql: string, params: unknown[]) => (await app.services.db.query<T>(sql, params)).rows;
const bo = (c: Caller, method: 'GET' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
  app.server.inject({
    method,
    url,
    headers: { authorization: c.dashboard, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    payload: payload === undefined ? undefined : JSON.stringify(payload),
  });

/** Puts one of the merchant's offers in transfer mode (the use case of `chipin offer set-mode`). */
async function transfer(c: Caller, offer: string, opts: { psa?: string | null; bps?: number; fixed?: number } = {}): Promise<void> {
  const r = await setOfferMode(app.services.pspAccounts, offer, {
    mode: 'transfer',
    pspAccountId: opts.psa ?? null,
    commissionBps: opts.bps ?? 0,
    commissionFixedCents: opts.fixed ?? 0,
  });
  expect(r.kind, JSON.stringify(r)).toBe('ok');
  app.services.offers.forget(c.accountId);
}

async function created(c: Caller, offer: string, amount: number): Promise<string> {
  const res = await c.post('/api/merchants/v1/purchases', minimalPurchase({ amount, merchant_uid: offer }));
  expect(res.statusCode, res.body).toBe(201);
  return (res.json() as { id: string }).id;
}

async function paid(c: Caller, offer: string, amount: number, card = OK): Promise<string> {
  const id = await created(c, offer, amount);
  const res = await c.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: card });
  expect(res.statusCode, res.body + app.logs.filter((l) => l.includes('"err"')).join('\n')).toBe(200);
  return id;
}

/** The purchase's journals: kind and legs by book, in the order they were booked. */
async function journals(purchaseId: string): Promise<{ journal: string; kind: string; legs: Record<string, number> }[]> {
  const rows = await q<{ journal: string; kind: string; book: string; amount_cents: number }>(
    'SELECT journal, kind, book, amount_cents FROM balance_postings WHERE purchase_id = $1 ORDER BY id',
    [purchaseId],
  );
  const out: { journal: string; kind: string; legs: Record<string, number> }[] = [];
  for (const r of rows) {
    let j = out.find((x) => x.journal === r.journal);
    if (!j) out.push((j = { journal: r.journal, kind: r.kind, legs: {} }));
    j.legs[r.book] = Number(r.amount_cents);
  }
  return out;
}

describe(`the operator's collecting accounts (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it("are listed by the operator's use case only: no merchant's back office finds, lists or names one", async () => {
    expect((await listOperatorAccounts(app.services.pspAccounts)).map((x) => x.id)).toContain(operatorPsa);
    const list = await bo(a, 'GET', '/api/backoffice/psp_accounts');
    expect(list.statusCode).toBe(200);
    expect(JSON.stringify(list.json())).not.toContain(operatorPsa.slice('psa_'.length));
    expect((await bo(a, 'GET', `/api/backoffice/psp_accounts/${operatorPsa}`)).statusCode).toBe(404);
    expect((await bo(a, 'DELETE', `/api/backoffice/psp_accounts/${operatorPsa}`)).statusCode).toBe(404);
    // A merchant cannot point a back-mode offer at it: not found, as another merchant's account.
    const patched = await bo(a, 'PATCH', `/api/backoffice/offers/${a.offer('INSTALLMENTS', 4)}`, { psp_account_id: operatorPsa });
    expect(patched.statusCode, patched.body).toBe(404);
  });

  it("shows a transfer-mode offer's mode and commission read-only, hides the operator's account, and refuses the merchant's changes naming the field", async () => {
    const offer = b.offer('INSTALLMENTS', 4);
    await transfer(b, offer, { psa: operatorPsa, bps: 150, fixed: 25 });
    const listed = ((await bo(b, 'GET', '/api/backoffice/offers')).json() as { merchant_uid: string }[]).find((o) => o.merchant_uid === offer);
    expect(listed).toMatchObject({ payment_mode: 'transfer', commission_bps: 150, commission_fixed_cents: 25, psp_account_id: null, psp: 'sandbox' });
    const own = await bo(b, 'PATCH', `/api/backoffice/offers/${offer}`, { psp_account_id: 'psa_00000000-0000-4000-8000-000000000000' });
    expect(own.statusCode).toBe(400);
    expect(own.body).toMatch(/field psp_account_id: this offer is in transfer mode/);
    const mode = await bo(b, 'PATCH', `/api/backoffice/offers/${offer}`, { payment_mode: 'back' });
    expect(mode.statusCode).toBe(400);
    expect(mode.body).toMatch(/field payment_mode is not allowed/);
    const commission = await bo(b, 'PATCH', `/api/backoffice/offers/${offer}`, { commission_bps: 0 });
    expect(commission.statusCode).toBe(400);
    expect(commission.body).toMatch(/field commission_bps is not allowed/);
    // Other terms stay the merchant's; the null it was shown for the account changes nothing.
    const fees = await bo(b, 'PATCH', `/api/backoffice/offers/${offer}`, { expiry_hours: 30, psp_account_id: null });
    expect(fees.statusCode, fees.body).toBe(200);
    expect(fees.json()).toMatchObject({ payment_mode: 'transfer', expiry_hours: 30 });
    const { cookie } = await signIn(app, b.merchant);
    const page = await app.server.inject({ method: 'GET', url: `/dashboard/offers/${offer}`, headers: { cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Transfer: the operator collects');
    expect(page.body).not.toContain('name="psp_account_id"');
    expect(page.body).not.toContain(operatorPsa.slice('psa_'.length));
    const audit = await q<{ actor: string; details: Record<string, unknown> }>(
      "SELECT actor, details FROM audit_log WHERE account_id = $1 AND action = 'offer_update' AND actor = 'cli'",
      [b.accountId],
    );
    expect(audit.at(-1)?.details).toMatchObject({
      payment_mode: { from: 'back', to: 'transfer' },
      psp_account: { from: 'sandbox', to: 'operator' },
      commission_bps: { from: 0, to: 150 },
    });
    // Back to the built-in sandbox, without commission.
    const back = await setOfferMode(app.services.pspAccounts, offer, { mode: 'back', pspAccountId: null });
    expect(back).toMatchObject({ kind: 'ok', offer: { paymentMode: 'back', pspAccountId: null, commissionBps: 0, commissionFixedCents: 0 } });
  });

  it('refuses a mode naming the wrong kind of account, a commission out of bounds, or in back mode', async () => {
    const offer = b.offer('DEFERRED');
    const mine = await app.server.inject({
      method: 'POST',
      url: '/api/backoffice/psp_accounts',
      headers: { authorization: b.dashboard, 'content-type': 'application/json' },
      payload: JSON.stringify({ psp: 'sandbox', environment: 'test', label: 'Mine', credentials: {} }),
    });
    expect(mine.statusCode, mine.body).toBe(201);
    const s = app.services.pspAccounts;
    expect(await setOfferMode(s, offer, { mode: 'transfer', pspAccountId: mine.json().id })).toEqual({ kind: 'not_found', what: 'PSP account' });
    expect(await setOfferMode(s, offer, { mode: 'back', pspAccountId: operatorPsa })).toEqual({ kind: 'not_found', what: 'PSP account' });
    expect(await setOfferMode(s, offer, { mode: 'transfer', pspAccountId: operatorPsa, commissionBps: 10_001 })).toMatchObject({ kind: 'invalid', field: 'commission-bps' });
    expect(await setOfferMode(s, offer, { mode: 'back', pspAccountId: null, commissionFixedCents: 5 })).toMatchObject({ kind: 'invalid', field: 'commission-fixed-cents' });
    expect(await setOfferMode(s, 'mer_00000000-0000-4000-8000-000000000000', { mode: 'back', pspAccountId: null })).toEqual({ kind: 'not_found', what: 'offer' });
    expect((await q<{ payment_mode: string }>('SELECT payment_mode FROM offers WHERE id = $1', [offer.slice(4)]))[0]!.payment_mode).toBe('back');
  });

  it('refuses to delete one an offer or a payment uses, whoever the merchant', async () => {
    const extra = await createOperatorAccount(app.services.pspAccounts, { psp: 'sandbox', environment: 'test', label: 'Spare', credentials: {} }, { verify: false });
    if (extra.kind !== 'ok') throw new Error('spare account');
    const offer = a.offer('DEFERRED');
    await transfer(a, offer, { psa: extra.account.id });
    expect(await deleteOperatorAccount(app.services.pspAccounts, extra.account.id)).toEqual({ kind: 'in_use', offers: 1, payments: 0 });
    await paid(a, offer, 5_000);
    await setOfferMode(app.services.pspAccounts, offer, { mode: 'back', pspAccountId: null });
    expect(await deleteOperatorAccount(app.services.pspAccounts, extra.account.id)).toEqual({ kind: 'in_use', offers: 0, payments: 1 });
  });
});

describe('payments on an operator account, across merchants', () => {
  it("charge, capture and refund each merchant's purchase on the operator's account, apply a notification to the merchant whose payment it names, once, and reconcile each merchant's own", async () => {
    const offerA = a.offer('INSTALLMENTS', 3);
    const offerB = b.offer('DEFERRED');
    await transfer(a, offerA, { psa: operatorPsa });
    await transfer(b, offerB, { psa: operatorPsa });
    const pa = await paid(a, offerA, 30_000);
    const pb = await paid(b, offerB, 8_000);
    const [payA] = await q<{ psp_account_id: string; account_id: string }>('SELECT psp_account_id, account_id FROM payments WHERE purchase_id = $1', [pa]);
    expect(payA).toEqual({ psp_account_id: operatorPsa.slice(4), account_id: a.accountId });
    expect(await refundPurchase(deps(), { accountId: a.accountId, purchaseId: pa, amountCents: 20_500, actor })).toMatchObject({ kind: 'created', refund: { state: 'succeeded' } });

    // B's deferred hold captured at the PSP out of band; the PSP tells the operator's account, twice.
    const [hold] = await q<{ psp_transaction_id: string }>('SELECT psp_transaction_id FROM payments WHERE purchase_id = $1', [pb]);
    await app.services.psps.sandbox.capture({ idempotencyKey: `oob-${pb}`, transaction: bareRef(hold!.psp_transaction_id), amountCents: 8_000 });
    const n = await app.services.psps.sandbox.notificationFor(hold!.psp_transaction_id);
    for (let i = 0; i < 2; i++) {
      const res = await app.server.inject({ method: 'POST', url: `/api/psp/${operatorPsa}/notifications`, headers: n.headers, payload: n.rawBody });
      expect(res.statusCode, res.body).toBe(200);
    }
    const captures = (await journals(pb)).filter((j) => j.kind === 'capture');
    expect(captures).toEqual([{ journal: expect.stringMatching(/^ledger:\d+$/), kind: 'capture', legs: { psp_cash: 8_000, shopper_receivable: -8_000 } }]);
    expect((await q('SELECT 1 FROM balance_postings WHERE account_id = $1 AND purchase_id = $2', [a.accountId, pb])).length).toBe(0);

    // Reconciling A's payments on the operator's account judges A's transactions only: B's is not "unknown".
    const day = app.services.clock.now();
    const run = await runReconciliation(deps(), {
      accountId: a.accountId,
      pspAccountId: operatorPsa.slice(4),
      from: new Date(day.getTime() - 86_400_000),
      to: new Date(day.getTime() + 60_000),
    });
    expect(run.kind).toBe('completed');
    expect(await q("SELECT kind, transaction_id FROM reconciliation_mismatches WHERE account_id = $1 AND kind = 'unknown_to_chipin'", [a.accountId])).toEqual([]);
  });

  it("applies a dispute notice to the operator's account to the merchant whose payment it names; one about a transaction not recorded yet is answered 503, for the PSP to send it again", async () => {
    const offer = b.offer('SHARED');
    await transfer(b, offer, { psa: operatorPsa });
    const id = await paid(b, offer, 6_000, CHARGEBACK);
    const [payment] = await q<{ id: string; psp_transaction_id: string }>('SELECT id, psp_transaction_id FROM payments WHERE purchase_id = $1', [id]);
    const [atSandbox] = await q<{ id: string }>('SELECT id FROM sandbox_psp_disputes WHERE transaction_id = $1', [payment!.psp_transaction_id]);
    const n = (await app.services.psps.sandbox.disputeNotificationFor(atSandbox!.id))!;
    const post = () => app.server.inject({ method: 'POST', url: `/api/psp/${operatorPsa}/notifications`, headers: n.headers, payload: n.rawBody });
    // As if the PSP told it between its answer and Chipin's record of the transaction.
    await q('UPDATE payments SET psp_transaction_id = NULL WHERE id = $1', [payment!.id]);
    const early = await post();
    expect(early.statusCode, early.body).toBe(503);
    expect(early.body).toContain('not_ready');
    expect(await q('SELECT 1 FROM disputes WHERE purchase_id = $1', [id])).toEqual([]);
    await q('UPDATE payments SET psp_transaction_id = $2 WHERE id = $1', [payment!.id, payment!.psp_transaction_id]);
    expect((await post()).statusCode).toBe(200);
    expect(await q<{ account_id: string; state: string }>('SELECT account_id, state FROM disputes WHERE purchase_id = $1', [id])).toEqual([
      { account_id: b.accountId, state: 'open' },
    ]);
  });
});

describe('bookings per event', () => {
  it("a 3x purchase: validated (amount and fees owed by the shopper, amount less commission to the merchant), captures, a refund lowering installments then paying back, the fees the operator's beyond the amount", async () => {
    const offer = a.offer('INSTALLMENTS', 3);
    await transfer(a, offer, { bps: 250, fixed: 30 });
    const id = await paid(a, offer, 30_000);
    const commission = 750 + 30;
    let j = await journals(id);
    expect(j.map((x) => [x.kind, x.legs])).toEqual([
      ['capture', { psp_cash: 10_450, shopper_receivable: -10_450 }],
      ['validated', { shopper_receivable: 30_450, merchant_payable: -(30_000 - commission), commission: -commission, shopper_fees: -450 }],
    ]);
    expect(j[1]!.journal).toBe(`validated:${id}`);
    // A refund of 25,000: the two installments left lowered (20,000), then 5,000 paid back; the merchant bears it all.
    expect(await refundPurchase(deps(), { accountId: a.accountId, purchaseId: id, amountCents: 25_000, actor })).toMatchObject({ kind: 'created' });
    j = await journals(id);
    expect(j.slice(2).map((x) => [x.kind, x.legs])).toEqual([
      ['plan_cancelled', { shopper_receivable: -10_000, merchant_payable: 10_000 }],
      ['plan_cancelled', { shopper_receivable: -10_000, merchant_payable: 10_000 }],
      ['refund', { psp_cash: -5_000, merchant_payable: 5_000 }],
    ]);
    // The rest, 5,450: 5,000 more of the amount (the merchant's), then the 450 of fees (the operator's).
    expect(await refundPurchase(deps(), { accountId: a.accountId, purchaseId: id, actor })).toMatchObject({ kind: 'created' });
    j = await journals(id);
    expect(j.slice(5).map((x) => [x.kind, x.legs])).toEqual([['refund', { psp_cash: -5_450, merchant_payable: 5_000, shopper_fees: 450 }]]);
    expect((await q<{ state: string }>('SELECT state FROM purchases WHERE id = $1', [id]))[0]!.state).toBe('REFUNDED');
    // What it leaves: nothing held, nothing owed by the shopper, the commission the merchant's cost.
    expect(await purchaseBooks(app.services.db, a.accountId, id)).toEqual({
      psp_cash: 0,
      shopper_receivable: 0,
      merchant_payable: commission,
      commission: -commission,
      shopper_fees: 0,
      paid_out: 0,
    });
  });

  it('a deferred purchase validated then cancelled leaves nothing owed by the shopper; a collection run twice books once', async () => {
    const offer = a.offer('DEFERRED');
    await transfer(a, offer, { bps: 100 });
    const cancelled = await paid(a, offer, 10_000);
    expect(await cancelPurchase(deps(), { accountId: a.accountId, purchaseId: cancelled, actor })).toEqual({ kind: 'cancelled', state: 'CANCELLED' });
    expect(await purchaseBooks(app.services.db, a.accountId, cancelled)).toMatchObject({ psp_cash: 0, shopper_receivable: 0, merchant_payable: 100, commission: -100 });
    expect((await journals(cancelled)).map((x) => x.journal)).toEqual([`validated:${cancelled}`, `plan_cancelled:${cancelled}`]);

    const collected = await paid(a, offer, 10_000);
    const [line] = await scheduledInstallments(app.services.db, a.accountId, collected);
    expect(await collectInstallment(deps(), a.accountId, line!.id)).toBe('paid');
    await collectInstallment(deps(), a.accountId, line!.id);
    expect((await journals(collected)).map((x) => [x.kind, x.legs])).toEqual([
      ['validated', { shopper_receivable: 10_000, merchant_payable: -9_900, commission: -100 }],
      ['capture', { psp_cash: 10_000, shopper_receivable: -10_000 }],
    ]);
  });

  it('a chargeback lost is borne by the merchant, its reversal given back; each notice told twice books once', async () => {
    const offer = a.offer('SHARED');
    await transfer(a, offer);
    const id = await paid(a, offer, 7_000, CHARGEBACK);
    while ((await app.services.jobs.runDue()) > 0);
    const [dispute] = await q<{ id: string; psp_dispute_id: string }>('SELECT id, psp_dispute_id FROM disputes WHERE purchase_id = $1', [id]);
    await app.services.psps.sandbox.decideDispute(dispute!.psp_dispute_id, 'lost');
    for (let i = 0; i < 2; i++) await deliverSandboxDisputeNotice(deps(), app.services.psps.sandbox, dispute!.psp_dispute_id);
    const kinds = (await journals(id)).map((x) => [x.kind, x.legs]);
    expect(kinds).toEqual([
      ['capture', { psp_cash: 7_000, shopper_receivable: -7_000 }],
      ['validated', { shopper_receivable: 7_000, merchant_payable: -7_000 }],
      ['chargeback', { psp_cash: -7_000, merchant_payable: 7_000 }],
    ]);
    expect(await purchaseBooks(app.services.db, a.accountId, id)).toMatchObject({ psp_cash: 0, shopper_receivable: 0, merchant_payable: 0 });
    // The bank reverses it (as Adyen's CHARGEBACK_REVERSED tells it), told twice: the merchant is owed it again, once.
    const [txn] = await q<{ psp_transaction_id: string }>('SELECT psp_transaction_id FROM payments WHERE purchase_id = $1', [id]);
    const reversed = {
      pspDisputeId: dispute!.psp_dispute_id,
      transactionId: txn!.psp_transaction_id,
      kind: 'chargeback' as const,
      status: 'won' as const,
      reason: 'fraudulent',
      amountCents: 7_000,
    };
    for (let i = 0; i < 2; i++) await applyDisputeNotice(deps(), { accountId: a.accountId, pspAccountId: null }, reversed);
    expect((await journals(id)).slice(3).map((x) => [x.kind, x.legs])).toEqual([['chargeback_reversal', { psp_cash: 7_000, merchant_payable: -7_000 }]]);
  });

  it('a back-mode purchase books nothing, whatever happens to it', async () => {
    const offer = b.offer('INSTALLMENTS', 3);
    const before = await bookBalances(app.services.db, b.accountId, 'EUR');
    const id = await paid(b, offer, 30_000);
    expect(await refundPurchase(deps(), { accountId: b.accountId, purchaseId: id, actor })).toMatchObject({ kind: 'created' });
    expect((await q<{ payment_mode: string }>('SELECT payment_mode FROM purchases WHERE id = $1', [id]))[0]!.payment_mode).toBe('back');
    expect(await journals(id)).toEqual([]);
    expect(owedCents(await bookBalances(app.services.db, b.accountId, 'EUR'))).toBe(owedCents(before));
  });

  it("a purchase created in back mode and paid after its offer went to transfer mode is booked as it is charged: the offer's mode at the leader's checkout", async () => {
    const offer = a.offer('INSTALLMENTS', 4);
    const id = await created(a, offer, 8_000);
    expect((await q<{ payment_mode: string }>('SELECT payment_mode FROM purchases WHERE id = $1', [id]))[0]!.payment_mode).toBe('back');
    await transfer(a, offer, { psa: operatorPsa });
    const res = await a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: OK });
    expect(res.statusCode, res.body).toBe(200);
    expect((await q<{ payment_mode: string }>('SELECT payment_mode FROM purchases WHERE id = $1', [id]))[0]!.payment_mode).toBe('transfer');
    expect((await journals(id)).map((x) => x.kind)).toEqual(['capture', 'validated']);
  });
});
