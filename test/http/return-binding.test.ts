/**
 * Every return from 3-D Secure is bound to its own purchase, pledge or shopper
 * (docs/security.md#returns-and-ids): the leader's `/pay/{purchase_uid}/return?payment=…`, the
 * pledger's `/pledge/{pledge_uid}/return?payment=…` and the space's
 * `/space/purchases/{purchase_uid}/payments/{payment_id}/return` find the payment by the
 * purchase (or pledge) AND its id. Another object's payment of the same merchant — another
 * purchase's leader payment, another pledge's, another shopper's card change or repayment — is
 * the page's 404, as an unknown id is: never resolved, before the other shopper answers the
 * 3-D Secure challenge (their challenge is not handed out) and after (their payment is not
 * completed through this link). Nothing moves: payments, purchases, pledges, events and the
 * sandbox PSP's transactions are as they were.
 *
 * And a malformed payment id (36 dashes, 36 × `f`, …) is that 404 too, never a 500.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shopperSessions } from '../../src/http/routes/shopper-space/guard.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { form } from '../helpers/dashboard.ts';
import { answerChallenge, CARDS, newShop, type Shop } from '../use-cases/support.ts';

let app: TestApp;
let shop: Shop;

/** A signed-in shopper's browser (the session made as the sign-in makes it). */
async function signedIn(email: string) {
  const { token, session } = await shopperSessions(app.services).create({ kind: 'email', value: email });
  const cookie = `chipin_space=${token}`;
  return {
    post: (url: string, fields: Record<string, string>) =>
      app.server.inject({
        method: 'POST',
        url,
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
        payload: form({ csrf: session.csrf, ...fields }),
      }),
    get: (url: string) => app.server.inject({ method: 'GET', url, headers: { cookie } }),
  };
}
type Browser = Awaited<ReturnType<typeof signedIn>>;

const paymentOf = async (purchaseId: string, where: string) =>
  (await app.services.db.query<{ id: string }>(`SELECT id FROM payments WHERE purchase_id = $1 AND ${where} ORDER BY created_at DESC LIMIT 1`, [purchaseId])).rows[0]!.id;

/** A 3x plan of `email`'s, paid by its leader with `number` (a 3-D Secure checkout answered and resumed through its own return). */
async function paidPlan(email: string, number: string): Promise<{ id: string; uid: string }> {
  const id = await shop.purchase({ merchant_uid: shop.offer('INSTALLMENTS', 3).merchant_uid, amount: 30_000, client: { email } });
  const paid = await shop.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: number });
  if (paid.statusCode === 202) {
    await answerChallenge(app, paid.json().challenge_url as string, 'complete');
    const own = await app.server.inject(`/pay/pur_${id}/return?payment=${await paymentOf(id, 'true')}`);
    expect(own.statusCode, own.body).toBe(303);
  } else expect(paid.statusCode, paid.body).toBe(200);
  return { id, uid: `pur_${id}` };
}

/** What "nothing moved" compares: every row a return could write, and the sandbox PSP's transactions. */
async function everything(): Promise<unknown> {
  const q = async (sql: string) => (await app.services.db.query(sql)).rows;
  return {
    payments: await q('SELECT id, status, captured_cents, refunded_cents, decline_reason, psp_transaction_id, updated_at FROM payments ORDER BY id'),
    purchases: await q('SELECT id, state, payment_method_id, guarantee_payment_id, updated_at FROM purchases ORDER BY id'),
    pledges: await q('SELECT id, state, payment_id, updated_at FROM pledges ORDER BY id'),
    installments: await q('SELECT id, state, payment_id, shopper_payment_id FROM installments ORDER BY id'),
    events: await q('SELECT count(*)::int AS n FROM purchase_events'),
    psp: await q('SELECT id, status, captured_cents FROM sandbox_psp_transactions ORDER BY id'),
  };
}

/** The victims: four payments of this merchant left in 3-D Secure, each another's. */
interface Victim {
  what: string;
  paymentId: string;
  challengeUrl: string;
}
let victims: Victim[];
/** The attacker's own objects, whose return routes are tried with the victims' payments. */
let attackerPurchase: string;
let attackerPledge: string;
let mallory: Browser;
let malloryPlan: string;
/** The three return routes, for a payment id (and its path spelling for the space's). */
let routes: { name: string; url: (payment: string) => string; get: (url: string) => Promise<LightMyRequestResponse> }[];

