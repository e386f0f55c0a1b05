/**
 * Transfer mode end to end (docs/money-operations.md#transfer-mode, #payouts, #the-sepa-file):
 * merchants whose offers the operator collects, shoppers paying through the sandbox PSP's real
 * routes — a pot with a friend, a 3x, a down payment, a pot paid by bank transfer — the service
 * clock moving so the plans are collected, a partial refund and refunds by transfer, bank details
 * set in the back office, then the payout run and the pain.001 export. What the file pays each
 * merchant is checked against what it is owed computed from the purchases alone (amounts, the
 * offer's commission, what was refunded), and against the balance the back office shows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/domain/dates.ts';
import { commissionOf } from '../../src/domain/balance-books.ts';
import { zonedDay } from '../../src/i18n/format.ts';
import { bookBalances, owedCents } from '../../src/payments/balance-repository.ts';
import { setOfferMode } from '../../src/use-cases/merchant-setup/offer-mode.ts';
import { exportPayouts } from '../../src/use-cases/payouts/payout-export.ts';
import { runPayouts, type PayoutDeps } from '../../src/use-cases/payouts/payouts.ts';
import { receiveTransfer } from '../../src/use-cases/checkout/receive-transfer.ts';
import { PAYOUT_LINE_EVENTS } from '../../src/payouts/payout-views.ts';
import { minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { onPostgres, startTestApp, type TestApp } from '../helpers/app.ts';
import { OPERATOR_BANK } from '../helpers/transfer-mode.ts';
import { BANKS, fileTotals, painSchemas, SILENT, validateXml } from './helpers.ts';

const OK = '4242424242424242';
const DAY = 86_400;
/** A's commission on its pot and plans; B's pot pays none. */
const A_BPS = 150;
const A_FIXED = 25;

let app: TestApp;
let a: Caller;
let b: Caller;
beforeAll(async () => {
  // Jobs run when the sandbox clock moves (the plans' collections, the daily payout job), never behind the test's back.
  app = await startTestApp({ operatorDebtor: OPERATOR_BANK, jobPollIntervalMs: 0 });
  [a, b] = await twoMerchants(app, ['Atelier Paris', 'Auckland Cycles']);
  // B's day ends about 12 hours before A's: each is paid for its own day.
  await app.services.db.query("UPDATE accounts SET time_zone = 'Pacific/Auckland' WHERE id = $1", [b.accountId]);
});
afterAll(() => app?.close());

const q = async <T>(sql: string, params: unknown[]) => (await app.services.db.query<T>(sql, params)).rows;
/** What the operator owes the merchant now, in euros (its books). */
const owed = async (c: Caller) => owedCents(await bookBalances(app.services.db, c.accountId, 'EUR'));
const payoutDeps = (): PayoutDeps => ({ db: app.services.db, clock: app.services.clock, logger: SILENT });

async function transferMode(c: Caller, offer: string, bps: number, fixed: number): Promise<void> {
  const r = await setOfferMode(app.services.pspAccounts, offer, { mode: 'transfer', pspAccountId: null, commissionBps: bps, commissionFixedCents: fixed });
  expect(r.kind, JSON.stringify(r)).toBe('ok');
  app.services.offers.forget(c.accountId);
}

async function created(c: Caller, offer: string, amount: number, email: string): Promise<string> {
  const res = await c.post('/api/merchants/v1/purchases', minimalPurchase({ amount, merchant_uid: offer, client: { email } }));
  expect(res.statusCode, res.body).toBe(201);
  return (res.json() as { id: string }).id;
}

async function pay(c: Caller, id: string, extra: Record<string, unknown> = {}): Promise<{ state: string; pledges?: { id: string }[] }> {
  const res = await c.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: OK, ...extra });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

const state = async (id: string) => (await q<{ state: string }>('SELECT state FROM purchases WHERE id = $1', [id]))[0]!.state;

