/**
 * The merchant's balance in transfer mode (docs/money-operations.md#the-merchants-balance), over
 * random flows on the real app and the sandbox PSP: pots (with friends), 3x and deferred purchases
 * in transfer mode and a 4x in back mode, paid (some with the sandbox's chargeback card), friends
 * paying, the service clock moving (installments collected, pots settled, deferred payments
 * captured, dispute notices delivered), partial and full refunds, cancels, chargebacks lost, won or
 * reversed, and the merchant's payouts: the daily job as the clock moves, and runs of the merchant's
 * yesterday once, twice, two at once, or dying before their commit and run again
 * (docs/money-operations.md#payouts). After every step, per merchant and currency:
 * (a) the cash book is what the ledger (`ledger_entries`, an independent record) says the
 *     operator's PSP holds for the merchant's transfer-mode purchases;
 * (b) Σ collected − Σ refunded − Σ charged back + receivable = Σ paid out + owed + commission + fees;
 * (c) per purchase, what the merchant is owed is its amount less the commission less what it gave
 *     up, the merchant bearing up to the amount (docs/money-operations.md#who-bears-what), for a
 *     validated purchase, 0 otherwise; what its shopper owes is what its plan still asks;
 * (d) what is owed is exactly what no payout holds yet, Σ payouts not returned is Σ paid out, and no
 *     posting is in two payouts: nothing paid twice, nothing lost;
 * and every sandbox dispute notice told again books nothing more. A back-mode purchase books nothing.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commissionOf } from '../../src/domain/balance-books.ts';
import { bookBalances, owedCents } from '../../src/payments/balance-repository.ts';
import { purchaseBooks } from '../../src/payments/transfer-booking-repository.ts';
import { cancelPurchase } from '../../src/use-cases/checkout/cancel-purchase.ts';
import { applyDisputeNotice, deliverSandboxDisputeNotice } from '../../src/use-cases/disputes/dispute.ts';
import { setOfferMode } from '../../src/use-cases/merchant-setup/offer-mode.ts';
import { refundPurchase } from '../../src/use-cases/refunds/refund-purchase.ts';
import { addDays } from '../../src/domain/dates.ts';
import { zonedDay } from '../../src/i18n/format.ts';
import { setBankDetails } from '../../src/use-cases/payouts/payout-bank-details.ts';
import { payoutOfDay, type PayoutDeps } from '../../src/use-cases/payouts/payouts.ts';
import { BANKS, crashingAtJournal, SILENT, sumsOf } from '../payouts/helpers.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { onPostgres, startTestApp, type TestApp } from '../helpers/app.ts';

const OK = '4242424242424242';
const CHARGEBACK = '4000000000000259';

let app: TestApp;
beforeAll(async () => {
  // Jobs run when a step runs them (the clock moved, notices delivered), never behind its back.
  app = await startTestApp({ jobPollIntervalMs: 0 });
});
afterAll(() => app?.close());

/** Random flows per run of the file: few, so that it stays well under a minute on each database. */
const RUNS = Number(process.env.TRANSFER_RUNS ?? 6);
const q = async <T>(sql: string, params: unknown[]) => (await app.services.db.query<T>(sql, params)).rows;
const actor = { label: 'test' };
const deps = () => app.services.payments;