beforeAll(async () => {
  app = await startTestApp();
  shop = await newShop(app);

  // Another purchase's leader, in 3-D Secure at checkout.
  const x = await shop.purchase({ client: { email: 'xavier@example.com' }, callback_url: 'https://shop.example/done' });
  const led = await shop.post(`/api/sandbox/purchases/pur_${x}/pay`, { card_number: CARDS.challenge });
  expect(led.statusCode, led.body).toBe(202);
  const leaderVictim = { what: "another purchase's leader payment", paymentId: await paymentOf(x, 'true'), challengeUrl: led.json().challenge_url as string };

  // A pot of two friends: Ann pays her share in 3-D Secure; Bob's pledge is the attacker's page.
  const pot = await shop.purchase({ amount: 30_000, client: { email: 'leo@example.com' } });
  const potPaid = await shop.post(`/api/sandbox/purchases/pur_${pot}/pay`, {
    card_number: CARDS.ok,
    pledgers: [
      { email: 'ann@example.com', amount_cents: 10_000 },
      { email: 'bob@example.com', amount_cents: 10_000 },
    ],
  });
  expect(potPaid.statusCode, potPaid.body).toBe(200);
  const [ann, bob] = potPaid.json().pledges as { id: string }[];
  const annPays = await shop.post(`/api/sandbox/pledges/${ann!.id}/pay`, { card_number: CARDS.challenge });
  expect(annPays.statusCode, annPays.body).toBe(202);
  const pledgeVictim = {
    what: "another pledge's payment",
    paymentId: await paymentOf(pot, "pledge_id IS NOT NULL AND purpose <> 'guarantee'"),
    challengeUrl: annPays.json().challenge_url,
  };
  attackerPledge = bob!.id;

  // Another shopper's card change, in 3-D Secure.
  const eve = await paidPlan('eve@example.com', CARDS.ok);
  const eveBrowser = await signedIn('eve@example.com');
  const change = await eveBrowser.post(`/space/purchases/${eve.uid}/card`, { holder_name: 'Eve', card_number: CARDS.challenge, card_expiry: '12/39', card_cvc: '123' });
  expect(change.statusCode).toBe(303);
  expect(change.headers.location).not.toMatch(/^\/space/);
  const cardVictim = { what: "another shopper's card change", paymentId: await paymentOf(eve.id, "purpose = 'card_check'"), challengeUrl: change.headers.location as string };

  // Another shopper's early repayment, in 3-D Secure (her card asks for it).
  const fay = await paidPlan('fay@example.com', CARDS.challenge);
  const repay = await (await signedIn('fay@example.com')).post(`/space/purchases/${fay.uid}/repay`, {});
  expect(repay.statusCode).toBe(303);
  expect(repay.headers.location).not.toMatch(/^\/space/);
  const repayVictim = {
    what: "another shopper's repayment",
    paymentId: await paymentOf(fay.id, "idempotency_key LIKE '%:repay:%'"),
    challengeUrl: repay.headers.location as string,
  };

  victims = [leaderVictim, pledgeVictim, cardVictim, repayVictim];

  // The attacker: a purchase of the same merchant not paid yet (with a callback to be sent to),
  // Bob's pledge, and Mallory's own plan in her space.
  attackerPurchase = await shop.purchase({ client: { email: 'mallory@example.com' }, callback_url: 'https://shop.example/done' });
  malloryPlan = (await paidPlan('mallory@example.com', CARDS.ok)).uid;
  mallory = await signedIn('mallory@example.com');
  const inject = (url: string) => app.server.inject(url);
  routes = [
    { name: 'leader', url: (p) => `/pay/pur_${attackerPurchase}/return?payment=${p}`, get: inject },
    { name: 'pledge', url: (p) => `/pledge/${attackerPledge}/return?payment=${p}&lang=en`, get: inject },
    { name: 'space', url: (p) => `/space/purchases/${malloryPlan}/payments/${p}/return`, get: (url) => mallory.get(url) },
  ];
}, 120_000);
afterAll(() => app.close());

/** The page's 404, as an unknown id gets: no redirect, no challenge. */
function expectNotFound(res: LightMyRequestResponse, label: string): void {
  expect(res.statusCode, `${label}: ${res.headers.location ?? res.body.slice(0, 200)}`).toBe(404);
  expect(res.headers['content-type'], label).toMatch(/^text\/html/);
  expect(res.headers.location, label).toBeUndefined();
  expect(res.body, label).not.toMatch(/sandbox-psp\/challenge|psp-challenge/);
}

const ROUTES = ['leader', 'pledge', 'space'] as const;
const routeNamed = (name: (typeof ROUTES)[number]) => routes.find((r) => r.name === name)!;

/** Each victim's payment on this route, and an unknown id: the page's 404 every time, nothing moved. */
async function tryEveryForeignPayment(name: (typeof ROUTES)[number], when: string): Promise<void> {
  const route = routeNamed(name);
  const before = await everything();
  const tries = [...victims, { what: 'an unknown payment', paymentId: '00000000-0000-4000-8000-000000000000' }];
  const answers: [string, LightMyRequestResponse][] = [];
  for (const t of tries) answers.push([t.what, await route.get(route.url(t.paymentId))]);
  // Every answer at once (status and where it sends the shopper), so that a failure shows them all.
  expect(Object.fromEntries(answers.map(([what, res]) => [what, `${res.statusCode} ${res.headers.location ?? ''}`.trim()])), `${when}, ${name} return`).toEqual(
    Object.fromEntries(tries.map((t) => [t.what, '404'])),
  );
  for (const [what, res] of answers) expectNotFound(res, `${when}, ${name} return with ${what}`);
  expect(await everything(), `${when}: the ${name} return with another's payment changed something`).toEqual(before);
}

