/**
 * The ledger and the daily finance report (docs/money-operations.md#reports): every capture and
 * refund recorded on a payment is in the ledger, and the report's sums equal the ledger's and the
 * payments' totals, day by day of the account's time zone (a property over random flows); the
 * JSON API, the CSV and the page show the same rows to admins of the account only.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zonedDay, zonedMidnight } from '../../src/i18n/format.ts';
import { commissionOf } from '../../src/domain/balance-books.ts';
import { bookBalances, owedCents } from '../../src/payments/balance-repository.ts';
import { bookDisputeLedger, ledgerSumsOfPurchase } from '../../src/payments/ledger-repository.ts';
import { scheduledInstallments } from '../../src/payments/installment-repository.ts';
import { findPayment } from '../../src/payments/payment-repository.ts';
import { recordResult } from '../../src/money/payment-record-repository.ts';
import { dailyReportPage, type DailyReportRow } from '../../src/reports/report-repository.ts';
import { collectInstallment } from '../../src/use-cases/installments/collect-installment.ts';
import { payAsLeader } from '../../src/use-cases/checkout/pay-as-leader.ts';
import { refundPurchase } from '../../src/use-cases/refunds/refund-purchase.ts';
import { setOfferMode } from '../../src/use-cases/merchant-setup/offer-mode.ts';
import { addDays } from '../../src/domain/dates.ts';
import { newUuid } from '../../src/domain/ids.ts';
import { cheapDashboardPassword } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { addDashboardUser, signIn } from '../helpers/dashboard.ts';
import { card, CARDS, jumpingClock, newShop, type Shop } from '../use-cases/support.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

const q = async <T>(sql: string, params: unknown[]) => (await app.services.db.query<T>(sql, params)).rows;
const ret = () => 'http://127.0.0.1:3000/return';
const HOUR = 3_600_000;

interface Step {
  type: 'SHARED' | 'INSTALLMENTS' | 'DEFERRED';
  amount: number;
  /** Installments collected after the checkout (capped by the plan). */
  collect: number;
  /** Per mille of what was captured, refunded afterwards (0: no refund). */
  refundPerMille: number;
  /** Hours the clock moves before the step. */
  hours: number;
}

const step: fc.Arbitrary<Step> = fc.record({
  type: fc.constantFrom('SHARED' as const, 'INSTALLMENTS' as const, 'DEFERRED' as const),
  amount: fc.integer({ min: 5_000, max: 150_000 }),
  collect: fc.integer({ min: 0, max: 3 }),
  refundPerMille: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1000 })),
  hours: fc.integer({ min: 0, max: 30 }),
});
const ZONES = ['UTC', 'Europe/Paris', 'America/Los_Angeles', 'Pacific/Kiritimati'];

