/**
 * Paying from the shopper's space through HTTP (docs/shopper-space.md#paying-from-the-space): a
 * refused installment now, the rest early, a new card, each a form post with the session's CSRF
 * token, answered by a 303 back to the purchase; only the purchase's leader may, another shopper
 * gets 404. The money itself is checked at the sandbox PSP in test/use-cases/shopper-pay.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduledInstallments } from '../../src/payments/installment-repository.ts';
import { shopperSessions } from '../../src/http/routes/shopper-space/guard.ts';
import { collectInstallment } from '../../src/use-cases/installments/collect-installment.ts';
import { resumeLeaderAfterChallenge } from '../../src/use-cases/checkout/resolve-leader-attempt.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { form } from '../helpers/dashboard.ts';
import { answerChallenge, CARDS, newShop, type Shop } from '../use-cases/support.ts';

let app: TestApp;
let shop: Shop;
beforeAll(async () => {
  app = await startTestApp();
  shop = await newShop(app);
});
afterAll(() => app.close());

/** A 3x purchase of `email`'s, paid by its leader with `number` through the sandbox helper. */
async function paidPlan(email: string, number: string): Promise<{ id: string; uid: string; toCollect: string[] }> {
  const id = await shop.purchase({ merchant_uid: shop.offer('INSTALLMENTS', 3).merchant_uid, amount: 30_000, client: { email } });
  const paid = await shop.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: number });
  if (paid.statusCode === 202) {
    // The leader's card asks for 3-D Secure at checkout too: answered, and the checkout resumed.
    await answerChallenge(app, paid.json().challenge_url as string, 'complete');
    const paymentId = (await app.services.db.query<{ id: string }>('SELECT id FROM payments WHERE purchase_id = $1', [id])).rows[0]!.id;
    expect(await resumeLeaderAfterChallenge(app.services.payments, { id, accountId: shop.accountId }, paymentId)).toMatchObject({ kind: 'processed' });
  } else expect(paid.statusCode, paid.body).toBe(200);
  return { id, uid: `pur_${id}`, toCollect: (await scheduledInstallments(app.services.db, shop.accountId, id)).map((i) => i.id) };
}

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
    forged: (url: string) =>
      app.server.inject({ method: 'POST', url, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form({ csrf: 'forged' }) }),
  };
}

const state = async (id: string) => (await shop.get(`/api/merchants/v1/purchases/${id}`)).json().state as string;

describe('paying from the space', () => {
  it('pays a refused installment now: 303 back to the purchase with done=paid', async () => {
    const { id, uid, toCollect } = await paidPlan('ann@example.com', CARDS.offSessionFails);
    expect(await collectInstallment(app.services.payments, shop.accountId, toCollect[0]!, 0)).toBe('retry_scheduled');
    const ann = await signedIn('ann@example.com');
    const res = await ann.post(`/space/purchases/${uid}/installments/${toCollect[0]}/pay`, {});
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toBe(`/space/purchases/${uid}?done=paid`);
    const again = await ann.post(`/space/purchases/${uid}/installments/${toCollect[0]}/pay`, {});
    expect(again.headers.location).toBe(`/space/purchases/${uid}?problem=nothing_to_pay`);
    expect(await state(id)).toBe('LEADER_PROCESSED');
  });

  it('repays the rest early through 3-D Secure: to the issuer, back to the return route, paid', async () => {
    const { id, uid } = await paidPlan('cat@example.com', CARDS.challenge);
    const cat = await signedIn('cat@example.com');
    const res = await cat.post(`/space/purchases/${uid}/repay`, {});
    expect(res.statusCode).toBe(303);
    const challenge = res.headers.location as string;
    expect(challenge).not.toMatch(/^\/space/);
    await answerChallenge(app, new URL(challenge, 'http://127.0.0.1').toString(), 'complete');
    const paymentId = (await app.services.db.query<{ id: string }>("SELECT id FROM payments WHERE purchase_id = $1 AND idempotency_key LIKE '%:repay:1'", [id])).rows[0]!.id;
    const back = await cat.get(`/space/purchases/${uid}/payments/${paymentId}/return`);
    // Back from the issuer the route answers done=paid for either action (the page shows what is left).
    expect(back.headers.location).toBe(`/space/purchases/${uid}?done=paid`);
    expect(await state(id)).toBe('SUCCESSFUL');
  });

  it('changes the card: the card fields checked, then done=card_changed; a refused card says why', async () => {
    const { uid } = await paidPlan('dan@example.com', CARDS.ok);
    const dan = await signedIn('dan@example.com');
    const typed = { holder_name: 'Dan', card_expiry: '12/39', card_cvc: '123' };
    const bad = await dan.post(`/space/purchases/${uid}/card`, { ...typed, card_number: '12' });
    expect(bad.headers.location).toBe(`/space/purchases/${uid}?problem=invalid_card&fields=card_number`);
    const refused = await dan.post(`/space/purchases/${uid}/card`, { ...typed, card_number: CARDS.declined });
    expect(refused.headers.location).toBe(`/space/purchases/${uid}?problem=declined&reason=card_declined`);
    const ok = await dan.post(`/space/purchases/${uid}/card`, { ...typed, card_number: '4242 4242 4242 4242' });
    expect(ok.headers.location).toBe(`/space/purchases/${uid}?done=card_changed`);
  });

  it("the purchase's page offers what can be paid, the forms post to these routes, and it says what happened (fr)", async () => {
    const { uid, toCollect } = await paidPlan('fay@example.com', CARDS.offSessionFails);
    expect(await collectInstallment(app.services.payments, shop.accountId, toCollect[0]!, 0)).toBe('retry_scheduled');
    const fay = await signedIn('fay@example.com');
    const page = await fay.get(`/space/purchases/${uid}?lang=fr`);
    expect(page.statusCode).toBe(200);
    const actions = [...page.body.matchAll(/<form method="post" action="([^"]+)"/g)].map((m) => m[1]);
    expect(actions).toEqual(expect.arrayContaining([`/space/purchases/${uid}/installments/${toCollect[0]}/pay`, `/space/purchases/${uid}/repay`, `/space/purchases/${uid}/card`]));
    expect(page.body).toContain('Payer l’échéance 2 maintenant');
    const paid = await fay.post(`/space/purchases/${uid}/installments/${toCollect[0]}/pay`, {});
    const after = await fay.get(`${paid.headers.location as string}&lang=fr`);
    expect(after.body).toContain('Paiement effectué. Merci.');
    expect(after.body).not.toContain(`/installments/${toCollect[0]}/pay`);
  });

  it("another shopper's purchase is 404, a form without the session's CSRF token does nothing (403)", async () => {
    const { id, uid } = await paidPlan('eve@example.com', CARDS.ok);
    const mallory = await signedIn('mallory@example.com');
    expect((await mallory.post(`/space/purchases/${uid}/repay`, {})).statusCode).toBe(404);
    const eve = await signedIn('eve@example.com');
    expect((await eve.forged(`/space/purchases/${uid}/repay`)).statusCode).toBe(403);
    expect(await state(id)).toBe('LEADER_PROCESSED');
  });
});