async function setBank(c: Caller, bank: (typeof BANKS)[number]): Promise<void> {
  const res = await app.server.inject({
    method: 'PUT',
    url: '/api/backoffice/payout_bank_details',
    headers: { authorization: c.dashboard, 'content-type': 'application/json' },
    payload: JSON.stringify({ ...bank, current_password: c.merchant.password }),
  });
  expect(res.statusCode, res.body).toBe(200);
}

/** What the file pays each creditor IBAN, in cents (the amounts as written, read as decimal text). */
function paidByIban(xml: string): Map<string, number> {
  const paid = new Map<string, number>();
  for (const [, tx] of xml.matchAll(/<CdtTrfTxInf>([\s\S]*?)<\/CdtTrfTxInf>/g)) {
    const amount = /<InstdAmt Ccy="EUR">(\d+)\.(\d{2})<\/InstdAmt>/.exec(tx!);
    const iban = /<CdtrAcct>[\s\S]*?<IBAN>([A-Z0-9]+)<\/IBAN>/.exec(tx!);
    expect(amount && iban, tx).toBeTruthy();
    const cents = Number(amount![1]) * 100 + Number(amount![2]);
    paid.set(iban![1]!, (paid.get(iban![1]!) ?? 0) + cents);
  }
  return paid;
}

const PAYS_EACH_MERCHANT =
  'pays each merchant exactly what its purchases owe it, less commission and refunds, once, in a file that validates; each payout and line states gross − commission = payout, a refund lowering installments a plan_cancelled line the OpenAPI document lists';