type Kind = 'pot' | '3x' | 'deferred' | 'back4x';
type Step =
  | { op: 'buy'; kind: Kind; amountPerMille: number; friends: number; chargeback: boolean }
  | { op: 'pledge'; p: number; f: number }
  | { op: 'time'; hours: number }
  | { op: 'refund'; p: number; perMille: number | null }
  | { op: 'cancel'; p: number }
  | { op: 'decide'; p: number; outcome: 'won' | 'lost' | 'reversed' }
  | { op: 'payout'; repeat: 'once' | 'twice' | 'concurrent' | 'crash' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('buy' as const),
      kind: fc.constantFrom<Kind>('pot', '3x', 'deferred', 'back4x'),
      amountPerMille: fc.integer({ min: 0, max: 1000 }),
      friends: fc.integer({ min: 0, max: 2 }),
      chargeback: fc.integer({ min: 0, max: 2 }).map((x) => x === 0),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('pledge' as const), p: fc.nat(), f: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('time' as const), hours: fc.constantFrom(1, 49, 24 * 31) }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('refund' as const), p: fc.nat(), perMille: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: null }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('cancel' as const), p: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('decide' as const), p: fc.nat(), outcome: fc.constantFrom('won' as const, 'lost' as const, 'reversed' as const) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('payout' as const), repeat: fc.constantFrom('once' as const, 'twice' as const, 'concurrent' as const, 'crash' as const) }) },
);

interface Bought {
  id: string;
  kind: Kind;
  pledges: string[];
}

/** The amount a purchase of `kind` gets: within its offer's limits. */
function amountOf(kind: Kind, perMille: number): number {
  const [min, max] = kind === '3x' || kind === 'back4x' ? [5_000, 120_000] : [1_000, 60_000];
  return min + Math.floor(((max - min) * perMille) / 1000);
}

