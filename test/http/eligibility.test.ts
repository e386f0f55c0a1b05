/**
 * The eligibility call (docs/risk.md#the-eligibility-call) and the risk rules' back-office API:
 * per offer, eligible or not with the reasons, the simulation's figures when eligible; the rules
 * read from the account's defaults and the offer's overrides, edited by admins only and audited;
 * the shopper's history (outstanding credit, velocity, declines) read from real purchases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { onPostgres, startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let a: Caller;
let b: Caller;
beforeAll(async () => {
  app = await startTestApp();
  [a, b] = await twoMerchants(app);
});
afterAll(() => app?.close());

interface Answer {
  offers: { merchant_uid: string; type: string; installments: number; eligible: boolean; reasons: { code: string; message: string }[]; schedule: unknown }[];
  score?: { value: number; base: number; reasons: { code: string; points: number }[] };
}

const inject = (method: 'GET' | 'PUT', url: string, authorization: string, body?: unknown) =>
  app.server.inject({
    method,
    url,
    headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
const setAccountRules = async (c: Caller, rules: unknown) => {
  const res = await inject('PUT', '/api/backoffice/risk_rules/account', c.dashboard, rules);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Record<string, unknown>;
};
const setOfferRules = async (c: Caller, uid: string, rules: unknown) => {
  const res = await inject('PUT', `/api/backoffice/risk_rules/offers/${uid}`, c.dashboard, rules);
  expect(res.statusCode, res.body).toBe(200);
};
const eligibility = async (c: Caller, body: unknown) => {
  const res = await c.post('/api/merchants/v1/eligibility', body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Answer;
};
const one = async (c: Caller, uid: string, body: Record<string, unknown>) => (await eligibility(c, { offers: [uid], ...body })).offers[0]!;
const codes = (o: { reasons: { code: string }[] }) => o.reasons.map((r) => r.code);

describe(`the eligibility call (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it("answers every offer of the account by default, with the simulation's schedule when eligible", async () => {
    const c = await caller(app);
    const answer = await eligibility(c, { amount: 30_000, created: '2026-01-31' });
    expect(answer.offers.map((o) => [o.type, o.installments, o.eligible])).toEqual([
      ['SHARED', 1, true],
      ['INSTALLMENTS', 3, true],
      ['INSTALLMENTS', 4, true],
      ['DEFERRED', 1, true],
      ['DOWN_PAYMENT', 2, true],
    ]);
    const simulated = await c.post(`/api/merchants/${c.offer('INSTALLMENTS', 3)}/simulate_payment_schedule`, { amount_cents: 30_000, created: '2026-01-31' });
    expect(answer.offers[1]!.schedule).toEqual(simulated.json());
    expect(answer.offers[0]!.schedule).toBeNull(); // a pot has no schedule
    expect(answer.score).toEqual({ value: 40, base: 50, reasons: [{ code: 'FIRST_PURCHASE', points: -10 }] });
  });

  it('a down payment answers its deposit percent and maximum balance delay, and the simulation’s two lines; no other offer says them', async () => {
    const answer = await eligibility(a, { amount: 30_000, created: '2026-01-31' });
    const down = answer.offers.find((o) => o.type === 'DOWN_PAYMENT')!;
    expect(down).toMatchObject({ merchant_uid: a.offer('DOWN_PAYMENT'), deposit_percent: 30, max_balance_delay_days: 60, eligible: true });
    const simulated = await a.post(`/api/merchants/${a.offer('DOWN_PAYMENT')}/simulate_payment_schedule`, { amount_cents: 30_000, created: '2026-01-31' });
    expect(down.schedule).toEqual(simulated.json());
    expect(answer.offers.filter((o) => 'deposit_percent' in o || 'max_balance_delay_days' in o).map((o) => o.type)).toEqual(['DOWN_PAYMENT']);
  });

  it("refuses outside the offer's own limits with AMOUNT_TOO_LOW / AMOUNT_TOO_HIGH and no schedule", async () => {
    const low = await one(a, a.offer('INSTALLMENTS', 3), { amount: 4_999 });
    expect([low.eligible, codes(low), low.schedule]).toEqual([false, ['AMOUNT_TOO_LOW'], null]);
    const high = await one(a, a.offer('DEFERRED'), { amount: 150_001 });
    expect([high.eligible, codes(high)]).toEqual([false, ['AMOUNT_TOO_HIGH']]);
  });

  it("applies the account's defaults to every offer and an offer's overrides to it alone; null switches a rule off", async () => {
    const c = await caller(app);
    await setAccountRules(c, { max_amount_cents: 20_000 });
    await setOfferRules(c, c.offer('INSTALLMENTS', 4), { max_amount_cents: 40_000 });
    await setOfferRules(c, c.offer('DEFERRED'), { max_amount_cents: null });
    const answer = await eligibility(c, { amount: 30_000 });
    expect(answer.offers.map((o) => [o.type, o.installments, codes(o)])).toEqual([
      ['SHARED', 1, ['AMOUNT_TOO_HIGH']],
      ['INSTALLMENTS', 3, ['AMOUNT_TOO_HIGH']],
      ['INSTALLMENTS', 4, []],
      ['DEFERRED', 1, []],
      ['DOWN_PAYMENT', 2, ['AMOUNT_TOO_HIGH']],
    ]);
  });

  it('BLOCKED and SCORE_TOO_LOW from the shopper data; the e-mail compared whatever its case', async () => {
    const c = await caller(app);
    await setAccountRules(c, { blocked_emails: ['fraud@example.com'], min_score: 41 });
    const uid = c.offer('INSTALLMENTS', 3);
    expect(codes(await one(c, uid, { amount: 30_000, shopper: { email: 'Fraud@Example.com' } }))).toEqual(['BLOCKED', 'SCORE_TOO_LOW']);
    await setAccountRules(c, { blocked_ip_ranges: ['198.51.100.0/24'] });
    expect(codes(await one(c, uid, { amount: 30_000, shopper: { ip: '198.51.100.9' } }))).toEqual(['BLOCKED']);
    expect(codes(await one(c, uid, { amount: 30_000, shopper: { ip: '198.51.101.9' } }))).toEqual([]);
  });

  it("reads the shopper's history: open plans' outstanding credit, plans per hour, declines, found by e-mail, phone or customer id", async () => {
    const c = await caller(app);
    const uid = c.offer('INSTALLMENTS', 3);
    const shopper = { email: 'ann@example.com', phone: '+33612345678' };
    // One 3x plan paid at checkout: 2 × 100.00 still owed.
    const bought = (await c.post('/api/merchants/v1/purchases', minimalPurchase({ merchant_uid: uid, client: { email: 'ANN@example.com', ref: 'CUST-ANN' } }))).json() as {
      id: string;
    };
    expect((await c.post(`/api/sandbox/purchases/pur_${bought.id}/pay`, { card_number: '4242 4242 4242 4242' })).statusCode).toBe(200);
    // A second plan, under another e-mail but the same phone (a Token API purchase link), whose card was declined.
    const link = await c.post(`/api/merchants/${uid}/purchase_link`, {
      data: { title: 'Bike', amountCents: 30_000, email: 'other@example.com', language: 'en_GB', phoneNumber: '+33612345678' },
    });
    expect(link.statusCode, link.body).toBe(200);
    const declined = (link.json() as { purchase_uid: string }).purchase_uid;
    await c.post(`/api/sandbox/purchases/${declined}/pay`, { card_number: '4000 0000 0000 0002' });

    await setAccountRules(c, { max_outstanding_cents: 40_000, max_plans_per_hour: 3 });
    const byEmail = await eligibility(c, { offers: [uid], amount: 30_000, shopper: { email: shopper.email } });
    expect(codes(byEmail.offers[0]!)).toEqual([]);
    expect(byEmail.score!.reasons).toEqual([
      { code: 'FIRST_PURCHASE', points: -10 },
      { code: 'OUTSTANDING_CREDIT', points: -8 }, // −⌊20 × 20,000 / 50,000⌋
    ]);
    // By e-mail and phone: both plans, the decline, 2 plans this hour (+1 = 3, the limit).
    const both = await eligibility(c, { offers: [uid], amount: 30_003, shopper }); // 2 × 100.01 more: 400.02 owed
    expect(codes(both.offers[0]!)).toEqual(['OUTSTANDING_CREDIT_LIMIT']);
    expect(both.score!.reasons.map((r) => r.code)).toEqual(['FIRST_PURCHASE', 'PAST_DECLINES', 'OUTSTANDING_CREDIT']);
    await setAccountRules(c, { max_plans_per_hour: 2 });
    expect(codes(await one(c, uid, { amount: 30_000, shopper: { customer_id: 'CUST-ANN' } }))).toEqual([]);
    expect(codes(await one(c, uid, { amount: 30_000, shopper }))).toEqual(['VELOCITY_LIMIT']);
    // An allowed shopper is not held by velocity.
    await setAccountRules(c, { max_plans_per_hour: 2, allowed_emails: ['ann@example.com'] });
    expect(codes(await one(c, uid, { amount: 30_000, shopper }))).toEqual([]);
    // Another merchant's history of the same shopper counts for nothing.
    await setAccountRules(b, { max_outstanding_cents: 20_000 });
    expect(codes(await one(b, b.offer('INSTALLMENTS', 3), { amount: 30_000, shopper }))).toEqual([]);
    await setAccountRules(b, {});
  });

  it('another merchant’s offer is a 404, bad input a 406 naming the field', async () => {
    const res = await a.post('/api/merchants/v1/eligibility', { amount: 30_000, offers: [a.offer('SHARED'), b.offer('SHARED')] });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: { code: 'not_found', message: 'offers[1]: offer not found' } });
    for (const [body, field] of [
      [{ amount: 0 }, 'amount'],
      [{ amount: 100, shopper: { email: 'nope' } }, 'shopper.email'],
      [{ amount: 100, shopper: { phone: '0612' } }, 'shopper.phone'],
      [{ amount: 100, shopper: { ip: '999.1.1.1' } }, 'shopper.ip'],
      [{ amount: 100, extra: 1 }, 'extra'],
    ] as const) {
      const bad = await a.post('/api/merchants/v1/eligibility', body);
      expect(bad.statusCode, JSON.stringify(body)).toBe(406);
      expect((bad.json() as { error: { code: string; message: string } }).error.message).toContain(field);
    }
  });
});

describe('the public eligibility call', () => {
  const url = (uid: string) => `/api/users/me/merchants/${uid}/eligibility`;
  const post = (uid: string, body: unknown) =>
    app.server.inject({ method: 'POST', url: url(uid), headers: { 'content-type': 'application/json', origin: 'https://shop.example' }, payload: JSON.stringify(body) });

  it("answers the account of the path's offer, CORS open, history reasons collapsed and no score", async () => {
    const c = await caller(app);
    await setAccountRules(c, { blocked_emails: ['fraud@example.com'], max_amount_cents: 100_000 });
    const res = await post(c.offer('SHARED'), { amount: 120_000, offers: [c.offer('INSTALLMENTS', 3)], shopper: { email: 'fraud@example.com' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const body = res.json() as Answer;
    expect(body.score).toBeUndefined();
    expect(codes(body.offers[0]!)).toEqual(['AMOUNT_TOO_HIGH', 'SHOPPER_NOT_ELIGIBLE']);
    const preflight = await app.server.inject({ method: 'OPTIONS', url: url(c.offer('SHARED')) });
    expect([preflight.statusCode, preflight.headers['access-control-allow-methods']]).toEqual([204, 'POST, OPTIONS']);
  });

  it("another account's offer in `offers` is a 404, an unknown path offer too, bad input a 400", async () => {
    expect((await post(a.offer('SHARED'), { amount: 100, offers: [b.offer('SHARED')] })).statusCode).toBe(404);
    expect((await post('mer_00000000-0000-4000-8000-000000000000', { amount: 100 })).statusCode).toBe(404);
    const bad = await post(a.offer('SHARED'), { amount: 'x' });
    expect(bad.statusCode).toBe(400);
    expect((bad.json() as { error: { app_error: string } }).error.app_error).toBe('invalid_request');
  });
});

describe('the risk rules in the back-office API', () => {
  it('reads the built-in defaults, the account’s, and per offer its overrides and the rules in effect', async () => {
    const c = await caller(app);
    await setAccountRules(c, { min_score: 30, card_countries: ['fr'] });
    await setOfferRules(c, c.offer('DEFERRED'), { min_score: null, max_plans_per_day: 2 });
    const res = await inject('GET', '/api/backoffice/risk_rules', c.dashboard);
    expect(res.statusCode).toBe(200);
    const view = res.json() as { built_in: unknown; account: unknown; offers: { merchant_uid: string; overrides: unknown; effective: unknown }[] };
    expect(view.built_in).toEqual({ refuse_prepaid_cards: true, card_must_outlast_plan: true });
    expect(view.account).toEqual({ min_score: 30, card_countries: ['FR'] });
    const deferred = view.offers.find((o) => o.merchant_uid === c.offer('DEFERRED'))!;
    expect(deferred.overrides).toEqual({ min_score: null, max_plans_per_day: 2 });
    expect(deferred.effective).toEqual({ refuse_prepaid_cards: true, card_must_outlast_plan: true, card_countries: ['FR'], max_plans_per_day: 2 });
  });

  it('audits each change, rule by rule from → to, in the same transaction; an unchanged body writes nothing', async () => {
    const c = await caller(app);
    await setAccountRules(c, { min_score: 30 });
    await setAccountRules(c, { min_score: 35, blocked_emails: ['x@example.com'] });
    await setAccountRules(c, { min_score: 35, blocked_emails: ['x@example.com'] });
    await setOfferRules(c, c.offer('SHARED'), { min_score: null });
    const { rows } = await app.services.db.query<{ actor: string; subject: string; details: unknown }>(
      "SELECT actor, subject, details FROM audit_log WHERE account_id = $1 AND action = 'risk_rules_update' ORDER BY created_at, id",
      [c.accountId],
    );
    const entries = rows.map((r) => ({ ...r, details: typeof r.details === 'string' ? (JSON.parse(r.details) as unknown) : r.details }));
    expect(entries).toHaveLength(3);
    expect(entries[0]).toEqual({ actor: c.merchant.email, subject: `acc_${c.accountId}`, details: { min_score: { from: null, to: 30 } } });
    expect(entries[1]!.details).toEqual({ min_score: { from: 30, to: 35 }, blocked_emails: { from: null, to: ['x@example.com'] } });
    expect(entries[2]).toMatchObject({ subject: c.offer('SHARED'), details: { min_score: { from: null, to: 'off' } } });
  });

  it('refuses an unknown rule or a bad value naming the field, and changes nothing', async () => {
    const c = await caller(app);
    for (const [body, field] of [
      [{ max_score: 1 }, 'max_score'],
      [{ min_score: 101 }, 'min_score'],
      [{ blocked_ip_ranges: ['10.0.0.0/40'] }, 'blocked_ip_ranges'],
      [{ blocked_emails: ['not-an-email'] }, 'blocked_emails'],
      [{ min_amount_cents: 10, max_amount_cents: 5 }, 'min_amount_cents'],
    ] as const) {
      const res = await inject('PUT', '/api/backoffice/risk_rules/account', c.dashboard, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect((res.json() as { error: { debug: string } }).error.debug).toContain(field);
    }
    expect(((await inject('GET', '/api/backoffice/risk_rules', c.dashboard)).json() as { account: unknown }).account).toEqual({});
  });

  it("another merchant's offer is a 404", async () => {
    const res = await inject('PUT', `/api/backoffice/risk_rules/offers/${b.offer('SHARED')}`, a.dashboard, { min_score: 10 });
    expect(res.statusCode).toBe(404);
  });
});