describe(`transfer mode, from checkout to the payout file (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it(PAYS_EACH_MERCHANT, { timeout: 240_000 }, async () => {
    const potOffer = a.offer('SHARED');
    const threeX = a.offer('INSTALLMENTS', 3);
    const downPayment = a.offer('DOWN_PAYMENT');
    for (const offer of [potOffer, threeX, downPayment]) await transferMode(a, offer, A_BPS, A_FIXED);
    await transferMode(b, b.offer('SHARED'), 0, 0);
    await setBank(a, BANKS[0]!);

    // A's pot: the leader pays 200.00 of 300.00, a friend the rest.
    const pot = await created(a, potOffer, 30_000, 'leader@example.com');
    const potPaid = await pay(a, pot, { pledgers: [{ email: 'friend@example.com', amount_cents: 10_000 }] });
    const friend = await a.post(`/api/sandbox/pledges/${potPaid.pledges![0]!.id}/pay`, { card_number: OK });
    expect(friend.statusCode, friend.body).toBe(200);
    expect(await state(pot)).toBe('SUCCESSFUL');

    // A's 3x of 600.00 and down payment of 450.00: the first installment and the deposit now.
    const plan = await created(a, threeX, 60_000, 'plan@example.com');
    await pay(a, plan);
    const deposit = await created(a, downPayment, 45_000, 'deposit@example.com');
    await pay(a, deposit);

    // B's pot of 129.90 paid by bank transfer, recorded by the operator from its statement.
    const byTransfer = await created(b, b.offer('SHARED'), 12_990, 'transfer@example.com');
    const received = await receiveTransfer(app.services, { purchaseId: byTransfer, amountCents: 12_990, actor: { label: 'cli' } });
    expect(received.kind).toBe('recorded');

    // Refunds: 50.00 of the 3x (its last installment lowered), 20.00 of A's pot on the cards, 30.00 of B's by transfer.
    const refund = await a.post(`/api/merchants/v1/purchases/${plan}/refunds`, { amount: 5_000 });
    expect(refund.statusCode, refund.body).toBe(201);
    const credit = await a.post(`/api/purchases/pur_${pot}/credit_by_transfer`, { amount_cents: 2_000 });
    expect(credit.statusCode, credit.body).toBe(201);
    const creditB = await b.post(`/api/purchases/pur_${byTransfer}/credit_by_transfer`, { amount_cents: 3_000 });
    expect(creditB.statusCode, creditB.body).toBe(201);
    expect(creditB.json()).toMatchObject({ by_transfer: true });

    // A month at a time (one move runs what fell due together: docs/jobs-and-clock.md), 62 days:
    // the 3x's two other installments and the down payment's balance are collected, and the daily
    // payout job runs on the way (B has no bank details yet: its money waits).
    for (const days of [31, 31]) {
      const moved = await a.post('/api/sandbox/clock', { advance_seconds: days * DAY });
      expect(moved.statusCode, moved.body).toBe(200);
    }
    expect(await state(plan)).toBe('SUCCESSFUL');
    expect(await state(deposit)).toBe('SUCCESSFUL');

    // What each merchant is owed, from the purchases alone.
    const owedA = [30_000, 60_000, 45_000].reduce((sum, amount) => sum + amount - commissionOf(amount, A_BPS, A_FIXED), 0) - 5_000 - 2_000;
    const owedB = 12_990 - 3_000;
    const paidBefore = async (c: Caller) =>
      Number((await q<{ n: string }>("SELECT COALESCE(sum(amount_cents), 0)::text AS n FROM payouts WHERE account_id = $1 AND status <> 'returned'", [c.accountId]))[0]!.n);
    expect((await owed(a)) + (await paidBefore(a))).toBe(owedA);
    expect(await owed(b)).toBe(owedB);
    expect(await paidBefore(b)).toBe(0);

    // B sets its bank details; today has not ended in Auckland: nothing is paid for it.
    await setBank(b, BANKS[1]!);
    const today = zonedDay(app.services.clock.now(), 'Pacific/Auckland');
    const early = (await runPayouts(payoutDeps(), { day: today })).filter((r) => r.accountId === b.accountId);
    expect(early.map((r) => r.outcome.kind)).toEqual(['day_not_ended']);

    // Two days on: the daily job (it runs on the way) or the operator's run pays each merchant's
    // yesterday, B's an Auckland day; a run again pays nothing more.
    expect((await a.post('/api/sandbox/clock', { advance_seconds: 2 * DAY })).statusCode).toBe(200);
    await runPayouts(payoutDeps());
    const again = (await runPayouts(payoutDeps())).filter((r) => r.accountId === a.accountId || r.accountId === b.accountId);
    expect(
      again.filter((r) => r.outcome.kind !== 'already_paid'),
      JSON.stringify(again),
    ).toEqual([]);
    const payoutsOfB = await q<{ business_day: string; amount_cents: string }>(
      "SELECT business_day::text AS business_day, amount_cents::text AS amount_cents FROM payouts WHERE account_id = $1 AND status <> 'returned'",
      [b.accountId],
    );
    expect(payoutsOfB).toEqual([{ business_day: addDays(zonedDay(app.services.clock.now(), 'Pacific/Auckland'), -1), amount_cents: String(owedB) }]);
    expect(await owed(a)).toBe(0);
    expect(await owed(b)).toBe(0);

    // The file: one transfer per payout, each merchant's adding up to what it is owed; it validates.
    const exported = await exportPayouts({ db: app.services.db, box: app.services.box, clock: app.services.clock }, { debtor: OPERATOR_BANK, format: 'pain.001.001.09' });
    expect(exported.kind).toBe('exported');
    if (exported.kind !== 'exported') return;
    validateXml(exported.xml, painSchemas()['pain.001.001.09']);
    const paid = paidByIban(exported.xml);
    expect(paid.get(BANKS[0]!.iban.replace(/ /g, ''))).toBe(owedA);
    expect(paid.get(BANKS[1]!.iban.replace(/ /g, ''))).toBe(owedB);
    const mine = exported.payouts.filter((p) => p.account_id === a.accountId || p.account_id === b.accountId);
    expect(fileTotals(exported.xml).counts[0]).toBe(String(exported.payouts.length));
    expect(mine.reduce((s, p) => s + p.amount_cents, 0)).toBe(owedA + owedB);

    // The back office shows the same: nothing owed, all of it in payouts on their way.
    for (const [c, owed] of [
      [a, owedA],
      [b, owedB],
    ] as const) {
      const balance = await app.server.inject({ method: 'GET', url: '/api/backoffice/balance', headers: { authorization: c.dashboard } });
      expect(balance.statusCode, balance.body).toBe(200);
      expect(balance.json()).toMatchObject({
        bank_details_set: true,
        currencies: [{ currency: 'EUR', owed_cents: 0, in_payouts_cents: owed, paid_out_cents: 0, next_payout: 'nothing_owed' }],
      });
    }

    // A's payouts line by line: gross − commission = payout on each line and in each payout's totals;
    // the commission is the offer's on each purchase, the gross what the purchases brought less what they gave up.
    type Line = { event: string; journal: string; purchase_uid: string | null; gross_cents: number; commission_cents: number; payout_cents: number; amount_cents: number };
    const get = (url: string) => app.server.inject({ method: 'GET', url, headers: { authorization: a.dashboard } });
    const listed = (await get('/api/backoffice/payouts')).json() as { data: { id: string }[] };
    const lines: Line[] = [];
    for (const { id } of listed.data) {
      const one = (await get(`/api/backoffice/payouts/${id}`)).json() as {
        amount_cents: number;
        gross_cents: number;
        commission_cents: number;
        payout_cents: number;
        lines: Line[];
      };
      for (const l of one.lines) {
        expect(l.gross_cents - l.commission_cents, JSON.stringify(l)).toBe(l.payout_cents);
        expect(l.payout_cents).toBe(l.amount_cents);
      }
      const sum = (v: (l: Line) => number) => one.lines.reduce((n, l) => n + v(l), 0);
      expect([one.gross_cents, one.commission_cents, one.payout_cents, one.amount_cents]).toEqual([
        sum((l) => l.gross_cents),
        sum((l) => l.commission_cents),
        sum((l) => l.payout_cents),
        sum((l) => l.payout_cents),
      ]);
      const csv = (await get(`/api/backoffice/payouts/${id}/lines.csv`)).body.trimEnd().split('\r\n');
      expect(csv[0]!.split(',').slice(-3)).toEqual(['gross_cents', 'commission_cents', 'payout_cents']);
      expect(csv.slice(1).map((row) => row.split(',').slice(-3).map(Number))).toEqual(one.lines.map((l) => [l.gross_cents, l.commission_cents, l.payout_cents]));
      lines.push(...one.lines);
    }
    const amounts = [30_000, 60_000, 45_000];
    expect(lines.reduce((n, l) => n + l.commission_cents, 0)).toBe(amounts.reduce((n, amount) => n + commissionOf(amount, A_BPS, A_FIXED), 0));
    expect(lines.reduce((n, l) => n + l.gross_cents, 0)).toBe(amounts.reduce((n, amount) => n + amount, 0) - 5_000 - 2_000);
    expect(lines.reduce((n, l) => n + l.payout_cents, 0)).toBe(owedA);
    // The 3x's refund lowered its last installment, not collected yet: a plan_cancelled line, named in the OpenAPI document.
    expect(lines.filter((l) => l.purchase_uid === `pur_${plan}` && l.event === 'plan_cancelled')).toEqual([
      expect.objectContaining({ journal: expect.stringMatching(/^lowered:/), gross_cents: -5_000, commission_cents: 0, payout_cents: -5_000 }),
    ]);
    const doc = (await app.server.inject('/api/openapi.json')).json();
    const payoutRead = doc.paths['/api/backoffice/payouts/{payout_id}'].get.responses['200'].content['application/json'].schema;
    const schemaOf = (s: { $ref?: string }) => (s.$ref ? doc.components.schemas[s.$ref.split('/').pop()!] : s);
    const lineSchema = schemaOf(schemaOf(payoutRead).properties.lines.items);
    const documented = (lineSchema.properties.event.anyOf as { const?: string; enum?: string[] }[]).map((e) => e.const ?? e.enum?.[0]);
    expect(documented).toEqual([...PAYOUT_LINE_EVENTS]);
    for (const l of lines) expect(documented).toContain(l.event);
    expect(Object.keys(lineSchema.properties)).toEqual(expect.arrayContaining(['gross_cents', 'commission_cents', 'payout_cents']));
  });
});