/** Runs the steps on a new shop whose account is in `zone`; answers the shop, its purchases and the clock's last instant. */
async function runFlow(
  steps: Step[],
  zone: string,
  options: { pspAccount?: string; transfer?: { bps: number; fixedCents: number } } = {},
): Promise<{ shop: Shop; purchases: string[]; end: Date }> {
  const shop = await newShop(app);
  await app.services.db.query('UPDATE accounts SET time_zone = $2 WHERE id = $1', [shop.accountId, zone]);
  if (options.transfer) {
    // Every offer the steps use in transfer mode, on the built-in sandbox PSP as the operator's collecting account.
    for (const offer of [shop.offer('SHARED'), shop.offer('INSTALLMENTS', 3), shop.offer('DEFERRED')]) {
      const set = await setOfferMode(app.services.pspAccounts, offer.merchant_uid, {
        mode: 'transfer',
        pspAccountId: null,
        commissionBps: options.transfer.bps,
        commissionFixedCents: options.transfer.fixedCents,
      });
      expect(set.kind, JSON.stringify(set)).toBe('ok');
    }
    app.services.offers.forget(shop.accountId);
  }
  if (options.pspAccount) {
    // The SHARED offer pays through a PSP account of the merchant's (the sandbox connector, back mode).
    const bo = (method: 'POST' | 'PATCH', url: string, payload: object) =>
      app.server.inject({ method, url, headers: { authorization: shop.dashboard, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
    const created = await bo('POST', '/api/backoffice/psp_accounts', { psp: 'sandbox', environment: 'test', label: options.pspAccount, credentials: {} });
    expect(created.statusCode, created.body).toBe(201);
    const bound = await bo('PATCH', `/api/backoffice/offers/${shop.offer('SHARED').merchant_uid}`, { psp_account_id: created.json().id });
    expect(bound.statusCode, bound.body).toBe(200);
  }
  const clock = jumpingClock(app.services.clock);
  const deps = { ...app.services.payments, clock };
  const purchases: string[] = [];
  for (const [n, s] of steps.entries()) {
    clock.jump(s.hours * HOUR);
    const offer = s.type === 'INSTALLMENTS' ? shop.offer('INSTALLMENTS', 3) : shop.offer(s.type);
    const id = await shop.purchase({ merchant_uid: offer.merchant_uid, amount: s.amount, client: { email: `shopper${n}@example.com` } });
    purchases.push(id);
    const paid = await payAsLeader(deps, { id, accountId: shop.accountId }, card(CARDS.ok), [], ret);
    expect(paid.kind).toBe('processed');
    const left = await scheduledInstallments(app.services.db, shop.accountId, id);
    for (const i of left.slice(0, s.collect)) {
      clock.jump(HOUR);
      expect(await collectInstallment(deps, shop.accountId, i.id)).toBe('paid');
    }
    if (s.refundPerMille > 0) {
      const [row] = await q<{ kept: number }>('SELECT COALESCE(sum(captured_cents - refunded_cents), 0)::int AS kept FROM payments WHERE purchase_id = $1', [id]);
      const amountCents = Math.floor((row!.kept * s.refundPerMille) / 1000);
      if (amountCents > 0) {
        clock.jump(HOUR);
        const refunded = await refundPurchase(deps, { accountId: shop.accountId, purchaseId: id, amountCents, actor: { label: 'test' } });
        expect(refunded.kind).toBe('created');
      }
    }
  }
  return { shop, purchases, end: clock.now() };
}

/** The whole report of the account from a day before the first purchase to a day after `end`. */
async function wholeReport(accountId: string, zone: string, end: Date): Promise<DailyReportRow[]> {
  const from = addDays(zonedDay(app.services.clock.now(), zone), -1);
  const to = addDays(zonedDay(end, zone), 1);
  return dailyReportPage(app.services.db, accountId, { from: zonedMidnight(from, zone), to: zonedMidnight(addDays(to, 1), zone), timeZone: zone }, undefined, 10_000);
}

/** Sums `value` of `items` per key. */
function sumBy<T>(items: T[], key: (t: T) => string, value: (t: T) => number): Map<string, number> {
  const m = new Map<string, number>();
  for (const i of items) m.set(key(i), (m.get(key(i)) ?? 0) + value(i));
  for (const [k, v] of m) if (v === 0) m.delete(k);
  return m;
}

describe('the ledger', () => {
  it("per payment, after any flow, Σ capture − Σ refund equals captured − refunded; the report's sums equal the ledger's and the payments', day by day of the account's zone", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 3 }), fc.constantFrom(...ZONES), async (steps, zone) => {
        const { shop, purchases, end } = await runFlow(steps, zone);
        const acc = shop.accountId;
        // Per payment: the ledger adds up to the payment's own totals.
        for (const id of purchases) {
          const payments = await q<{ id: string; captured_cents: number; refunded_cents: number }>(
            'SELECT id, captured_cents, refunded_cents FROM payments WHERE account_id = $1 AND purchase_id = $2 AND captured_cents > 0 ORDER BY id',
            [acc, id],
          );
          const sums = await ledgerSumsOfPurchase(app.services.db, acc, id);
          expect(sums.map((s) => [s.paymentId, s.capturedCents - s.refundedCents])).toEqual(payments.map((p) => [p.id, p.captured_cents - p.refunded_cents]));
          expect(sums.map((s) => [s.capturedCents, s.refundedCents])).toEqual(payments.map((p) => [p.captured_cents, p.refunded_cents]));
        }
        // Day by day: the report against the ledger's entries and the installments' fees, bucketed here.
        const report = await wholeReport(acc, zone, end);
        const entries = await q<{ kind: string; amount_cents: number; occurred_at: Date }>('SELECT kind, amount_cents, occurred_at FROM ledger_entries WHERE account_id = $1', [
          acc,
        ]);
        const fees = await q<{ fees_cents: number; paid_at: Date }>("SELECT fees_cents, paid_at FROM installments WHERE account_id = $1 AND state = 'paid'", [acc]);
        const day = (d: Date) => zonedDay(d, zone);
        const of = (kind: string) =>
          sumBy(
            entries.filter((e) => e.kind === kind),
            (e) => day(e.occurred_at),
            (e) => e.amount_cents,
          );
        const reported = (v: (r: DailyReportRow) => number) =>
          sumBy(
            report,
            (r) => r.day,
            (r) => v(r),
          );
        expect(reported((r) => r.capturedCents)).toEqual(of('capture'));
        expect(reported((r) => r.refundedCents)).toEqual(of('refund'));
        expect(reported((r) => r.feesCents)).toEqual(
          sumBy(
            fees,
            (f) => day(f.paid_at),
            (f) => f.fees_cents,
          ),
        );
        for (const r of report) expect(r.netCents).toBe(r.capturedCents - r.refundedCents - r.chargedBackCents);
        // Back mode: the money is the merchant's at its PSP, gross and payout are the net, no commission.
        for (const r of report) expect([r.grossCents, r.commissionCents, r.payoutCents]).toEqual([r.netCents, 0, r.netCents]);
        // In total: the report equals the payments' own totals.
        const [totals] = await q<{ captured: number; refunded: number }>(
          'SELECT COALESCE(sum(captured_cents), 0)::int AS captured, COALESCE(sum(refunded_cents), 0)::int AS refunded FROM payments WHERE account_id = $1',
          [acc],
        );
        expect([report.reduce((s, r) => s + r.capturedCents, 0), report.reduce((s, r) => s + r.refundedCents, 0)]).toEqual([totals!.captured, totals!.refunded]);
        // Every purchase was paid by its leader: one LEADER_PROCESSED each; as many SUCCESSFUL as purchases in it or past it.
        expect(report.reduce((s, r) => s + r.outcomes.LEADER_PROCESSED, 0)).toBe(purchases.length);
        const [moves] = await q<{ successful: number }>(
          "SELECT count(*)::int AS successful FROM purchase_events WHERE account_id = $1 AND to_state = 'SUCCESSFUL' AND from_state <> 'SUCCESSFUL'",
          [acc],
        );
        expect(report.reduce((s, r) => s + r.outcomes.SUCCESSFUL, 0)).toBe(moves!.successful);
        expect(new Set(report.map((r) => r.currency))).toEqual(new Set(['EUR']));
      }),
      { numRuns: 8, seed: 33 },
    );
  });

  it(
    "in transfer mode, gross − commission = payout on every row and, day by day, the payout is what the day's postings owe the merchant (its payout lines), the commission the offer's, not the net the operator holds",
    { timeout: 120_000 },
    async () => {
      const transfer = { bps: 175, fixedCents: 30 };
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 3 }), fc.constantFrom(...ZONES), async (steps, zone) => {
          const { shop, purchases, end } = await runFlow(steps, zone, { transfer });
          const acc = shop.accountId;
          const report = await wholeReport(acc, zone, end);
          expect(report.length).toBeGreaterThan(0);
          for (const r of report) {
            expect(r.grossCents - r.commissionCents, JSON.stringify(r)).toBe(r.payoutCents);
            for (const v of [r.grossCents, r.commissionCents, r.payoutCents]) expect(Number.isSafeInteger(v)).toBe(true);
          }
          const total = (v: (r: DailyReportRow) => number) => report.reduce((sum, r) => sum + v(r), 0);
          // Day by day against the merchant's postings, bucketed here (what the payout lines will carry).
          const postings = await q<{ book: string; amount_cents: string; occurred_at: Date }>(
            "SELECT book, amount_cents::text AS amount_cents, occurred_at FROM balance_postings WHERE account_id = $1 AND book IN ('merchant_payable', 'commission') AND kind NOT IN ('payout', 'payout_returned')",
            [acc],
          );
          const byDay = (book: string) =>
            sumBy(
              postings.filter((p) => p.book === book),
              (p) => zonedDay(p.occurred_at, zone),
              (p) => -Number(p.amount_cents),
            );
          const reported = (v: (r: DailyReportRow) => number) =>
            sumBy(
              report,
              (r) => r.day,
              (r) => v(r),
            );
          expect(reported((r) => r.payoutCents)).toEqual(byDay('merchant_payable'));
          expect(reported((r) => r.commissionCents)).toEqual(byDay('commission'));
          // In total: the payout is what the operator owes the merchant (no payout ran), the commission the offer's on each purchase.
          expect(total((r) => r.payoutCents)).toBe(owedCents(await bookBalances(app.services.db, acc, 'EUR')));
          const amounts = await q<{ amount_cents: number }>('SELECT amount_cents FROM purchases WHERE account_id = $1 AND id = ANY($2::uuid[])', [acc, purchases]);
          expect(total((r) => r.commissionCents)).toBe(amounts.reduce((sum, p) => sum + commissionOf(p.amount_cents, transfer.bps, transfer.fixedCents), 0));
          // The net is the cash the operator's collecting account kept: not the payout (the commission at least lies between them).
          expect(total((r) => r.netCents)).not.toBe(total((r) => r.payoutCents));
        }),
        { numRuns: 4, seed: 61 },
      );
    },
  );

  it("a PSP's answer never lowers a payment's refunded total, so the row and the ledger keep agreeing (a payment charged back before this release, recorded then as refunded, read again as captured)", async () => {
    const { shop, purchases } = await runFlow([{ type: 'SHARED', amount: 10_000, collect: 0, refundPerMille: 400, hours: 0 }], 'UTC');
    const acc = shop.accountId;
    const [{ id }] = (await q<{ id: string }>("SELECT id FROM payments WHERE purchase_id = $1 AND status = 'refunded'", [purchases[0]])) as [{ id: string }];
    const before = (await findPayment(app.services.db, acc, id))!;
    expect(before.refunded_cents).toBeGreaterThan(0);
    const agree = async () => {
      const row = (await findPayment(app.services.db, acc, id))!;
      const sums = (await ledgerSumsOfPurchase(app.services.db, acc, purchases[0]!)).find((x) => x.paymentId === id)!;
      expect([sums.capturedCents, sums.refundedCents]).toEqual([Number(row.captured_cents), Number(row.refunded_cents)]);
      return row;
    };
    const answer = { transactionId: before.psp_transaction_id!, amountCents: Number(before.captured_cents), capturedCents: Number(before.captured_cents) };
    // Read again as captured, refunded 0 (a chargeback is no refund any more): nothing to record.
    expect(await recordResult(app.services.db, before, { ...answer, status: 'captured', refundedCents: 0 }, 'REFUNDED', app.services.clock.now())).toBe(false);
    expect(await agree()).toMatchObject({ status: 'refunded', refunded_cents: before.refunded_cents });
    // Less refunded than recorded (a refund failed at the PSP after it answered): kept, for reconciliation to show.
    expect(await recordResult(app.services.db, before, { ...answer, status: 'refunded', refundedCents: 1 }, 'REFUNDED', app.services.clock.now())).toBe(false);
    expect(await agree()).toMatchObject({ status: 'refunded', refunded_cents: before.refunded_cents });
    // More refunded: recorded, and in the ledger by the difference.
    const more = Number(before.refunded_cents) + 100;
    expect(await recordResult(app.services.db, before, { ...answer, status: 'refunded', refundedCents: more }, 'REFUNDED', app.services.clock.now())).toBe(true);
    expect(await agree()).toMatchObject({ status: 'refunded', refunded_cents: more });
  });

  it('a lost chargeback is appended once per dispute, by its differences when its amount moves, counts as charged back and lowers the net', async () => {
    const { shop, purchases, end } = await runFlow([{ type: 'SHARED', amount: 10_000, collect: 0, refundPerMille: 0, hours: 0 }], 'UTC');
    const acc = shop.accountId;
    const [payment] = await q<{ id: string; captured_cents: number }>('SELECT id, captured_cents FROM payments WHERE purchase_id = $1 AND captured_cents > 0', [purchases[0]]);
    const disputeId = newUuid();
    const now = app.services.clock.now();
    await app.services.db.query(
      `INSERT INTO disputes (id, account_id, purchase_id, payment_id, psp, psp_dispute_id, kind, state, amount_cents, currency, opened_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'sandbox', $5, 'chargeback', 'lost', 2500, 'EUR', $6, $6, $6)`,
      [disputeId, acc, purchases[0], payment!.id, `dp_${disputeId}`, now],
    );
    const entry = { accountId: acc, paymentId: payment!.id, disputeId, chargedBackCents: 2_500, occurredAt: now };
    expect(await bookDisputeLedger(app.services.db, entry)).toEqual({ kind: 'chargeback', amountCents: 2_500 });
    expect(await bookDisputeLedger(app.services.db, entry)).toBeUndefined(); // the notification told twice
    expect(await bookDisputeLedger(app.services.db, { ...entry, accountId: (await newShop(app)).accountId })).toBeUndefined(); // another account's payment
    const report = await wholeReport(acc, 'UTC', end);
    expect(report.reduce((s, r) => s + r.chargedBackCents, 0)).toBe(2_500);
    expect(report.reduce((s, r) => s + r.netCents, 0)).toBe(payment!.captured_cents - 2_500);
    // A second partial chargeback of the same dispute: the difference, as an adjustment.
    expect(await bookDisputeLedger(app.services.db, { ...entry, chargedBackCents: 3_000 })).toEqual({ kind: 'chargeback', amountCents: 500 });
    expect((await wholeReport(acc, 'UTC', end)).reduce((s, r) => s + r.chargedBackCents, 0)).toBe(3_000);
    expect(await bookDisputeLedger(app.services.db, { ...entry, chargedBackCents: 0 })).toEqual({ kind: 'chargeback_reversal', amountCents: 3_000 });
    const after = await wholeReport(acc, 'UTC', end);
    expect(after.reduce((s, r) => s + r.chargedBackCents, 0)).toBe(0);
    expect((await ledgerSumsOfPurchase(app.services.db, acc, purchases[0]!))[0]!.chargedBackCents).toBe(0);
  });
});