async function runStep(m: Caller, bought: Bought[], s: Step): Promise<void> {
  const pick = (n: number) => (bought.length === 0 ? undefined : bought[n % bought.length]);
  /** The `n`th of the purchases in one of `states` (a refund or a cancel then has something to act on). */
  const pickIn = async (n: number, states: string[]) => {
    const ids = new Set((await q<{ id: string }>('SELECT id FROM purchases WHERE account_id = $1 AND state = ANY($2::text[])', [m.accountId, states])).map((r) => r.id));
    const candidates = bought.filter((b) => ids.has(b.id));
    return candidates.length === 0 ? undefined : candidates[n % candidates.length];
  };
  switch (s.op) {
    case 'buy': {
      const offer = { pot: m.offer('SHARED'), '3x': m.offer('INSTALLMENTS', 3), deferred: m.offer('DEFERRED'), back4x: m.offer('INSTALLMENTS', 4) }[s.kind];
      const amount = amountOf(s.kind, s.amountPerMille);
      const created = await m.post('/api/merchants/v1/purchases', minimalPurchase({ amount, merchant_uid: offer, client: { email: `shopper${bought.length}@example.com` } }));
      expect(created.statusCode, created.body).toBe(201);
      const id = (created.json() as { id: string }).id;
      const friends = s.kind === 'pot' ? Array.from({ length: s.friends }, (_, i) => ({ email: `friend${i}@example.com`, amount_cents: Math.floor(amount / 4) })) : [];
      const paid = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: s.chargeback ? CHARGEBACK : OK, ...(friends.length ? { pledgers: friends } : {}) });
      expect(paid.statusCode, paid.body).toBe(200);
      bought.push({ id, kind: s.kind, pledges: ((paid.json() as { pledges?: { id: string }[] }).pledges ?? []).map((p) => p.id) });
      return;
    }
    case 'pledge': {
      const b = pick(s.p);
      if (!b || b.pledges.length === 0) return;
      const res = await m.post(`/api/sandbox/pledges/${b.pledges[s.f % b.pledges.length]}/pay`, { card_number: OK });
      expect([200, 409], res.body).toContain(res.statusCode);
      return;
    }
    case 'time': {
      const res = await m.post('/api/sandbox/clock', { advance_seconds: s.hours * 3600 });
      expect(res.statusCode, res.body).toBe(200);
      return;
    }
    case 'refund': {
      const b = await pickIn(s.p, ['LEADER_PROCESSED', 'SUCCESSFUL']);
      if (!b) return;
      const [p] = await q<{ amount_cents: number }>('SELECT amount_cents FROM purchases WHERE id = $1', [b.id]);
      const amountCents = s.perMille === null ? undefined : Math.max(1, Math.floor((p!.amount_cents * s.perMille) / 1000));
      const r = await refundPurchase(deps(), { accountId: m.accountId, purchaseId: b.id, actor, ...(amountCents !== undefined ? { amountCents } : {}) });
      expect(['created', 'invalid', 'charge_disputed']).toContain(r.kind);
      return;
    }
    case 'cancel': {
      const b = await pickIn(s.p, ['CREATED', 'LEADER_PROCESSED']);
      if (!b) return;
      const r = await cancelPurchase(deps(), { accountId: m.accountId, purchaseId: b.id, actor });
      expect(['cancelled', 'captured', 'not_cancellable']).toContain(r.kind);
      return;
    }
    case 'payout': {
      // The merchant's yesterday paid by hand, as `chipin payout run` does, beside the daily job.
      const [account] = await q<{ time_zone: string }>('SELECT time_zone FROM accounts WHERE id = $1', [m.accountId]);
      const pd: PayoutDeps = { db: app.services.db, clock: app.services.clock, logger: SILENT };
      const ask = { accountId: m.accountId, currency: 'EUR', day: addDays(zonedDay(app.services.clock.now(), account!.time_zone), -1), timeZone: account!.time_zone };
      if (s.repeat === 'crash') {
        // Dies at its journal when it has a payout to make; otherwise it wrote nothing anyway.
        const crashed = await payoutOfDay({ ...pd, db: crashingAtJournal(app.services.db) }, ask).catch((err: Error) => err.message);
        expect(typeof crashed === 'string' ? crashed : crashed.kind).not.toBe('created');
      }
      const first = s.repeat === 'concurrent' ? await Promise.all([payoutOfDay(pd, ask), payoutOfDay(pd, ask)]) : [await payoutOfDay(pd, ask)];
      if (s.repeat === 'twice') first.push(await payoutOfDay(pd, ask));
      expect(first.filter((o) => o.kind === 'created').length, JSON.stringify(first)).toBeLessThanOrEqual(1);
      return;
    }
    case 'decide': {
      // One of the merchant's chargebacks: an open one is won or lost; a lost one reversed (or, none
      // lost yet, an open one lost, for a later reversal to find).
      const chargebacks = async (state: string) =>
        q<{ psp_dispute_id: string; transaction_id: string; amount_cents: number }>(
          `SELECT d.psp_dispute_id, p.psp_transaction_id AS transaction_id, d.amount_cents FROM disputes d JOIN payments p ON p.id = d.payment_id
            WHERE d.account_id = $1 AND d.kind = 'chargeback' AND d.state = $2 ORDER BY d.created_at, d.id`,
          [m.accountId, state],
        );
      const lost = s.outcome === 'reversed' ? await chargebacks('lost') : [];
      if (lost.length > 0) {
        const d = lost[s.p % lost.length]!;
        // The bank reverses a lost chargeback, as Adyen's CHARGEBACK_REVERSED tells it (the sandbox has no reversal of its own).
        await applyDisputeNotice(
          deps(),
          { accountId: m.accountId, pspAccountId: null },
          { pspDisputeId: d.psp_dispute_id, transactionId: d.transaction_id, kind: 'chargeback', status: 'won', reason: 'fraudulent', amountCents: d.amount_cents },
        );
        return;
      }
      const open = await chargebacks('open');
      const d = open[s.p % Math.max(1, open.length)];
      if (!d) return;
      await app.services.psps.sandbox.decideDispute(d.psp_dispute_id, s.outcome === 'won' ? 'won' : 'lost');
      await deliverSandboxDisputeNotice(deps(), app.services.psps.sandbox, d.psp_dispute_id);
      return;
    }
  }
}

