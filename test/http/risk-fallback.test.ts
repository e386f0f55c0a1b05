/**
 * The fallback after a risk refusal (docs/risk.md#the-fallback): the rule `fallback_offers`
 * checked as the account's offers, the refused checkout proposing only the fallbacks the rules
 * accept for the same amount, shopper and card, and `POST /pay/{uid}/switch` moving the purchase
 * to one of them (CSRF, CREATED only, listed only, the purchase's account only); the offer fixed
 * once the leader's attempt started, on either side of the race (test/use-cases/offer-switch-race.test.ts
 * forces every interleaving).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { onPostgres, startTestApp, type TestApp } from '../helpers/app.ts';
import { switchOffer } from '../../src/use-cases/checkout/switch-offer.ts';
import type { Sql } from '../../src/db/database.ts';
import { planLeaderPayment } from '../../src/domain/leader-plan.ts';
import { decidePaymentRisk, fallbackCandidates } from '../../src/use-cases/risk/payment-risk.ts';

let app: TestApp;
let a: Caller;
let b: Caller;
beforeAll(async () => {
  // No background job polling: the races below swap the payment deps' database for one call, and a
  // job handler (they run on the same deps) taking the swapped handle first would switch the offer
  // before the payment read it, a race the test does not mean (docs/testing.md#known-flakes).
  app = await startTestApp({ jobPollIntervalMs: 0 });
  [a, b] = await twoMerchants(app);
});
afterAll(() => app?.close());

const PREPAID = '5105+1051+0510+5100';
const CREDIT = '4242+4242+4242+4242';

const putRules = (c: Caller, target: string, rules: unknown) =>
  app.server.inject({
    method: 'PUT',
    url: `/api/backoffice/risk_rules/${target}`,
    headers: { authorization: c.dashboard, 'content-type': 'application/json' },
    payload: JSON.stringify(rules),
  });

function cookieAndToken(res: { headers: Record<string, unknown>; body: string }) {
  const cookie = String(res.headers['set-cookie']).split(';')[0]!;
  const token = /name="csrf" value="([^"]+)"/.exec(res.body)![1]!;
  return { cookie, token };
}

const form = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([k, v]) => `${k}=${k === 'card_number' ? v : encodeURIComponent(v)}`)
    .join('&');

/** A purchase on `offer`, its checkout page opened: the path, the cookie and the form's token. */
async function opened(c: Caller, offer: string, over: Record<string, unknown> = {}) {
  const p = (await c.post('/api/merchants/v1/purchases', minimalPurchase({ merchant_uid: offer, ...over }))).json();
  const path = new URL(p.payment_url).pathname;
  return { id: p.id as string, path, ...cookieAndToken(await app.server.inject(path)) };
}

