/**
 * The risk decision at payment time (docs/risk.md#the-decision-at-payment-time), driven through
 * the Merchant API v1 and the sandbox pay helpers: every rule accepts and refuses with its reason
 * code once the card is known; a refusal charges and holds nothing at the sandbox PSP, leaves the
 * purchase INITIALIZED with the codes in its comment, emits `payment.failed` with the reasons and
 * counts the attempt (the offer's last one fails the purchase); a pledger's blocked e-mail or card
 * country refuses the pledge while the pot goes on; and the account's external scoring hook,
 * a REAL receiver on 127.0.0.1, decides end to end (accept, refuse, timeout, bad signature).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { riskRefusedComment } from '../../src/domain/risk-rules.ts';
import { TEXT } from '../../src/pages/texts.ts';
import { resumeLeaderAfterChallenge } from '../../src/use-cases/checkout/resolve-leader-attempt.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { onPostgres, startTestApp, type TestApp } from '../helpers/app.ts';
import { Receiver, type Answer, type Received } from '../delivery/helpers.ts';
import { hookAnswer } from '../helpers/scoring-hook.ts';
import { answerChallenge } from '../use-cases/support.ts';

let app: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  app = await startTestApp();
  receiver = await Receiver.start();
});
afterAll(async () => {
  await receiver?.close();
  await app?.close();
});

const VISA = '4242 4242 4242 4242';
const MASTERCARD = '5555 5555 5555 4444';
const PREPAID = '5105 1051 0510 5100';
const BRAZIL = '4000 0007 6000 0002';
const CHALLENGE = '4000 0000 0000 3220';

const put = async (c: Caller, url: string, body: unknown) => {
  const res = await app.server.inject({ method: 'PUT', url, headers: { authorization: c.dashboard, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Record<string, unknown>;
};
const setAccountRules = (c: Caller, rules: unknown) => put(c, '/api/backoffice/risk_rules/account', rules);
const setOfferRules = (c: Caller, uid: string, rules: unknown) => put(c, `/api/backoffice/risk_rules/offers/${uid}`, rules);

/** A purchase of `c` (30,000 on the 3x offer unless told), its bare id. */
async function newPurchase(c: Caller, over: Record<string, unknown> = {}): Promise<string> {
  const res = await c.post('/api/merchants/v1/purchases', minimalPurchase({ merchant_uid: c.offer('INSTALLMENTS', 3), ...over }));
  expect(res.statusCode, res.body).toBe(201);
  return (res.json() as { id: string }).id;
}

/** The sandbox helper as the leader, from `remoteAddress` when given. */
const pay = (c: Caller, id: string, card: string, options: { expiry?: string; ip?: string; pledgers?: unknown[] } = {}) =>
  app.server.inject({
    method: 'POST',
    url: `/api/sandbox/purchases/pur_${id}/pay`,
    headers: { authorization: `Bearer ${c.token}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ card_number: card, ...(options.expiry ? { card_expiry: options.expiry } : {}), ...(options.pledgers ? { pledgers: options.pledgers } : {}) }),
    ...(options.ip ? { remoteAddress: options.ip } : {}),
  });
const payPledge = (c: Caller, pledgeId: string, card: string) =>
  app.server.inject({
    method: 'POST',
    url: `/api/sandbox/pledges/${pledgeId}/pay`,
    headers: { authorization: `Bearer ${c.token}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ card_number: card }),
  });

/** Every transaction the sandbox PSP holds (authorised, captured or declined): one app per file, tests one after the other. */
const pspTransactions = async () => Number((await app.services.db.query<{ n: string }>('SELECT count(*) AS n FROM sandbox_psp_transactions')).rows[0]!.n);