describe("a return resolves only its own purchase's, pledge's or shopper's payment", () => {
  describe("before the other shoppers answer 3-D Secure: the page's 404, their challenge not handed out, nothing moved", () => {
    it.each(ROUTES)('the %s return', (name) => tryEveryForeignPayment(name, 'before 3-D Secure'));
  });

  describe("after the other shoppers answered 3-D Secure: the page's 404, their payment not completed through it, nothing moved", () => {
    beforeAll(async () => {
      for (const v of victims) await answerChallenge(app, new URL(v.challengeUrl, 'http://127.0.0.1').toString(), 'complete');
    });
    it.each(ROUTES)('the %s return', (name) => tryEveryForeignPayment(name, 'after 3-D Secure'));
    it("leaves each payment to its own return: still awaiting 3-D Secure on Chipin's side, the attacker's purchase unpaid", async () => {
      const { rows } = await app.services.db.query<{ status: string }>('SELECT status FROM payments WHERE id = ANY($1::uuid[])', [victims.map((v) => v.paymentId)]);
      expect(rows.map((r) => r.status)).toEqual(['requires_action', 'requires_action', 'requires_action', 'requires_action']);
      expect((await shop.get(`/api/merchants/v1/purchases/${attackerPurchase}`)).json().state).toBe('INITIALIZED');
    });
  });

  it("an issuer's form POST to a return with another's payment is the page's 404 with its fields (never handed to the PSP), and a redirect to the GET that refuses the same without", async () => {
    const before = await everything();
    for (const path of [`/pay/pur_${attackerPurchase}/return`, `/pledge/${attackerPledge}/return`]) {
      const post = (payload: string) =>
        app.server.inject({ method: 'POST', url: `${path}?payment=${victims[0]!.paymentId}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload });
      expectNotFound(await post('PaRes=x&MD=1'), `${path}, a POST with fields`);
      // A 3-D Secure 1 PaRes runs past the hosted forms' 8 KiB: the return takes it.
      expectNotFound(await post(`PaRes=${'A'.repeat(20_000)}&MD=1`), `${path}, a POST with a 20 kB PaRes`);
      const bare = await post('');
      expect(bare.statusCode).toBe(303);
      expectNotFound(await app.server.inject(bare.headers.location as string), `${path} after the POST`);
    }
    expect(await everything()).toEqual(before);
  });
});

describe("a malformed payment id is the return page's 404, never a 500", () => {
  const MALFORMED = [
    '-'.repeat(36),
    'f'.repeat(36),
    'F'.repeat(36),
    '0'.repeat(36),
    `${'-'.repeat(8)}-${'f'.repeat(27)}`,
    'ffffffff-ffff-ffff-ffff-fffffffffff-',
    'gggggggg-gggg-4ggg-8ggg-gggggggggggg',
    '..%2F..%2F',
    '%C3%A9'.repeat(36),
    '',
  ];
  it.each(MALFORMED)('payment=%s', async (bad) => {
    const before = await everything();
    for (const route of routes) {
      if (route.name === 'space' && bad === '') continue; // an empty path segment is another route
      const res = await route.get(route.url(bad));
      expect(res.statusCode, `${route.name}: ${res.body.slice(0, 200)}`).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    }
    expect(await everything()).toEqual(before);
  });
});

describe('each return still resolves its own payment', () => {
  it("the leader's, the pledger's and the shopper's own returns complete what 3-D Secure authorised", async () => {
    const [leader, pledge, card, repay] = victims as [Victim, Victim, Victim, Victim];
    const pay = async (id: string) =>
      (await app.services.db.query<{ purchase_id: string; pledge_id: string | null }>('SELECT purchase_id, pledge_id FROM payments WHERE id = $1', [id])).rows[0]!;
    const x = (await pay(leader.paymentId)).purchase_id;
    const own = await app.server.inject(`/pay/pur_${x}/return?payment=${leader.paymentId}`);
    expect(own.statusCode).toBe(303);
    expect(own.headers.location).toMatch(new RegExp(`^https://shop\\.example/done\\?purchase_uid=pur_${x}&state=SUCCESSFUL&result=`));
    const ann = (await pay(pledge.paymentId)).pledge_id!;
    const ownPledge = await app.server.inject(`/pledge/plg_${ann}/return?payment=${pledge.paymentId}`);
    expect(ownPledge.statusCode).toBe(303);
    expect((await app.services.db.query<{ state: string }>('SELECT state FROM pledges WHERE id = $1', [ann])).rows[0]!.state).toBe('paid');
    const eve = await signedIn('eve@example.com');
    const eveUid = `pur_${(await pay(card.paymentId)).purchase_id}`;
    expect((await eve.get(`/space/purchases/${eveUid}/payments/${card.paymentId}/return`)).headers.location).toBe(`/space/purchases/${eveUid}?done=card_changed`);
    const fay = await signedIn('fay@example.com');
    const fayUid = `pur_${(await pay(repay.paymentId)).purchase_id}`;
    expect((await fay.get(`/space/purchases/${fayUid}/payments/${repay.paymentId}/return`)).headers.location).toBe(`/space/purchases/${fayUid}?done=paid`);
  });
});
