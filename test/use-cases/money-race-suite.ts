/**
 * The randomized race suite of docs/money-operations.md#one-money-operation-at-a-time, shared by
 * the in-process run (test/use-cases/money-race.test.ts, both databases) and the run on two
 * `chipin serve` processes (test/process/money-race.test.ts, PostgreSQL): purchases of every kind
 * paid by their leader, then rounds of conflicting operations sent at the same moment on the same
 * purchase through the HTTP API (refunds, cancels, `trigger_capture`, pledgers paying, disputes
 * lost or won, the sandbox clock moved across due dates, deadlines and hold renewals, and the
 * leader in the shopper space, signed in through the sandbox's sign-in: paying a refused
 * installment now, repaying the rest early, changing the card), then the clock moved past every
 * due date. Any payment may be charged back (the sandbox's chargeback card at checkout, on the
 * pledgers' cards, and as the card the plan is collected, paid now or repaid with). The outcome is
 * read at the sandbox PSP's own records; every dispute the sandbox opened must be recorded, and
 * its merchant told, within the few minutes of the clock moved after each round.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { signHs256 } from '../../src/delivery/jwt.ts';
import { FULL_RUN } from '../helpers/full-run.ts';

/** What the suite needs of the service: HTTP through one of its processes, and SQL reads. */
export interface RaceTarget {
  processes: number;
  call(process: number, method: 'GET' | 'POST', path: string, body?: object, headers?: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }>;
  /** A browser's request (the shopper space): no token, the body as given, redirects not followed; `set-cookie` as a list. */
  browse(process: number, request: BrowserRequest): Promise<BrowserResponse>;
  query<T>(sql: string, params: unknown[]): Promise<T[]>;
  offers: { merchant_uid: string; type: string; installments: number; secret: string }[];
}

export interface BrowserRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  /** A form post's urlencoded fields. */
  body?: string;
}
export interface BrowserResponse {
  status: number;
  location?: string;
  setCookie: string[];
  body: string;
}

const DAY_S = 86_400;
/**
 * How far the clock is moved after each round before the disputes are checked (in two moves): a
 * dispute is recorded when its notice comes, or at the latest at the next run of its retry a few
 * seconds later (docs/money-operations.md#refunds-and-disputes).
 */
const DISPUTE_GRACE_S = 300;
type Plan = 'pot' | '3x' | '4x' | 'deferred';
/** The sandbox's test cards the suite pays with: one that opens a chargeback once captured, one that refuses charges without the shopper. */
const CARD_NUMBERS = { ok: '4242424242424242', chargeback: '4000000000000259', refuses_off_session: '4000000000000341' } as const;
type Card = keyof typeof CARD_NUMBERS;
type Op =
  | { kind: 'refund'; share: number | 'all' }
  | { kind: 'cancel' }
  | { kind: 'trigger_capture' }
  | { kind: 'clock'; days: number }
  | { kind: 'pledge_pays' }
  | { kind: 'dispute'; outcome: 'lose' | 'win' }
  /** The leader in the shopper space: the rest of the plan repaid early, a refused installment paid now, the card changed. */
  | { kind: 'repay' }
  | { kind: 'pay_now' }
  | { kind: 'card_change'; card: Card };

export interface PurchaseScript {
  plan: Plan;
  amount: number;
  /** The leader's card: `chargeback` opens a chargeback on every capture (the sandbox's 4000 0000 0000 0259). */
  card: Card;
  /**
   * The pledgers' card. One per purchase: two pledgers' payments of one round may be the same
   * pledge's, and two cards for one pledge in the same millisecond collide on its attach key.
   */
  pledgeCard: 'ok' | 'chargeback';
  /** Each round's operations are sent at once. */
  rounds: Op[][];
}

const card = fc.constantFrom<Card>('ok', 'chargeback', 'refuses_off_session');
// The shopper space's operations (each a sign-in first, when the session has ended) weigh a third
// of the others: the suite's time stays near what it was before them.
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('refund' as const), share: fc.oneof(fc.constant('all' as const), fc.integer({ min: 1, max: 60 })) }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'cancel' as const }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'trigger_capture' as const }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('clock' as const), days: fc.integer({ min: 1, max: 40 }) }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'pledge_pays' as const }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('dispute' as const), outcome: fc.constantFrom('lose' as const, 'win' as const) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'repay' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'pay_now' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('card_change' as const), card: fc.constantFrom<Card>('ok', 'chargeback') }) },
);