const pay = (o: { path: string; cookie: string; token: string }, number: string, query = '') =>
  app.server.inject({
    method: 'POST',
    url: `${o.path}${query}`,
    headers: { cookie: o.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: form({ csrf: o.token, holder_name: 'Léa', card_number: number, card_expiry: '12/30', card_cvc: '123' }),
  });

const switchTo = (o: { path: string; cookie: string; token: string }, offer: string, query = '', token = o.token) =>
  app.server.inject({
    method: 'POST',
    url: `${o.path}/switch${query}`,
    headers: { cookie: o.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: form({ csrf: token, offer }),
  });

const offerOf = async (id: string) => (await app.services.db.query<{ offer_id: string }>('SELECT offer_id FROM purchases WHERE id = $1', [id])).rows[0]!.offer_id;

describe(`the fallback after a risk refusal (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('the rule fallback_offers takes only other offers of the account, at most 10, naming the field otherwise', async () => {
    const four = a.offer('INSTALLMENTS', 4);
    const ok = await putRules(a, `offers/${four}`, { fallback_offers: [a.offer('SHARED'), a.offer('INSTALLMENTS', 3).toUpperCase().replace('MER_', 'mer_')] });
    expect(ok.statusCode, ok.body).toBe(200);
    const mine = (ok.json() as { offers: { merchant_uid: string; overrides: Record<string, unknown> }[] }).offers.find((o) => o.merchant_uid === four)!;
    expect(mine.overrides.fallback_offers).toEqual([a.offer('SHARED'), a.offer('INSTALLMENTS', 3)]); // normalised lower-case
    for (const [rules, words] of [
      [{ fallback_offers: ['nope'] }, 'field rules.fallback_offers [0] must be an offer id'],
      [{ fallback_offers: [a.offer('SHARED'), b.offer('SHARED')] }, 'field rules.fallback_offers [1] must be another offer (mer_…) of this account'],
      [{ fallback_offers: [four] }, 'field rules.fallback_offers [0] must be another offer'],
      [{ fallback_offers: Array.from({ length: 11 }, () => a.offer('SHARED')) }, 'fallback_offers must NOT have more than 10 items'],
    ] as const) {
      const res = await putRules(a, `offers/${four}`, rules);
      expect(res.statusCode, JSON.stringify(rules)).toBe(400);
      expect(res.body).toContain(words);
    }
    const account = await putRules(a, 'account', { fallback_offers: [b.offer('DEFERRED')] });
    expect(account.statusCode).toBe(400);
    expect(account.body).toContain('rules.fallback_offers');
    await putRules(a, `offers/${four}`, {});
  });

  it('a refused checkout proposes the fallbacks the rules accept for this card, in order, and says nothing was charged', async () => {
    const c = await caller(app);
    const four = c.offer('INSTALLMENTS', 4);
    // 3x refuses prepaid cards as 4x does (the built-in rule): only the pot, paid in full now, is proposed.
    expect((await putRules(c, `offers/${four}`, { fallback_offers: [c.offer('INSTALLMENTS', 3), c.offer('SHARED')] })).statusCode).toBe(200);
    const o = await opened(c, four, { language: 'fr_FR' });
    const res = await pay(o, PREPAID);
    expect(res.statusCode).toBe(402);
    expect(res.body).toContain('Rien n’a été débité');
    expect(res.body).toMatch(/Payer 300,00\s€ maintenant/);
    expect(res.body).toContain(`value="${c.offer('SHARED')}"`);
    expect(res.body).not.toContain(`value="${c.offer('INSTALLMENTS', 3)}"`);
    expect(res.body).toContain(`action="/pay/pur_${o.id}/switch"`);
    // With a card 3x accepts, a refusal of another rule proposes both, 3x first.
    const d = await caller(app);
    await putRules(d, `offers/${d.offer('INSTALLMENTS', 4)}`, { card_countries: ['DE'], fallback_offers: [d.offer('INSTALLMENTS', 3), d.offer('SHARED')] });
    const en = await opened(d, d.offer('INSTALLMENTS', 4));
    const refused = await pay(en, CREDIT);
    expect(refused.statusCode).toBe(402);
    const buttons = [...refused.body.matchAll(/data-fallback="(mer_[^"]+)">([^<]+)</g)].map((m) => [m[1], m[2]]);
    expect(buttons).toEqual([
      [d.offer('INSTALLMENTS', 3), expect.stringMatching(/^Pay in 3 installments/)],
      [d.offer('SHARED'), expect.stringMatching(/^Pay €300\.00 now$/)],
    ]);
  });

  it('the switch moves the purchase to the fallback, records purchase.offer_changed, and the new checkout pays', async () => {
    const c = await caller(app);
    const four = c.offer('INSTALLMENTS', 4);
    await putRules(c, `offers/${four}`, { fallback_offers: [c.offer('SHARED')] });
    const o = await opened(c, four);
    expect((await pay(o, PREPAID, '?embed=1&lang=fr')).statusCode).toBe(402);
    const res = await switchTo(o, c.offer('SHARED'), '?embed=1&lang=fr');
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toBe(`/pay/pur_${o.id}?embed=1&lang=fr`);
    expect(await offerOf(o.id)).toBe(c.offer('SHARED').slice(4));
    const { rows } = await app.services.db.query<{ type: string; data: unknown }>(
      "SELECT type, data FROM purchase_events WHERE purchase_id = $1 AND type = 'purchase.offer_changed'",
      [o.id],
    );
    expect(rows.map((r) => [r.type, typeof r.data === 'string' ? JSON.parse(r.data) : r.data])).toEqual([['purchase.offer_changed', { from: four, to: c.offer('SHARED') }]]);
    const again = { ...o, ...cookieAndToken(await app.server.inject(o.path)) };
    expect((await pay(again, CREDIT)).statusCode).toBe(303);
    const purchase = (await c.get(`/api/merchants/v1/purchases/${o.id}`)).json();
    expect(purchase.state).toBe('SUCCESSFUL');
    expect(purchase.merchant_uid ?? c.offer('SHARED')).toBe(c.offer('SHARED'));
  });

  it('refuses a switch without the CSRF token, to an offer not listed, or once the purchase is no longer CREATED; a 404 for an unknown purchase', async () => {
    const c = await caller(app);
    const four = c.offer('INSTALLMENTS', 4);
    await putRules(c, `offers/${four}`, { fallback_offers: [c.offer('SHARED')] });
    const o = await opened(c, four);
    const forged = await switchTo(o, c.offer('SHARED'), '', 'forged');
    expect(forged.statusCode).toBe(403);
    const notListed = await switchTo(o, c.offer('DEFERRED'));
    expect(notListed.statusCode).toBe(409);
    expect(notListed.body).toContain('not offered for this purchase');
    expect(notListed.body).toContain('id="error-summary"');
    const otherAccount = await switchTo(o, b.offer('SHARED'));
    expect(otherAccount.statusCode).toBe(409);
    const malformed = await switchTo(o, 'nope');
    expect(malformed.statusCode).toBe(409);
    expect(await offerOf(o.id)).toBe(four.slice(4));

    const paid = await opened(c, c.offer('SHARED'));
    await putRules(c, `offers/${c.offer('SHARED')}`, { fallback_offers: [c.offer('INSTALLMENTS', 3)] });
    expect((await pay(paid, CREDIT)).statusCode).toBe(303);
    const late = await switchTo(paid, c.offer('INSTALLMENTS', 3));
    expect(late.statusCode).toBe(409);
    expect(await offerOf(paid.id)).toBe(c.offer('SHARED').slice(4));

    const unknown = await app.server.inject({
      method: 'POST',
      url: '/pay/pur_00000000-0000-4000-8000-000000000000/switch',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'offer=x',
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('an attempt awaiting 3-D Secure fixes the offer: the switch answers 409 and keeps it, then switches once the attempt was refused', async () => {
    const c = await caller(app);
    const four = c.offer('INSTALLMENTS', 4);
    await putRules(c, `offers/${four}`, { fallback_offers: [c.offer('SHARED')] });
    const o = await opened(c, four, { language: 'fr_FR' });
    expect((await pay(o, PREPAID)).statusCode).toBe(402);
    const again = { ...o, ...cookieAndToken(await app.server.inject(o.path)) };
    const challenged = await pay(again, '4000+0000+0000+3220');
    expect(challenged.statusCode).toBe(303);
    const busy = await switchTo(again, c.offer('SHARED'));
    expect(busy.statusCode).toBe(409);
    expect(busy.body).toContain('Un paiement est déjà en cours pour cet achat');
    expect(busy.body).toContain('id="error-summary"');
    expect(await offerOf(o.id)).toBe(four.slice(4));
    // The shopper fails the challenge and comes back: the attempt is refused, the fallback open again.
    const challenge = new URL(String(challenged.headers.location));
    const page = await app.server.inject(challenge.pathname + challenge.search);
    const token = /name="token" value="([^"]+)"/.exec(page.body)![1]!;
    const answered = await app.server.inject({
      method: 'POST',
      url: challenge.pathname + challenge.search,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ outcome: 'fail', token }).toString(),
    });
    const back = new URL(String(answered.headers.location), 'http://127.0.0.1');
    expect((await app.server.inject(back.pathname + back.search)).statusCode).toBe(402);
    const switched = await switchTo(again, c.offer('SHARED'));
    expect(switched.statusCode, switched.body).toBe(303);
    expect(await offerOf(o.id)).toBe(c.offer('SHARED').slice(4));
  });

  /**
   * Runs `paying` while the fallback's button, in another tab, lands just before the payment reserves
   * its attempt (its first transaction): the payment read the refused offer, the purchase is then
   * on the fallback. Answers the payment's response and the switch's outcome.
   */
  async function switchedBeforeTheAttempt<T>(accountId: string, purchaseId: string, to: string, paying: () => Promise<T>): Promise<[T, unknown]> {
    const deps = app.services.payments;
    const real = deps.db;
    let switched: unknown;
    deps.db = new Proxy(real, {
      get(target, prop) {
        if (prop === 'transaction')
          return async (fn: Parameters<typeof real.transaction>[0]) => {
            switched ??= await switchOffer(app.services, accountId, purchaseId, to);
            return target.transaction(fn);
          };
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    try {
      return [await paying(), switched];
    } finally {
      deps.db = real;
    }
  }

  const statuses = async (id: string) => (await app.services.db.query<{ status: string }>('SELECT status FROM payments WHERE purchase_id = $1', [id])).rows.map((r) => r.status);

  it("a switch made between the page's payment reading the offer and its attempt: nothing charged, 409 with the new offer's checkout", async () => {
    const c = await caller(app);
    const four = c.offer('INSTALLMENTS', 4);
    await putRules(c, `offers/${four}`, { fallback_offers: [c.offer('SHARED')] });
    const o = await opened(c, four);
    expect((await pay(o, PREPAID)).statusCode).toBe(402);
    const again = { ...o, ...cookieAndToken(await app.server.inject(o.path)) };
    const [res, switched] = await switchedBeforeTheAttempt(c.accountId, o.id, c.offer('SHARED'), () => pay(again, CREDIT));
    expect(switched).toMatchObject({ kind: 'switched' });
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('The way of paying for this purchase has just changed. Nothing was charged');
    expect(res.body).toContain('id="friends"'); // the pot's checkout, to be paid on its own terms
    expect(await statuses(o.id)).toEqual(['declined']); // the refused attempt only
  });

  it('a page opened on one offer and paid after a switch made in another tab: nothing charged, 409 with the new offer', async () => {
    const c = await caller(app);
    const four = c.offer('INSTALLMENTS', 4);
    await putRules(c, `offers/${four}`, { fallback_offers: [c.offer('SHARED')] });
    const o = await opened(c, four);
    const refused = await pay(o, PREPAID);
    expect(refused.statusCode).toBe(402);
    // The refused page's form names the offer it shows.
    expect(refused.body).toContain(`<input type="hidden" name="offer" value="${four}">`);
    const shown = { ...o, token: /name="csrf" value="([^"]+)"/.exec(refused.body)![1]! };
    expect((await switchTo(shown, c.offer('SHARED'))).statusCode).toBe(303);
    // The old tab's form, on the 4x offer's terms, posted after the switch.
    const res = await app.server.inject({
      method: 'POST',
      url: o.path,
      headers: { cookie: shown.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ csrf: shown.token, offer: four, holder_name: 'Léa', card_number: CREDIT, card_expiry: '12/30', card_cvc: '123' }),
    });
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('The way of paying for this purchase has just changed. Nothing was charged');
    expect(await statuses(o.id)).toEqual(['declined']);
  });

  it('the same race through the sandbox helper answers 409 operation_in_progress, nothing charged', async () => {
    const c = await caller(app);
    const four = c.offer('INSTALLMENTS', 4);
    await putRules(c, `offers/${four}`, { fallback_offers: [c.offer('SHARED')] });
    const o = await opened(c, four);
    expect((await pay(o, PREPAID)).statusCode).toBe(402);
    const [res] = await switchedBeforeTheAttempt(c.accountId, o.id, c.offer('SHARED'), () =>
      c.post(`/api/sandbox/purchases/pur_${o.id}/pay`, { card_number: '4242 4242 4242 4242' }),
    );
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ app_error: 'operation_in_progress', debug: expect.stringContaining('nothing was charged') });
    expect(await statuses(o.id)).toEqual(['declined']);
    expect((await c.post(`/api/sandbox/purchases/pur_${o.id}/pay`, { card_number: '4242 4242 4242 4242' })).json().state).toBe('SUCCESSFUL');
  });

  it("switchOffer finds no purchase of another account, and refuses an amount outside the target offer's limits", async () => {
    const c = await caller(app);
    const four = c.offer('INSTALLMENTS', 4);
    await putRules(c, `offers/${four}`, { fallback_offers: [c.offer('DEFERRED')] });
    const o = await opened(c, four, { amount: 160_000 });
    expect(await switchOffer(app.services, b.accountId, o.id, c.offer('DEFERRED'))).toEqual({ kind: 'not_found' });
    // The default offers: DEFERRED takes at most 1,500.00.
    expect(await switchOffer(app.services, c.accountId, o.id, c.offer('DEFERRED'))).toEqual({ kind: 'refused', refusal: { code: 'amount' } });
    const page = await switchTo(o, c.offer('DEFERRED'));
    expect(page.statusCode).toBe(409);
    expect(page.body).toContain('cannot take the amount');
  });

  it("decides the fallbacks on the one history read of the refused decision: the shopper's history function is called once", async () => {
    const c = await caller(app);
    const four = c.offer('INSTALLMENTS', 4);
    await putRules(c, `offers/${four}`, { fallback_offers: [c.offer('INSTALLMENTS', 3), c.offer('DEFERRED'), c.offer('SHARED')] });
    const o = await opened(c, four);
    const services = app.services;
    const offer = (await services.offers.byId(c.accountId, four.slice(4)))!;
    const stored = await services.riskRules.rules(c.accountId);
    const created = new Date();
    const plan = planLeaderPayment(offer, 30_000, [], created);
    if ('problem' in plan) throw new Error(plan.problem.code);
    const candidates = await fallbackCandidates((acc, id) => services.offers.byId(acc, id), stored, offer, { amountCents: 30_000, currency: 'EUR', createdAt: created });
    expect(candidates.map((f) => f.offer.type)).toEqual(['INSTALLMENTS', 'DEFERRED', 'SHARED']);
    const statements: string[] = [];
    const verdict = await services.db.transaction((tx) => {
      const counting: Sql = {
        query: (text, params, options) => (statements.push(text), tx.query(text, params, options)),
        exec: (script) => tx.exec(script),
        notify: (ch) => tx.notify(ch),
      };
      return decidePaymentRisk(counting, services.payments.risk, services.clock, {
        purpose: 'leader',
        accountId: c.accountId,
        purchaseId: o.id,
        offer,
        amountCents: 30_000,
        schedule: plan.schedule!,
        created: created.toISOString().slice(0, 10),
        shopper: { email: 'leader@example.com' },
        card: { bin: '510510', last4: '5100', brand: 'mastercard', funding: 'prepaid', expMonth: 12, expYear: 2030, fingerprint: 'cfp_test' },
        paymentId: null,
        pledgeId: null,
        stored,
        hook: undefined,
        fallbacks: candidates,
      });
    });
    expect(verdict.accepted).toBe(false);
    expect(verdict.reasons.map((r) => r.code)).toEqual(['CARD_PREPAID']);
    // Prepaid refuses every credit plan: only the pot, paid in full now.
    expect(verdict.fallbacks.map((f) => f.type)).toEqual(['SHARED']);
    expect(statements.filter((q) => q.includes('chipin_shopper_history'))).toHaveLength(1);
  });
});