async function purchaseOf(c: Caller, id: string) {
  const res = await c.get(`/api/merchants/v1/purchases/pur_${id}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { state: string; comment?: string };
}
async function failedEvents(c: Caller, id: string) {
  const { rows } = await app.services.db.query<{ data: unknown }>(
    "SELECT data FROM purchase_events WHERE account_id = $1 AND purchase_id = $2 AND type = 'payment.failed' ORDER BY created_at, id",
    [c.accountId, id],
  );
  return rows.map((r) => (typeof r.data === 'string' ? JSON.parse(r.data) : r.data) as { reason: string; attempt: number; risk?: { decision_id: string; reasons: string[] } });
}
interface DecisionRow {
  id: string;
  purpose: string;
  outcome: string;
  reasons: { code: string }[];
  hook: Record<string, unknown> | null;
  card_fingerprint: string;
  inputs: Record<string, unknown>;
}
async function decisionsOf(c: Caller, id: string): Promise<DecisionRow[]> {
  const { rows } = await app.services.db.query<DecisionRow>(
    'SELECT id, purpose, outcome, reasons, hook, card_fingerprint, inputs FROM risk_decisions WHERE account_id = $1 AND purchase_id = $2 ORDER BY created_at, id',
    [c.accountId, id],
  );
  const json = <T>(v: unknown) => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));
  return rows.map((r) => ({ ...r, reasons: json(r.reasons), hook: json(r.hook), inputs: json(r.inputs) }));
}

/** Pays and expects the sandbox to take it (200). */
async function expectPaid(c: Caller, id: string, card: string, options: Parameters<typeof pay>[3] = {}) {
  const res = await pay(c, id, card, options);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { state: string; pledges: { id: string; email?: string; state: string }[] };
}

/**
 * Pays and expects a refusal with exactly `codes`: a 402 naming them, nothing new at the sandbox
 * PSP, the purchase INITIALIZED with the codes in its comment, `payment.failed` with the reasons.
 */
async function expectRefused(c: Caller, id: string, card: string, codes: string[], options: Parameters<typeof pay>[3] = {}) {
  const before = await pspTransactions();
  const res = await pay(c, id, card, options);
  expect(res.statusCode, res.body).toBe(402);
  expect(res.body).toContain('risk_refused');
  expect(res.body).toContain(`(${codes.join(', ')})`);
  expect(await pspTransactions()).toBe(before);
  const purchase = await purchaseOf(c, id);
  const events = await failedEvents(c, id);
  const last = events.at(-1)!;
  expect(last).toMatchObject({ reason: 'risk_refused', attempt: events.length, risk: { reasons: codes } });
  if (purchase.state === 'INITIALIZED') expect(purchase.comment).toBe(riskRefusedComment(codes));
  const decision = (await decisionsOf(c, id)).at(-1)!;
  expect([decision.id, decision.outcome, decision.reasons.map((r) => r.code)]).toEqual([last.risk!.decision_id, 'refused', codes]);
  return purchase;
}

/** `MM/YYYY` of `months` months after the app clock's month. */
const expiryIn = (months: number) => {
  const now = app.services.clock.now();
  const total = now.getUTCFullYear() * 12 + now.getUTCMonth() + months;
  return `${String((total % 12) + 1).padStart(2, '0')}/${Math.floor(total / 12)}`;
};

describe(`every rule at payment time, accepted and refused with its reason code (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it("AMOUNT_TOO_LOW / AMOUNT_TOO_HIGH: the offer's risk bounds", async () => {
    const c = await caller(app);
    await setOfferRules(c, c.offer('INSTALLMENTS', 3), { min_amount_cents: 20_000, max_amount_cents: 40_000 });
    await expectRefused(c, await newPurchase(c, { amount: 10_000 }), VISA, ['AMOUNT_TOO_LOW']);
    await expectRefused(c, await newPurchase(c, { amount: 50_000 }), VISA, ['AMOUNT_TOO_HIGH']);
    expect((await expectPaid(c, await newPurchase(c, { amount: 30_000 }), VISA)).state).toBe('LEADER_PROCESSED');
  });

  it('OUTSTANDING_CREDIT_LIMIT: a first plan paid, a second that would owe more than the ceiling refused', async () => {
    const c = await caller(app);
    await setAccountRules(c, { max_outstanding_cents: 30_000 });
    const client = { email: 'owes@example.com' };
    await expectPaid(c, await newPurchase(c, { client }), VISA); // 2 × 100.00 owed
    await expectRefused(c, await newPurchase(c, { client }), MASTERCARD, ['OUTSTANDING_CREDIT_LIMIT']); // + 200.00 > 300.00
    // A shopper the history does not tie to the first plan is not held.
    await expectPaid(c, await newPurchase(c, { client: { email: 'other@example.com' } }), MASTERCARD);
  });

  it('an accepted plan awaiting 3-D Secure reserves its credit: a second plan is held by it until that attempt fails', async () => {
    const c = await caller(app);
    await setAccountRules(c, { max_outstanding_cents: 30_000 });
    const client = { email: 'pending@example.com' };
    const first = await newPurchase(c, { client });
    const challenged = await pay(c, first, CHALLENGE);
    expect(challenged.statusCode, challenged.body).toBe(202);
    await expectRefused(c, await newPurchase(c, { client }), VISA, ['OUTSTANDING_CREDIT_LIMIT']);
    await answerChallenge(app, (challenged.json() as { challenge_url: string }).challenge_url, 'fail');
    const { rows } = await app.services.db.query<{ id: string }>('SELECT id FROM payments WHERE account_id = $1 AND purchase_id = $2', [c.accountId, first]);
    expect(await resumeLeaderAfterChallenge(app.services.payments, { id: first, accountId: c.accountId }, rows[0]!.id)).toMatchObject({ kind: 'declined' });
    await expectPaid(c, await newPurchase(c, { client }), VISA);
  });

  it('VELOCITY_LIMIT: plans started per hour, counted by e-mail and by card', async () => {
    const c = await caller(app);
    await setAccountRules(c, { max_plans_per_hour: 1 });
    await expectPaid(c, await newPurchase(c, { client: { email: 'fast@example.com' } }), VISA);
    await expectRefused(c, await newPurchase(c, { client: { email: 'fast@example.com' } }), MASTERCARD, ['VELOCITY_LIMIT']);
    // Another e-mail with the same card: the card's fingerprint ties it to the first plan.
    await expectRefused(c, await newPurchase(c, { client: { email: 'slow@example.com' } }), VISA, ['VELOCITY_LIMIT']);
    await expectPaid(c, await newPurchase(c, { client: { email: 'slow@example.com' } }), MASTERCARD);
  });

  it("BLOCKED by e-mail, whatever its case; the shopper's other purchases under another e-mail pass", async () => {
    const c = await caller(app);
    await setAccountRules(c, { blocked_emails: ['fraud@example.com'] });
    await expectRefused(c, await newPurchase(c, { client: { email: 'Fraud@Example.com' } }), VISA, ['BLOCKED']);
    await expectPaid(c, await newPurchase(c, { client: { email: 'honest@example.com' } }), VISA);
  });

  it("BLOCKED by card fingerprint: read from the first decision's record, then blocked", async () => {
    const c = await caller(app);
    const first = await newPurchase(c, { client: { email: 'first@example.com' } });
    await expectPaid(c, first, VISA);
    const [decision] = await decisionsOf(c, first);
    expect(decision!.card_fingerprint).toMatch(/^cfp_[A-Za-z0-9_-]{26}$/);
    await setAccountRules(c, { blocked_cards: [decision!.card_fingerprint] });
    await expectRefused(c, await newPurchase(c, { client: { email: 'second@example.com' } }), VISA, ['BLOCKED']);
    await expectPaid(c, await newPurchase(c, { client: { email: 'second@example.com' } }), MASTERCARD);
  });

  it("BLOCKED by IP range: the shopper's address as the helper receives it", async () => {
    const c = await caller(app);
    await setAccountRules(c, { blocked_ip_ranges: ['198.51.100.0/24'] });
    await expectRefused(c, await newPurchase(c), VISA, ['BLOCKED'], { ip: '198.51.100.9' });
    const paid = await newPurchase(c);
    await expectPaid(c, paid, VISA, { ip: '198.51.101.9' });
    expect((await decisionsOf(c, paid))[0]!.inputs).toMatchObject({ shopper: { ip: '198.51.101.9' } });
  });

  it('SCORE_TOO_LOW: a first purchase scores 40, refused under 41, taken at 40', async () => {
    const c = await caller(app);
    await setAccountRules(c, { min_score: 41 });
    await expectRefused(c, await newPurchase(c), VISA, ['SCORE_TOO_LOW']);
    await setAccountRules(c, { min_score: 40 });
    await expectPaid(c, await newPurchase(c, { client: { email: 'new@example.com' } }), VISA);
  });

  it('CARD_PREPAID: a prepaid card refused for a 3x plan (the built-in rule), accepted for a pot', async () => {
    const c = await caller(app);
    await expectRefused(c, await newPurchase(c), PREPAID, ['CARD_PREPAID']);
    await expectPaid(c, await newPurchase(c, { merchant_uid: c.offer('SHARED') }), PREPAID);
  });

  it("CARD_COUNTRY: card_countries ['FR'] refuses a Brazilian card, takes a French one", async () => {
    const c = await caller(app);
    await setAccountRules(c, { card_countries: ['FR'] });
    await expectRefused(c, await newPurchase(c), BRAZIL, ['CARD_COUNTRY']);
    await expectPaid(c, await newPurchase(c), VISA);
  });

  it("CARD_EXPIRES_BEFORE_LAST_DUE: a card expiring before the plan's last due date refused, one outlasting it accepted", async () => {
    const c = await caller(app);
    await expectRefused(c, await newPurchase(c), VISA, ['CARD_EXPIRES_BEFORE_LAST_DUE'], { expiry: expiryIn(0) });
    await expectPaid(c, await newPurchase(c), VISA, { expiry: expiryIn(12) });
  });

  it('an allowed shopper skips velocity, outstanding credit and the score, never a block', async () => {
    const c = await caller(app);
    const client = { email: 'vip@example.com' };
    await setAccountRules(c, { max_plans_per_hour: 1, max_outstanding_cents: 20_000, min_score: 90 });
    await expectRefused(c, await newPurchase(c, { client }), VISA, ['SCORE_TOO_LOW']);
    await setAccountRules(c, { max_plans_per_hour: 1, max_outstanding_cents: 20_000, min_score: 90, allowed_emails: ['vip@example.com'] });
    await expectPaid(c, await newPurchase(c, { client }), VISA);
    await expectPaid(c, await newPurchase(c, { client }), VISA); // a second plan this hour, 400.00 owed
    await setAccountRules(c, { allowed_emails: ['vip@example.com'], blocked_emails: ['vip@example.com'] });
    await expectRefused(c, await newPurchase(c, { client }), VISA, ['BLOCKED']);
  });
});

describe(`a refusal at payment time (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('authorises nothing, saves no card, counts the attempt; the next card may pay; the decision is recorded without the number', async () => {
    const c = await caller(app);
    const id = await newPurchase(c);
    await expectRefused(c, id, PREPAID, ['CARD_PREPAID']);
    const { rows: payments } = await app.services.db.query<{ status: string; decline_reason: string | null; psp_transaction_id: string | null }>(
      'SELECT status, decline_reason, psp_transaction_id FROM payments WHERE account_id = $1 AND purchase_id = $2',
      [c.accountId, id],
    );
    expect(payments).toEqual([{ status: 'declined', decline_reason: 'risk_refused', psp_transaction_id: null }]);
    const { rows } = await app.services.db.query<{ attempts: number }>('SELECT attempts FROM purchases WHERE account_id = $1 AND id = $2', [c.accountId, id]);
    expect(rows[0]!.attempts).toBe(1);
    const [refused] = await decisionsOf(c, id);
    expect(JSON.stringify(refused)).not.toContain('5105105105105100');
    expect(refused!.inputs).toMatchObject({ card: { bin: '510510', last4: '5100', funding: 'prepaid', country: 'FR' } });
    expect((await expectPaid(c, id, VISA)).state).toBe('LEADER_PROCESSED');
  });

  it("the offer's last attempt refused fails the purchase", async () => {
    const c = await caller(app);
    const id = await newPurchase(c);
    const { rows } = await app.services.db.query<{ max_attempts: number }>('SELECT max_attempts FROM offers WHERE account_id = $1 AND id = $2', [
      c.accountId,
      c.offer('INSTALLMENTS', 3).slice('mer_'.length),
    ]);
    const max = rows[0]!.max_attempts;
    expect(max).toBeGreaterThan(1);
    for (let i = 1; i < max; i++) expect((await expectRefused(c, id, PREPAID, ['CARD_PREPAID'])).state).toBe('INITIALIZED');
    expect((await expectRefused(c, id, PREPAID, ['CARD_PREPAID'])).state).toBe('FAILED');
    expect((await failedEvents(c, id)).map((e) => e.attempt)).toEqual(Array.from({ length: max }, (_, i) => i + 1));
    expect((await pay(c, id, VISA)).statusCode).toBe(409);
  });
});

describe(`the hosted checkout page at payment time (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it("a shopper refused from a blocked address sees the page's non-accusing message, no reason code; nothing is charged", async () => {
    const c = await caller(app);
    await setAccountRules(c, { blocked_ip_ranges: ['203.0.113.0/24'] });
    const id = await newPurchase(c);
    const path = `/pay/pur_${id}`;
    const page = await app.server.inject({ url: path, remoteAddress: '203.0.113.50' });
    const cookie = String(page.headers['set-cookie']).split(';')[0]!;
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const before = await pspTransactions();
    const res = await app.server.inject({
      method: 'POST',
      url: path,
      remoteAddress: '203.0.113.50',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `csrf=${encodeURIComponent(csrf)}&holder_name=Ann&card_number=4242+4242+4242+4242&card_expiry=12%2F${(app.services.clock.now().getUTCFullYear() + 3) % 100}&card_cvc=123`,
    });
    expect(res.statusCode).toBe(402);
    expect(res.body).toContain(TEXT.en.riskRefused);
    expect(res.body).not.toContain('BLOCKED');
    expect(await pspTransactions()).toBe(before);
    const purchase = await purchaseOf(c, id);
    expect([purchase.state, purchase.comment]).toEqual(['INITIALIZED', riskRefusedComment(['BLOCKED'])]);
    expect((await decisionsOf(c, id))[0]!.inputs).toMatchObject({ shopper: { ip: '203.0.113.50' } });
  });
});

describe(`pledges at payment time (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it("a blocked pledger's e-mail or a card from a country not allowed refuses the pledge; nothing is charged and the pot goes on", async () => {
    const c = await caller(app);
    const id = await newPurchase(c, { merchant_uid: c.offer('SHARED') });
    const led = await expectPaid(c, id, VISA, {
      pledgers: [
        { email: 'blocked@example.com', amount_cents: 10_000 },
        { email: 'friend@example.com', amount_cents: 10_000 },
      ],
    });
    expect(led.state).toBe('LEADER_PROCESSED');
    const pledgeOf = (email: string) => led.pledges.find((p) => p.email === email)!.id;
    await setAccountRules(c, { blocked_emails: ['blocked@example.com'], card_countries: ['FR'] });

    const before = await pspTransactions();
    const blocked = await payPledge(c, pledgeOf('blocked@example.com'), VISA);
    expect(blocked.statusCode, blocked.body).toBe(402);
    expect(blocked.body).toContain('risk_refused');
    expect(blocked.body).toContain('(BLOCKED)');
    const abroad = await payPledge(c, pledgeOf('friend@example.com'), BRAZIL);
    expect(abroad.statusCode, abroad.body).toBe(402);
    expect(abroad.body).toContain('(CARD_COUNTRY)');
    expect(await pspTransactions()).toBe(before);
    const pledges = (await decisionsOf(c, id)).filter((d) => d.purpose === 'pledge');
    expect(pledges.map((d) => [d.outcome, d.reasons.map((r) => r.code)])).toEqual([
      ['refused', ['BLOCKED']],
      ['refused', ['CARD_COUNTRY']],
    ]);
    // The merchant is told each refusal with its codes: `pledge.refused` (webhook pledgeRefused).
    const told = await app.services.db.query<{ data: { pledge_id: string; reason: string; risk: { decision_id: string; reasons: string[] } } }>(
      "SELECT data FROM purchase_events WHERE account_id = $1 AND purchase_id = $2 AND type = 'pledge.refused' ORDER BY id",
      [c.accountId, id],
    );
    expect(told.rows.map((r) => [r.data.reason, r.data.risk.reasons, r.data.risk.decision_id])).toEqual([
      ['risk_refused', ['BLOCKED'], pledges[0]!.id],
      ['risk_refused', ['CARD_COUNTRY'], pledges[1]!.id],
    ]);
    // The pot goes on: the purchase still waits for its pledges, and the friend pays with a French card.
    expect((await purchaseOf(c, id)).state).toBe('LEADER_PROCESSED');
    const paid = await payPledge(c, pledgeOf('friend@example.com'), VISA);
    expect(paid.statusCode, paid.body).toBe(200);
    expect((paid.json() as { pledges: { email?: string; state: string }[] }).pledges.map((p) => [p.email, p.state])).toEqual([
      ['blocked@example.com', 'invited'],
      ['friend@example.com', 'paid'],
    ]);
  });
});

describe(`the external scoring hook at payment time, a real receiver (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  /** A merchant whose hook points at the receiver; the secret the back-office API answers once. */
  async function hooked(settings: Record<string, unknown> = {}): Promise<{ c: Caller; secret: string }> {
    const c = await caller(app);
    const body = await put(c, '/api/backoffice/risk_scoring_hook', { url: receiver.url('/score'), ...settings });
    expect(body.secret).toMatch(/^hooksec_/);
    return { c, secret: body.secret as string };
  }
  /** The hook's answer to each request it receives, signed as docs/risk.md#the-signature says. */
  const signed =
    (secret: string, body: unknown) =>
    (r: Received): Answer =>
      hookAnswer(secret, r, body);
  async function withAnswer<T>(answer: Answer | ((r: Received) => Answer), run: () => Promise<T>): Promise<{ result: T; asked: Record<string, unknown>[] }> {
    const before = receiver.received.length;
    receiver.answer = answer;
    const result = await run();
    receiver.releaseHeld();
    return { result, asked: receiver.received.slice(before).map((r) => JSON.parse(r.body) as Record<string, unknown>) };
  }

  it("accepts on the hook's signed accept: paid, its verdict on the decision; the hook never sees the card number", async () => {
    const { c, secret } = await hooked();
    const id = await newPurchase(c, { client: { email: 'hooked@example.com' } });
    const { asked } = await withAnswer(signed(secret, { decision: 'accept', score: 77 }), () => expectPaid(c, id, VISA));
    expect(asked).toHaveLength(1);
    const [decision] = await decisionsOf(c, id);
    expect(decision).toMatchObject({ outcome: 'accepted', hook: { source: 'hook', outcome: 'accept', score: 77 } });
    expect(asked[0]).toMatchObject({
      decision_id: decision!.id,
      purchase_uid: `pur_${id}`,
      purpose: 'leader',
      shopper: { email: 'hooked@example.com' },
      card: { bin: '424242', last4: '4242', fingerprint: decision!.card_fingerprint, country: 'FR', funding: 'credit' },
      chipin: { eligible: true, reasons: [] },
    });
    expect(JSON.stringify(asked[0])).not.toContain('4242424242424242');
    // No run of 9 digits or more (a card number) outside the ids, whose random hex may hold one.
    expect(JSON.stringify(asked[0]).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')).not.toMatch(/\d{9,}/);
  });

  it('refuses on its signed refusal with EXTERNAL_SCORE_REFUSED, nothing charged', async () => {
    const { c, secret } = await hooked();
    const id = await newPurchase(c);
    await withAnswer(signed(secret, { decision: 'refuse', reason: 'FRAUD_SUSPECTED' }), () => expectRefused(c, id, VISA, ['EXTERNAL_SCORE_REFUSED']));
    expect((await decisionsOf(c, id))[0]).toMatchObject({ outcome: 'refused', hook: { source: 'hook', outcome: 'refuse', reason: 'FRAUD_SUSPECTED' } });
  });

  it("is asked about a pledger's card too: its refusal refuses the pledge, nothing charged", async () => {
    const { c, secret } = await hooked();
    const id = await newPurchase(c, { merchant_uid: c.offer('SHARED') });
    const { result: led } = await withAnswer(signed(secret, { decision: 'accept' }), () =>
      expectPaid(c, id, VISA, { pledgers: [{ email: 'pal@example.com', amount_cents: 10_000 }] }),
    );
    const before = await pspTransactions();
    const { result: res, asked } = await withAnswer(signed(secret, { decision: 'refuse', reason: 'MULE_ACCOUNT' }), () => payPledge(c, led.pledges[0]!.id, MASTERCARD));
    expect(res.statusCode, res.body).toBe(402);
    expect(res.body).toContain('(EXTERNAL_SCORE_REFUSED)');
    expect(await pspTransactions()).toBe(before);
    expect(asked).toEqual([
      expect.objectContaining({
        purpose: 'pledge',
        shopper: expect.objectContaining({ email: 'pal@example.com' }),
        card: expect.objectContaining({ bin: '555555', last4: '4444' }),
      }),
    ]);
    const pledge = (await decisionsOf(c, id)).find((d) => d.purpose === 'pledge')!;
    expect(pledge).toMatchObject({ outcome: 'refused', reasons: [{ code: 'EXTERNAL_SCORE_REFUSED' }], hook: { source: 'hook', outcome: 'refuse', reason: 'MULE_ACCOUNT' } });
    expect((await purchaseOf(c, id)).state).toBe('LEADER_PROCESSED');
  });

  it('is not asked when the rules already refused', async () => {
    const { c, secret } = await hooked();
    const { asked } = await withAnswer(signed(secret, { decision: 'accept' }), async () => expectRefused(c, await newPurchase(c), PREPAID, ['CARD_PREPAID']));
    expect(asked).toEqual([]);
  });

  it('on a timeout takes the default decision: refuse → refused, accept → paid', async () => {
    const refusing = await hooked({ timeout_ms: 100, on_error: 'refuse' });
    const refused = await newPurchase(refusing.c);
    await withAnswer({ kind: 'hang' }, () => expectRefused(refusing.c, refused, VISA, ['EXTERNAL_SCORE_REFUSED']));
    expect((await decisionsOf(refusing.c, refused))[0]!.hook).toMatchObject({ source: 'default', outcome: 'refuse', error: 'timeout' });

    const accepting = await hooked({ timeout_ms: 100, on_error: 'accept' });
    const paid = await newPurchase(accepting.c);
    await withAnswer({ kind: 'hang' }, () => expectPaid(accepting.c, paid, VISA));
    expect((await decisionsOf(accepting.c, paid))[0]).toMatchObject({ outcome: 'accepted', hook: { source: 'default', outcome: 'accept', error: 'timeout' } });
  });

  it("the hook's signed accept of one payment, sent again for another, is not the hook's answer: refused by the default", async () => {
    const { c, secret } = await hooked({ on_error: 'refuse' });
    // Payment 1: the hook accepts it; its answer, headers and body, is kept.
    let kept: Answer | undefined;
    const first = await newPurchase(c);
    await withAnswer(
      (r) => (kept = signed(secret, { decision: 'accept' })(r)),
      () => expectPaid(c, first, VISA),
    );
    // Payment 2 (another purchase, within the answer's 5 minutes): the kept accept is sent again.
    const second = await newPurchase(c);
    await withAnswer(kept!, () => expectRefused(c, second, VISA, ['EXTERNAL_SCORE_REFUSED']));
    expect((await decisionsOf(c, second))[0]!.hook).toMatchObject({ source: 'default', outcome: 'refuse', error: 'bad_signature' });
  });

  it("a signed accept with a bad signature is not the hook's answer: the default decision", async () => {
    const refusing = await hooked({ on_error: 'refuse' });
    const id = await newPurchase(refusing.c);
    await withAnswer(signed('hooksec_not-the-secret', { decision: 'accept' }), () => expectRefused(refusing.c, id, VISA, ['EXTERNAL_SCORE_REFUSED']));
    expect((await decisionsOf(refusing.c, id))[0]!.hook).toMatchObject({ source: 'default', outcome: 'refuse', error: 'bad_signature' });

    const accepting = await hooked({ on_error: 'accept' });
    const paid = await newPurchase(accepting.c);
    await withAnswer(signed('hooksec_not-the-secret', { decision: 'refuse' }), () => expectPaid(accepting.c, paid, VISA));
    expect((await decisionsOf(accepting.c, paid))[0]!.hook).toMatchObject({ source: 'default', outcome: 'accept', error: 'bad_signature' });
  });
});