export const purchaseScript: fc.Arbitrary<PurchaseScript> = fc.record({
  plan: fc.constantFrom<Plan>('pot', '3x', '4x', 'deferred'),
  amount: fc.integer({ min: 5_000, max: 120_000 }),
  card,
  pledgeCard: fc.constantFrom('ok' as const, 'chargeback' as const),
  rounds: fc.array(fc.array(op, { minLength: 2, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
});

/** Statuses a client may be answered with for a conflicting or pointless operation: never a 5xx. */
const ACCEPTABLE = new Set([200, 201, 202, 400, 402, 404, 406, 409]);

interface Running {
  id: string;
  script: PurchaseScript;
  owed: number;
  token: string;
  /** The leader's e-mail, which signs in to the shopper space. */
  email: string;
  /** The leader's signed-in browser, once signed in (the sign-ins of one purchase one after the other). */
  shopper?: Promise<Shopper | undefined>;
  /** Sign-in links already used: the next one is another. */
  links: Set<string>;
}

/** A browser signed in to the shopper space: its cookies and the session's form token. */
interface Shopper {
  cookies: Map<string, string>;
  csrf: string;
}

/** Runs of this module: the leaders' e-mails differ from one run to the next, so a shopper's space shows one purchase. */
let runs = 0;

function offerOf(target: RaceTarget, plan: Plan) {
  const [type, installments] = plan === 'pot' ? ['SHARED', 1] : plan === 'deferred' ? ['DEFERRED', 1] : ['INSTALLMENTS', plan === '3x' ? 3 : 4];
  return target.offers.find((o) => o.type === type && o.installments === installments)!;
}

/** Σ captured − Σ refunded at the sandbox PSP, over the transactions started with the purchase's keys. */
async function keptAtPsp(target: RaceTarget, purchaseId: string): Promise<number> {
  const rows = await target.query<{ net: number | null }>(
    `SELECT sum(t.captured_cents - t.refunded_cents)::int AS net FROM sandbox_psp_idempotency i
       JOIN payments p ON p.idempotency_key = i.idempotency_key
       JOIN sandbox_psp_transactions t ON t.id = i.result->>'transactionId'
     WHERE p.purchase_id = $1 AND i.operation IN ('authorize', 'charge_off_session')`,
    [purchaseId],
  );
  return Number(rows[0]?.net ?? 0);
}

/**
 * What the bank took back (lost chargebacks) on the purchase's transactions, at the sandbox PSP;
 * `unkept`: only on the friends' payments their pledge did not keep (given back).
 */
async function chargedBackAtPsp(target: RaceTarget, purchaseId: string, { unkept = false } = {}): Promise<number> {
  const rows = await target.query<{ n: number | null }>(
    `SELECT sum(t.charged_back_cents)::int AS n FROM sandbox_psp_idempotency i
       JOIN payments p ON p.idempotency_key = i.idempotency_key
       JOIN sandbox_psp_transactions t ON t.id = i.result->>'transactionId'
     WHERE p.purchase_id = $1 AND i.operation IN ('authorize', 'charge_off_session')
       AND (NOT $2 OR (p.purpose = 'pledge' AND NOT EXISTS (SELECT 1 FROM pledges pl WHERE pl.payment_id = p.id AND pl.state = 'paid')))`,
    [purchaseId, unkept],
  );
  return Number(rows[0]?.n ?? 0);
}

async function start(target: RaceTarget, script: PurchaseScript, n: number): Promise<Running | undefined> {
  const offer = offerOf(target, script.plan);
  const email = `race${runs}-${n}@example.com`;
  const created = await target.call(n % target.processes, 'POST', '/api/merchants/v1/purchases', {
    title: 'Race',
    amount: script.amount,
    client: { email },
    merchant_uid: offer.merchant_uid,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  const third = Math.floor(script.amount / 3);
  const pledgers =
    script.plan === 'pot'
      ? [
          { email: `ann${n}@example.com`, amount_cents: third },
          { email: `bob${n}@example.com`, amount_cents: third },
        ]
      : [];
  const paid = await target.call(n % target.processes, 'POST', `/api/sandbox/purchases/pur_${id}/pay`, {
    card_number: CARD_NUMBERS[script.card],
    ...(pledgers.length ? { pledgers } : {}),
  });
  // An amount outside the offer's limits is refused at creation or payment: nothing to race.
  if (paid.status !== 200) return undefined;
  const left = await target.query<{ due: number }>(
    "SELECT COALESCE(sum(amount_cents + fees_cents), 0)::int AS due FROM installments WHERE purchase_id = $1 AND state = 'scheduled'",
    [id],
  );
  const owed = script.plan === 'pot' ? script.amount : (await keptAtPsp(target, id)) + Number(left[0]!.due);
  return { id, script, owed, email, links: new Set(), token: signHs256({ merchantUid: offer.merchant_uid, purchaseUid: `pur_${id}` }, offer.secret) };
}

function keepCookies(jar: Map<string, string>, res: BrowserResponse): BrowserResponse {
  for (const line of res.setCookie) {
    const [pair = ''] = line.split(';');
    const eq = pair.indexOf('=');
    if (eq > 0) jar.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return res;
}

function browse(target: RaceTarget, proc: number, jar: Map<string, string>, request: BrowserRequest): Promise<BrowserResponse> {
  const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const form: Record<string, string> = request.body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' };
  return target.browse(proc, { ...request, headers: { ...(cookie ? { cookie } : {}), ...form, ...request.headers } }).then((res) => keepCookies(jar, res));
}

const csrfOf = (page: string) => /name="csrf" value="([^"]+)"/.exec(page)?.[1];

/**
 * The leader signs in to the shopper space as a shopper does in the sandbox
 * (docs/shopper-space.md#sign-in-in-the-sandbox): the sign-in form, the link read from the
 * sandbox inbox, opened in the same browser. Undefined when the sign-in was refused (throttled).
 */
async function signIn(target: RaceTarget, proc: number, p: Running): Promise<Shopper | undefined> {
  const cookies = new Map<string, string>();
  const form = await browse(target, proc, cookies, { method: 'GET', path: '/space/sign-in' });
  const asked = await browse(target, proc, cookies, {
    method: 'POST',
    path: '/space/sign-in',
    body: new URLSearchParams({ csrf: csrfOf(form.body) ?? '', identity: p.email }).toString(),
  });
  if (asked.status === 429) return undefined;
  expect(asked.location, `sign-in asked: ${asked.status} ${asked.body}`).toMatch(/^\/space\/sign-in\/sent/);
  let link: string | undefined;
  for (let i = 0; i < 200 && !link; i++) {
    const inbox = await target.call(proc, 'GET', '/api/sandbox/messages?limit=20');
    for (const m of (inbox.body.messages ?? []) as { recipient: string; body: string }[]) {
      const found = m.recipient === p.email ? /\/space\/sign-in\/link\/[A-Za-z0-9_-]{43}/.exec(m.body)?.[0] : undefined;
      if (found && !p.links.has(found)) link = found;
    }
    if (!link) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(link, `a sign-in link in the sandbox inbox for ${p.email}`).toBeDefined();
  p.links.add(link!);
  const opened = await browse(target, proc, cookies, { method: 'GET', path: link! });
  // 410: the link's 15 minutes passed meanwhile (another operation of the round moved the clock);
  // 429: the space's sign-in throttle, which the run's many sign-ins from one address reach.
  if (opened.status === 410 || opened.status === 429) return undefined;
  expect(opened.status, `sign-in link: ${opened.body}`).toBe(303);
  const space = await browse(target, proc, cookies, { method: 'GET', path: '/space' });
  // Sent back to the sign-in: the new session's 2 hours passed meanwhile (another operation of the
  // round moved the clock between the link and the space).
  if (space.status === 303 && space.location?.startsWith('/space/sign-in')) return undefined;
  expect(space.status, `the space after signing in: ${space.status} ${space.location ?? ''}`).toBe(200);
  return { cookies, csrf: csrfOf(space.body)! };
}

/**
 * A form of the leader's purchase page posted by the signed-in leader; signed in again when the
 * session ended (the clock moved past its 2 hours). What it did is read at the PSP by the audit.
 */
async function asShopper(target: RaceTarget, proc: number, p: Running, path: string, fields: Record<string, string> = {}): Promise<void> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const signing = (p.shopper ??= signIn(target, proc, p));
    const shopper = await signing;
    if (!shopper) {
      // Refused (throttled, or the link outlived by a clock move): not played; the next one signs in again.
      if (p.shopper === signing) p.shopper = undefined;
      return;
    }
    const res = await browse(target, proc, shopper.cookies, { method: 'POST', path, body: new URLSearchParams({ csrf: shopper.csrf, ...fields }).toString() });
    if (res.status === 303 && res.location?.startsWith('/space/sign-in')) {
      // The session ended: a new one, once however many operations found it so.
      if (p.shopper === signing) p.shopper = undefined;
      continue;
    }
    expect(res.status, `${path}: ${res.status} ${res.body}`).toBe(303);
    return;
  }
}

async function play(target: RaceTarget, p: Running, o: Op, proc: number): Promise<void> {
  const expectAcceptable = (r: { status: number; body: unknown }, what: string) => expect(ACCEPTABLE.has(r.status), `${what}: ${r.status} ${JSON.stringify(r.body)}`).toBe(true);
  switch (o.kind) {
    case 'refund': {
      const amount = o.share === 'all' ? undefined : Math.max(1, Math.floor((p.owed * o.share) / 100));
      expectAcceptable(await target.call(proc, 'POST', `/api/merchants/v1/purchases/${p.id}/refunds`, amount === undefined ? {} : { amount }), 'refund');
      return;
    }
    case 'cancel':
      expectAcceptable(await target.call(proc, 'POST', `/api/merchants/v1/purchases/${p.id}/cancel`), 'cancel');
      return;
    case 'trigger_capture':
      expectAcceptable(await target.call(proc, 'POST', `/api/trigger_capture/?signature=${p.token}`), 'trigger_capture');
      return;
    case 'clock':
      expectAcceptable(await target.call(proc, 'POST', '/api/sandbox/clock', { advance_seconds: o.days * DAY_S }), 'clock');
      return;
    case 'pledge_pays': {
      const [pledge] = await target.query<{ id: string }>("SELECT id FROM pledges WHERE purchase_id = $1 AND state IN ('invited', 'draft') ORDER BY position LIMIT 1", [p.id]);
      if (!pledge) return;
      expectAcceptable(await target.call(proc, 'POST', `/api/sandbox/pledges/plg_${pledge.id}/pay`, { card_number: CARD_NUMBERS[p.script.pledgeCard] }), 'pledge');
      return;
    }
    case 'repay':
      return asShopper(target, proc, p, `/space/purchases/pur_${p.id}/repay`);
    case 'pay_now': {
      const [refused] = await target.query<{ id: string }>("SELECT id FROM installments WHERE purchase_id = $1 AND state = 'scheduled' AND attempts > 0 ORDER BY index LIMIT 1", [
        p.id,
      ]);
      if (!refused) return;
      return asShopper(target, proc, p, `/space/purchases/pur_${p.id}/installments/${refused.id}/pay`);
    }
    case 'card_change':
      return asShopper(target, proc, p, `/space/purchases/pur_${p.id}/card`, {
        holder_name: 'Race Shopper',
        card_number: CARD_NUMBERS[o.card],
        card_expiry: '12/39',
        card_cvc: '123',
      });
    case 'dispute': {
      const listed = await target.call(proc, 'GET', `/api/sandbox/purchases/pur_${p.id}/disputes`);
      const open = ((listed.body.data ?? []) as { id: string; state: string }[]).find((d) => d.state === 'open' || d.state === 'evidence_sent');
      if (!open) return;
      expectAcceptable(await target.call(proc, 'POST', `/api/sandbox/disputes/${open.id}/${o.outcome}`), 'dispute');
      return;
    }
  }
}

/**
 * Every dispute the sandbox opened on the purchases' transactions is recorded, in the state the
 * sandbox has it, and its merchant was told once (`purchase.disputed`, with the deadline of a
 * chargeback): checked after each round, the clock moved by a few minutes first. One query for all
 * the purchases: it runs after every round.
 */
async function checkDisputes(target: RaceTarget, started: Running[], when: string): Promise<void> {
  const rows = await target.query<{ purchase: string; state_now: string; psp: string; kind: string; status: string; state: string | null; told: number; due: boolean | null }>(
    `SELECT p.purchase_id AS purchase, pu.state AS state_now, sd.id AS psp, sd.kind, sd.status, d.state,
            count(e.id)::int AS told, bool_and(e.data->>'evidence_due_at' IS NOT NULL) AS due
       FROM sandbox_psp_idempotency i
       JOIN payments p ON p.idempotency_key = i.idempotency_key
       JOIN purchases pu ON pu.id = p.purchase_id
       JOIN sandbox_psp_disputes sd ON sd.transaction_id = i.result->>'transactionId'
       LEFT JOIN disputes d ON d.psp = 'sandbox' AND d.psp_dispute_id = sd.id
       LEFT JOIN purchase_events e ON e.purchase_id = p.purchase_id AND e.type = 'purchase.disputed' AND e.data->>'dispute_id' = 'dsp_' || d.id
      WHERE p.purchase_id = ANY($1::uuid[]) AND i.operation IN ('authorize', 'charge_off_session')
      GROUP BY 1, 2, 3, 4, 5, 6`,
    [started.map((p) => p.id)],
  );
  const recorded: Record<string, string> = { needs_response: 'open', won: 'won', lost: 'lost', closed: 'closed' };
  for (const r of rows) {
    const p = started.find((s) => s.id === r.purchase)!;
    const where = `${when}: ${p.script.plan} ${p.script.card} ${p.id} ${r.state_now} ${JSON.stringify(p.script.rounds)}`;
    expect({ state: r.state, told: r.told }, `the sandbox's ${r.kind} ${r.psp} (${r.status}) recorded and told at once: ${where}`).toEqual({ state: recorded[r.status], told: 1 });
    if (r.kind === 'chargeback') expect(r.due, `the merchant told the chargeback's deadline: ${where}`).toBe(true);
  }
}

/** The audit's invariants, at the PSP's own records, once every due date has passed. */
async function check(target: RaceTarget, p: Running): Promise<void> {
  const [purchase] = await target.query<{ state: string; refunded_cents: number }>('SELECT state, refunded_cents::int AS refunded_cents FROM purchases WHERE id = $1', [p.id]);
  const where = `${p.script.plan} ${p.id} ${purchase!.state} ${JSON.stringify(p.script.rounds)}`;
  const kept = await keptAtPsp(target, p.id);
  const [rows] = await target.query<{ net: number }>('SELECT COALESCE(sum(captured_cents - refunded_cents), 0)::int AS net FROM payments WHERE purchase_id = $1', [p.id]);
  expect(Number(rows!.net), `Chipin's payments against the PSP: ${where}`).toBe(kept);
  expect(purchase!.state, `every due date and deadline passed: ${where}`).not.toBe('LEADER_PROCESSED');
  // A friend's share the pot did not keep is given back; with a chargeback open on it, by the bank
  // (docs/money-operations.md#refunds-and-disputes): counted as given back.
  const bankGaveBack = await chargedBackAtPsp(target, p.id, { unkept: true });
  if (purchase!.state === 'CANCELLED') expect(kept - bankGaveBack, `a CANCELLED purchase keeps nothing: ${where}`).toBe(0);
  if (purchase!.state === 'SUCCESSFUL') expect(kept - bankGaveBack, `kept = owed − refunded: ${where}`).toBe(p.owed - Number(purchase!.refunded_cents));
  // REFUNDED: all of it went back to the cards, but what the bank already took back (a lost
  // chargeback), which was not refunded again (docs/money-operations.md#refunds-and-disputes).
  if (purchase!.state === 'REFUNDED') expect(kept, `a REFUNDED purchase keeps only what was charged back: ${where}`).toBe(await chargedBackAtPsp(target, p.id));
  // Per PSP transaction: never more given back (refunds and lost chargebacks) than captured.
  const over = await target.query(
    `SELECT t.id, t.captured_cents, t.refunded_cents, t.charged_back_cents FROM sandbox_psp_idempotency i
       JOIN payments p ON p.idempotency_key = i.idempotency_key JOIN sandbox_psp_transactions t ON t.id = i.result->>'transactionId'
     WHERE p.purchase_id = $1 AND t.refunded_cents + t.charged_back_cents > t.captured_cents`,
    [p.id],
  );
  expect(over, `refunded + charged back ≤ captured: ${where}`).toEqual([]);
  const duplicates = await target.query(
    `SELECT data->>'payment_id' AS payment, data->'transaction'->>'status' AS status, data->'transaction'->>'amount_cents' AS amount, count(*)::int AS n
       FROM purchase_events WHERE purchase_id = $1 AND type = 'payment.transaction' GROUP BY 1, 2, 3 HAVING count(*) > 1`,
    [p.id],
  );
  expect(duplicates, `one notification per movement: ${where}`).toEqual([]);
  if (purchase!.state !== 'LEADER_PROCESSED') {
    const live = await target.query(
      `SELECT t.id FROM sandbox_psp_idempotency i JOIN payments p ON p.idempotency_key = i.idempotency_key
         JOIN sandbox_psp_transactions t ON t.id = i.result->>'transactionId'
       WHERE p.purchase_id = $1 AND t.status = 'authorized' AND (t.expires_at IS NULL OR t.expires_at > (SELECT now() + offset_ms * interval '1 millisecond' FROM sandbox_clock LIMIT 1))`,
      [p.id],
    );
    expect(live, `no hold left live on a settled purchase: ${where}`).toEqual([]);
  }
}

/**
 * One run: the purchases started, their rounds played (the purchases side by side, each round's
 * operations at once, alternating processes), the clock moved past every due date, dunning retry
 * and deadline (twice, so jobs rescheduled by a claim run), then every purchase checked.
 */
export async function raceRun(target: RaceTarget, scripts: PurchaseScript[]): Promise<number> {
  runs++;
  const started = (await Promise.all(scripts.map((s, n) => start(target, s, n)))).filter((p): p is Running => p !== undefined);
  const rounds = Math.max(0, ...started.map((p) => p.script.rounds.length));
  // In two moves: a charge the first move's jobs make (a collection that waited for another
  // operation's claim) may have its chargeback told before its answer is recorded; the notice is
  // then kept and tried again 5 s later (docs/money-operations.md#refunds-and-disputes), which the
  // sandbox clock reaches only with the next move.
  const disputesInTime = async (when: string) => {
    for (const step of [DISPUTE_GRACE_S / 2, DISPUTE_GRACE_S / 2]) {
      const moved = await target.call(0, 'POST', '/api/sandbox/clock', { advance_seconds: step });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    }
    await checkDisputes(target, started, when);
  };
  await disputesInTime('after the checkouts');
  for (let r = 0; r < rounds; r++) {
    await Promise.all(started.flatMap((p) => (p.script.rounds[r] ?? []).map((o, k) => play(target, p, o, (r + k) % target.processes))));
    await disputesInTime(`after round ${r + 1}`);
  }
  for (let pass = 0; pass < 3; pass++) {
    const moved = await target.call(pass % target.processes, 'POST', '/api/sandbox/clock', { advance_seconds: 60 * DAY_S });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
  }
  await checkDisputes(target, started, 'at the end');
  for (const p of started) await check(target, p);
  return started.length;
}

/**
 * The seeds a race suite runs: its fixed one, and one random seed (MONEY_RACE_SEED replays it)
 * printed by the test; `npm run test:full` adds four more random seeds (docs/testing.md#money-races).
 */
export function raceSeeds(fixed: number): (readonly [string, number])[] {
  const random = () => Math.floor(Math.random() * 2_147_483_647);
  const first = Number(process.env.MONEY_RACE_SEED ?? random());
  return [['a fixed seed', fixed], ['a random seed', first], ...(FULL_RUN ? [1, 2, 3, 4].map((n) => [`random seed ${n + 1}`, random()] as const) : [])];
}