describe('the back office', () => {
  let shop: Shop;
  let range: string;
  beforeAll(async () => {
    const flow = await runFlow(
      [
        { type: 'INSTALLMENTS', amount: 30_000, collect: 1, refundPerMille: 200, hours: 0 },
        { type: 'SHARED', amount: 12_000, collect: 0, refundPerMille: 0, hours: 30 },
        { type: 'DEFERRED', amount: 9_000, collect: 1, refundPerMille: 0, hours: 30 },
      ],
      'Europe/Paris',
      { pspAccount: 'Main sandbox account' },
    );
    shop = flow.shop;
    await cheapDashboardPassword(app, { ...shop, offer: () => '' });
    const from = addDays(zonedDay(app.services.clock.now(), 'Europe/Paris'), -1);
    range = `from=${from}&to=${addDays(zonedDay(flow.end, 'Europe/Paris'), 1)}`;
  });
  const get = (url: string, auth = shop.dashboard) => app.server.inject({ method: 'GET', url, headers: { authorization: auth } });

  it('the JSON pages, cursor after cursor, hold the rows of the whole report and state the time zone; the CSV has the same rows', async () => {
    const whole = (await get(`/api/backoffice/reports/daily?${range}`)).json();
    expect(whole).toMatchObject({ time_zone: 'Europe/Paris', has_more: false });
    expect(whole.data.length).toBeGreaterThanOrEqual(3);
    expect(whole.data[0]).toMatchObject({ psp: 'sandbox', psp_account_id: null, currency: 'EUR' });
    // The SHARED purchase ran on the merchant's PSP account: its own rows, with its id and label.
    type Json = { psp_account_id: string | null; psp_account_label: string | null; captured_cents: number; purchases: { successful: number } };
    const onAccount = (whole.data as Json[]).filter((r) => r.psp_account_id !== null);
    expect(onAccount.length).toBeGreaterThanOrEqual(1);
    expect(onAccount[0]).toMatchObject({ psp_account_id: expect.stringMatching(/^psa_/), psp_account_label: 'Main sandbox account', captured_cents: 12_000 });
    expect(onAccount.reduce((n, r) => n + r.purchases.successful, 0)).toBe(1);
    const paged: unknown[] = [];
    let cursor = '';
    for (let i = 0; i < 20; i++) {
      const page = (await get(`/api/backoffice/reports/daily?${range}&limit=1${cursor}`)).json();
      paged.push(...page.data);
      if (!page.has_more) break;
      cursor = `&cursor=${page.next_cursor}`;
    }
    expect(paged).toEqual(whole.data);
    const csv = await get(`/api/backoffice/reports/daily.csv?${range}`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = csv.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'day,time_zone,psp,psp_account_id,psp_account_label,currency,captured_cents,refunded_cents,charged_back_cents,fees_cents,net_cents,purchases_leader_processed,purchases_successful,purchases_failed,purchases_cancelled,purchases_aborted,purchases_refunded,gross_cents,commission_cents,payout_cents',
    );
    type Row = { day: string; captured_cents: number; net_cents: number; gross_cents: number; commission_cents: number; payout_cents: number };
    expect(lines.slice(1).map((l) => l.split(',').filter((_, i) => [0, 6, 10, 17, 18, 19].includes(i)))).toEqual(
      (whole.data as Row[]).map((r) => [r.day, String(r.captured_cents), String(r.net_cents), String(r.gross_cents), String(r.commission_cents), String(r.payout_cents)]),
    );
    // Back mode: the money is the merchant's at its PSP, gross and payout are the net, no commission.
    for (const r of whole.data as Row[]) expect([r.gross_cents, r.commission_cents, r.payout_cents]).toEqual([r.net_cents, 0, r.net_cents]);
  });

  it('refuses a bad period with 400 naming the field', async () => {
    const cases: [string, string][] = [
      ['from=2026-02-30&to=2026-03-01', 'from'],
      ['from=2026-03-01&to=2026-3-2', 'to'],
      ['from=2026-03-02&to=2026-03-01', 'to'],
      ['from=2025-01-01&to=2026-01-02', 'to'],
      ['to=2026-01-02', 'from'],
      ['from=9999-12-31&to=9999-12-31', 'from'],
      ['from=1969-12-31&to=1970-01-01', 'from'],
    ];
    for (const [query, field] of cases) {
      for (const path of ['daily', 'daily.csv']) {
        const res = await get(`/api/backoffice/reports/${path}?${query}`);
        expect(res.statusCode, `${path}?${query}`).toBe(400);
        expect(res.json().error?.message ?? res.body).toContain(field);
      }
    }
    expect((await get('/api/backoffice/reports/daily?from=2025-01-01&to=2025-12-31')).statusCode).toBe(200); // 365 days
    expect((await get('/api/backoffice/reports/daily?from=2024-01-01&to=2024-12-31')).statusCode).toBe(200); // 366 days
    expect((await get(`/api/backoffice/reports/daily?${range}&cursor=nope`)).statusCode).toBe(400);
  });

  it('another account sees none of the rows; a support user is refused', async () => {
    const other = await newShop(app);
    expect((await get(`/api/backoffice/reports/daily?${range}`, other.dashboard)).json().data).toEqual([]);
    const support = await addDashboardUser(app, shop.accountId, 'support');
    const basic = `Basic ${Buffer.from(`${support.email}:${support.password}`).toString('base64')}`;
    expect((await get(`/api/backoffice/reports/daily?${range}`, basic)).statusCode).toBe(403);
    const s = await signIn(app, support);
    expect((await app.server.inject({ method: 'GET', url: '/dashboard/reports', headers: { cookie: s.cookie } })).statusCode).toBe(403);
  });

  it('the page draws the net per day with a title and lists the rows, in English and French; a bad period is a 400 saying which field', async () => {
    const s = await signIn(app, shop.merchant);
    const page = await app.server.inject({ method: 'GET', url: `/dashboard/reports?${range}`, headers: { cookie: s.cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<a href="/dashboard/reports">Reports</a>');
    expect(page.body).toMatch(/<svg class="chart" role="img" aria-labelledby="chart-title-0"[^>]*>\s*<title id="chart-title-0">Net per day in EUR/);
    expect(page.body).toContain('Days of Europe/Paris');
    expect(page.body).toContain(`href="/api/backoffice/reports/daily.csv?${range.replace('&', '&amp;')}"`);
    expect(page.body.match(/<tbody>[\s\S]*<\/tbody>/)?.[0].match(/<tr>/g)?.length).toBeGreaterThanOrEqual(3);
    expect(page.body).toContain('<th scope="col" class="num">Gross</th><th scope="col" class="num">Commission</th><th scope="col" class="num">Payout</th>');
    expect(page.body).toContain('In transfer mode that account is the operator’s');
    const fr = await app.server.inject({ method: 'GET', url: `/dashboard/reports?${range}&lang=fr`, headers: { cookie: s.cookie } });
    expect(fr.body).toContain('Rapport quotidien');
    expect(fr.body).toContain('Net par jour en EUR');
    expect(fr.body).toContain('<th scope="col" class="num">Brut</th><th scope="col" class="num">Commission</th><th scope="col" class="num">Versement</th>');
    const bad = await app.server.inject({ method: 'GET', url: '/dashboard/reports?from=2026-01-05&to=2026-01-01', headers: { cookie: s.cookie } });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('query parameter to must be on or after from');
    const byDefault = await app.server.inject({ method: 'GET', url: '/dashboard/reports', headers: { cookie: s.cookie } });
    expect(byDefault.statusCode).toBe(200);
  });
});

describe('migration 037', () => {
  it("backfills one capture and one refund entry per payment recorded before it, at the payment's last change, adding up to its totals", async () => {
    const text = readFileSync(new URL('../../src/db/migrations/037_ledger_entries.sql', import.meta.url), 'utf8');
    const select = /INSERT INTO ledger_entries \([^)]*\)\s*(SELECT[\s\S]*?);\s*$/.exec(text)?.[1];
    expect(select).toBeDefined();
    const { shop } = await runFlow(
      [
        { type: 'INSTALLMENTS', amount: 20_000, collect: 2, refundPerMille: 500, hours: 0 },
        { type: 'SHARED', amount: 8_000, collect: 0, refundPerMille: 1000, hours: 5 },
      ],
      'UTC',
    );
    // The migration's own statement, read only (the ledger already has these payments' entries).
    const backfill = await q<{ payment_id: string; kind: string; amount_cents: number; occurred_at: Date }>(
      `SELECT b.id AS payment_id, b.kind, b.amount_cents, b.updated_at AS occurred_at FROM (${select!}) AS b WHERE b.account_id = $1 ORDER BY b.id, b.kind`,
      [shop.accountId],
    );
    const payments = await q<{ id: string; captured_cents: number; refunded_cents: number; updated_at: Date }>(
      'SELECT id, captured_cents, refunded_cents, updated_at FROM payments WHERE account_id = $1 ORDER BY id',
      [shop.accountId],
    );
    const expected = payments.flatMap((p) =>
      [
        { payment_id: p.id, kind: 'capture', amount_cents: p.captured_cents, occurred_at: p.updated_at },
        { payment_id: p.id, kind: 'refund', amount_cents: p.refunded_cents, occurred_at: p.updated_at },
      ].filter((e) => e.amount_cents > 0),
    );
    expect(backfill).toEqual(expected);
    expect(backfill.some((e) => e.kind === 'refund')).toBe(true);
  });
});