/** Σ over the ledger entries of the merchant's purchases in `mode`, by kind. */
async function ledgerSums(accountId: string, mode: 'transfer' | 'back', purchaseId?: string): Promise<{ captured: number; refunded: number; chargedBack: number }> {
  const [r] = await q<{ captured: number; refunded: number; charged_back: number }>(
    `SELECT COALESCE(sum(l.amount_cents) FILTER (WHERE l.kind = 'capture'), 0)::bigint AS captured,
            COALESCE(sum(l.amount_cents) FILTER (WHERE l.kind = 'refund'), 0)::bigint AS refunded,
            (COALESCE(sum(l.amount_cents) FILTER (WHERE l.kind = 'chargeback'), 0) - COALESCE(sum(l.amount_cents) FILTER (WHERE l.kind = 'chargeback_reversal'), 0))::bigint AS charged_back
       FROM ledger_entries l JOIN purchases p ON p.account_id = l.account_id AND p.id = l.purchase_id
      WHERE l.account_id = $1 AND p.payment_mode = $2 AND ($3::uuid IS NULL OR l.purchase_id = $3::uuid)`,
    [accountId, mode, purchaseId ?? null],
  );
  return { captured: Number(r!.captured), refunded: Number(r!.refunded), chargedBack: Number(r!.charged_back) };
}

/** A sum as the books show it: 0, never -0. */
const n = (x: number) => (x === 0 ? 0 : x);

/** The checks of this file's header, on the merchant as it stands. */
async function checkBalance(m: Caller, bought: Bought[], commission: { bps: number; fixed: number }): Promise<void> {
  const db = app.services.db;
  const books = await bookBalances(db, m.accountId, 'EUR');
  const ledger = await ledgerSums(m.accountId, 'transfer');
  // (a) the cash book against the ledger.
  expect(books.psp_cash, 'cash book = Σ ledger').toBe(n(ledger.captured - ledger.refunded - ledger.chargedBack));
  // (b) the identity.
  expect(n(ledger.captured - ledger.refunded - ledger.chargedBack + books.shopper_receivable), 'the identity').toBe(
    n(-books.paid_out + owedCents(books) - books.commission - books.shopper_fees),
  );
  // (c) per purchase.
  for (const b of bought) {
    const mine = await purchaseBooks(db, m.accountId, b.id);
    if (b.kind === 'back4x') {
      expect(
        Object.values(mine).every((v) => v === 0),
        'a back-mode purchase books nothing',
      ).toBe(true);
      continue;
    }
    const [p] = await q<{ amount_cents: number; state: string; validated: boolean; fees: number; allocated: number; scheduled: number }>(
      `SELECT p.amount_cents, p.state,
              EXISTS (SELECT 1 FROM purchase_events e WHERE e.purchase_id = p.id AND e.type = 'purchase.leader_processed') AS validated,
              COALESCE((SELECT fees_cents FROM installments i WHERE i.purchase_id = p.id AND i.index = 0), 0)::bigint AS fees,
              COALESCE((SELECT sum(amount_cents) FROM refund_allocations a WHERE a.purchase_id = p.id AND a.state = 'succeeded'), 0)::bigint AS allocated,
              COALESCE((SELECT sum(amount_cents + fees_cents) FROM installments i WHERE i.purchase_id = p.id AND i.state = 'scheduled'), 0)::bigint AS scheduled
         FROM purchases p WHERE p.account_id = $1 AND p.id = $2`,
      [m.accountId, b.id],
    );
    const amount = Number(p!.amount_cents);
    const cash = await ledgerSums(m.accountId, 'transfer', b.id);
    const held = cash.captured - cash.refunded - cash.chargedBack;
    expect(mine.psp_cash, 'its cash book').toBe(n(held));
    if (!p!.validated) {
      expect(mine, 'never validated: its cash movements only').toMatchObject({ merchant_payable: 0, commission: 0, shopper_fees: 0, shopper_receivable: n(-held) });
      continue;
    }
    const fees = b.kind === '3x' ? Number(p!.fees) : 0;
    const c = commissionOf(amount, commission.bps, commission.fixed);
    const ended = p!.state === 'CANCELLED' || p!.state === 'REFUNDED';
    // What it gave up: the merchant's refunds (money paid back, installments lowered) and the bank's
    // chargebacks; once CANCELLED or REFUNDED, everything its shopper does not hold any more.
    const givenUp = ended ? amount + fees - held : Number(p!.allocated) + cash.chargedBack;
    expect(n(owedCents(mine)), `owed for a ${b.kind} ${p!.state}`).toBe(n(amount - c - Math.min(amount, givenUp)));
    expect(mine.commission).toBe(n(-c));
    expect(mine.shopper_fees).toBe(n(-(fees - Math.max(0, givenUp - amount))));
    if (ended || p!.state === 'SUCCESSFUL') expect(mine.shopper_receivable, `nothing owed by the shopper of a ${b.kind} ${p!.state}`).toBe(0);
    if (p!.state === 'LEADER_PROCESSED' && b.kind !== 'pot') expect(mine.shopper_receivable, 'what its plan still asks').toBe(Number(p!.scheduled));
  }
  // Every sandbox dispute notice told again books nothing more (not of a chargeback reversed by this
  // test's own notice: the sandbox still tells it lost, which would turn it again).
  const disputes = await q<{ psp_dispute_id: string }>("SELECT psp_dispute_id FROM disputes WHERE account_id = $1 AND psp = 'sandbox' AND state IN ('open', 'lost')", [
    m.accountId,
  ]);
  const before = await q<{ n: number }>('SELECT count(*)::int AS n FROM balance_postings WHERE account_id = $1', [m.accountId]);
  for (const d of disputes.slice(0, 2)) await deliverSandboxDisputeNotice(deps(), app.services.psps.sandbox, d.psp_dispute_id);
  expect(await q<{ n: number }>('SELECT count(*)::int AS n FROM balance_postings WHERE account_id = $1', [m.accountId])).toEqual(before);
  // (d) the payouts.
  const sums = await sumsOf(db, m.accountId, 'EUR');
  expect(sums.unpaid, 'owed = what no payout holds').toBe(sums.owed);
  expect(sums.payoutsNotReturned, 'Σ payouts = Σ paid out').toBe(sums.paidOut);
  expect(sums.doubled, 'no posting in two payouts').toBe(0);
  for (const p of sums.payouts) expect(p.amount, 'a payout is the sum of its lines').toBe(p.linesSum);
}

describe(`the merchant's balance in transfer mode (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  // TRANSFER_RUNS=60 for a deeper local run (its timeout grows with it).
  it(
    'after every step of random flows: the cash book is the ledger, the identity holds, each purchase owes and is owed what it should, replays book once',
    { timeout: RUNS * 10_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(step, { minLength: 3, maxLength: 10 }),
          fc.record({ bps: fc.integer({ min: 0, max: 1_000 }), fixed: fc.integer({ min: 0, max: 200 }) }),
          async (steps, commission) => {
            const m = await caller(app);
            for (const offer of [m.offer('SHARED'), m.offer('INSTALLMENTS', 3), m.offer('DEFERRED')]) {
              const set = await setOfferMode(app.services.pspAccounts, offer, {
                mode: 'transfer',
                pspAccountId: null,
                commissionBps: commission.bps,
                commissionFixedCents: commission.fixed,
              });
              expect(set.kind).toBe('ok');
            }
            app.services.offers.forget(m.accountId);
            // With bank details, the daily job pays the merchant as the clock moves.
            await setBankDetails({ db: app.services.db, box: app.services.box, clock: app.services.clock }, m.accountId, { label: 'test' }, BANKS[0]!);
            const bought: Bought[] = [];
            for (const s of steps) {
              await runStep(m, bought, s);
              // What fell due meanwhile (the sandbox's dispute notices) is delivered before the check.
              while ((await app.services.jobs.runDue()) > 0);
              await checkBalance(m, bought, commission);
            }
          },
        ),
        { numRuns: RUNS },
      );
    },
  );
});
