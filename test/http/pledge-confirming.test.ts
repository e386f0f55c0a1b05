/**
 * The pledge page waits for the friend's payment in progress (docs/hosted-payment.md#an-attempt-in-progress):
 * a submit while the pledge's payment is under way shows "Your payment is being confirmed", which
 * reloads the pledge's status address every 2 s without script; that address resolves the payment
 * once it is in doubt (its recording cut after the PSP answered, as in a failover, and its lease
 * ended or lapsed, docs/money-operations.md#payments-in-doubt; without a lease, once the
 * reservation is over, PLEDGE_RESERVATION_MS), then shows the pledge page with its outcome — one
 * charge at the PSP, also when several tabs' reloads and the reconciliation resolve it at once.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parsePublicId } from '../../src/domain/ids.ts';
import { PLEDGE_RESERVATION_MS } from '../../src/domain/pot.ts';
import { findPayment } from '../../src/payments/payment-repository.ts';
import { resolvePledgePayment } from '../../src/use-cases/pot/pay-pledge.ts';
import { twoMerchants, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { cutOn, setPaymentLease } from '../helpers/connection-cut.ts';
import { NO_JOB_POLL } from '../delivery/helpers.ts';

const OK = '4242424242424242';
const DECLINED = '4000000000000002';

/** The payments' lease of this test's pledge: setPaymentLease. */
const setLease = (pledgeId: string, lease: 'live' | 'lapsed' | 'none') => setPaymentLease(app.services.db, { pledgeId }, lease);

let app: TestApp;
let a: Caller;
beforeAll(async () => {
  // No job poller: the reconciliation must not be what resolves the payments here.
  app = await startTestApp(NO_JOB_POLL);
  [a] = await twoMerchants(app);
});
afterAll(() => app?.close());

const one = async <T>(sql: string, params: unknown[] = []): Promise<T> => (await app.services.db.query<{ v: T }>(sql, params)).rows[0]!.v;
/** The authorisations the sandbox PSP made under the pledge's own keys (`<pledge>:pay:<n>`). */
const authorizations = (pledgeId: string) =>
  one<number>("SELECT count(*)::int AS v FROM sandbox_psp_idempotency WHERE operation = 'authorize' AND idempotency_key LIKE $1 || ':pay:%'", [pledgeId]);
const charged = (pledgeId: string) => one<number>("SELECT count(*)::int AS v FROM payments WHERE pledge_id = $1 AND status IN ('authorized', 'captured')", [pledgeId]);
/** The pledge's transactions at the sandbox PSP (found by their return address, the pledge's page) that took money. */
const pspCharges = (pledgeId: string) =>
  one<number>("SELECT count(*)::int AS v FROM sandbox_psp_transactions WHERE return_url LIKE '%/pledge/plg_' || $1 || '/%' AND captured_cents > 0", [pledgeId]);
const pledgeState = (pledgeId: string) => one<string>('SELECT state AS v FROM pledges WHERE id = $1', [pledgeId]);

/** A SHARED purchase whose leader paid and invited two friends: the bare uuids of the purchase and the pledges. */
async function invited(): Promise<{ purchaseId: string; pledges: [string, string] }> {
  const res = await a.post(`/api/merchants/${a.offer('SHARED')}/purchase_link`, {
    data: { title: 'Weekend in Lisbon', amountCents: 10_000, email: 'leader@example.com', language: 'en_GB' },
    purchase_link_settings: {},
  });
  expect(res.statusCode, res.body).toBe(200);
  const purchaseId = parsePublicId('pur', res.json().purchase_uid as string)!;
  const leader = await a.post(`/api/sandbox/purchases/pur_${purchaseId}/pay`, {
    card_number: OK,
    pledgers: [
      { email: 'ann@example.com', amount_cents: 3_000 },
      { email: 'bob@example.com', amount_cents: 3_000 },
    ],
  });
  expect(leader.statusCode, leader.body).toBe(200);
  const ids = (leader.json() as { pledges: { id: string }[] }).pledges.map((p) => parsePublicId('plg', p.id)!);
  return { purchaseId, pledges: [ids[0]!, ids[1]!] };
}

let cuts = 0;
/** A friend's payment whose recording of the PSP's answer is cut (57P01, a 503): pending, sent to the PSP once. */
async function paymentInDoubt(pledgeId: string, card = OK): Promise<void> {
  const cut = await cutOn(app.services.db, `cut_pledge_confirming_${++cuts}`, 'payments', 'UPDATE', `NEW.pledge_id = '${pledgeId}' AND NEW.status <> 'pending'`);
  const first = await a.post(`/api/sandbox/pledges/plg_${pledgeId}/pay`, { card_number: card });
  await cut.heal();
  expect(first.statusCode, first.body).toBe(503);
  expect(await one<string>('SELECT status AS v FROM payments WHERE pledge_id = $1', [pledgeId])).toBe('pending');
  expect(await authorizations(pledgeId)).toBe(1);
}

/** The pledge page's form submitted as a browser would (cookie and CSRF token from the page). */
async function submit(pledgeId: string, lang = 'en') {
  const path = `/pledge/plg_${pledgeId}?lang=${lang}`;
  const page = await app.server.inject(path);
  const cookie = String(page.headers['set-cookie']).split(';')[0]!;
  const token = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
  return app.server.inject({
    method: 'POST',
    url: path,
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: `csrf=${encodeURIComponent(token)}&holder_name=Ann&card_number=4242+4242+4242+4242&card_expiry=12%2F30&card_cvc=123`,
  });
}

const advance = async (ms: number) => {
  const moved = await a.post('/api/sandbox/clock', { advance_seconds: Math.ceil(ms / 1000) });
  expect(moved.statusCode, moved.body).toBe(200);
};

it('a submit after the request of the payment failed resolves it at once (its lease ended) and shows the paid pledge; one charge', async () => {
  const { pledges } = await invited();
  const [ann] = pledges;
  await paymentInDoubt(ann);
  const known = await submit(ann);
  expect(known.statusCode).toBe(303);
  expect(known.headers.location).toBe(`/pledge/plg_${ann}?lang=en`);
  expect(await pledgeState(ann)).toBe('paid');
  // The submit's card was not charged: the payment in doubt is resolved first, with its own key.
  expect(await authorizations(ann)).toBe(1);
  expect(await pspCharges(ann)).toBe(1);
});

it('a submit while a live request still runs the payment shows the wait; once its lease lapses, the status address resolves it and shows the paid pledge; one charge', async () => {
  const { purchaseId, pledges } = await invited();
  const [ann] = pledges;
  await paymentInDoubt(ann);
  await setLease(ann, 'live');

  const waiting = await submit(ann);
  expect(waiting.statusCode).toBe(202);
  expect(waiting.body).toContain('Your payment is being confirmed');
  // A live request's payment is resolved within seconds of its end: no time to tell.
  expect(waiting.body).not.toContain('It can take up to');
  // Without script, a refresh; with it, the page's script, which the shopper can pause (WCAG 2.2.1).
  expect(waiting.body).toContain(`<noscript><meta http-equiv="refresh" content="2; url=/pledge/plg_${ann}/confirming?lang=en"></noscript>`);
  expect(waiting.body).toContain('<script src="/assets/confirming.js" defer></script>');
  expect(await authorizations(ann)).toBe(1);

  // Whatever the reservation's time left, a live request's payment is its own: the wait again,
  // nothing asked of the PSP.
  await advance(PLEDGE_RESERVATION_MS + 1_000);
  const again = await app.server.inject(`/pledge/plg_${ann}/confirming?lang=en`);
  expect(again.statusCode).toBe(202);
  expect(await authorizations(ann)).toBe(1);
  expect(await pledgeState(ann)).toBe('paying');

  await setLease(ann, 'lapsed');
  const known = await app.server.inject(`/pledge/plg_${ann}/confirming?lang=en`);
  expect(known.statusCode).toBe(303);
  expect(known.headers.location).toBe(`/pledge/plg_${ann}?lang=en`);
  expect(await pledgeState(ann)).toBe('paid');
  expect(await authorizations(ann)).toBe(1);
  expect(await charged(ann)).toBe(1);
  expect(await pspCharges(ann)).toBe(1);
  expect((await a.get(`/api/merchants/v1/purchases/${purchaseId}`)).json().state).toBe('LEADER_PROCESSED');
  const page = await app.server.inject(known.headers.location as string);
  expect(page.statusCode).toBe(200);
  expect(page.body).toContain('Thank you! Your share is paid.');
  // Known: the status address leads to the pledge's page.
  const after = await app.server.inject(`/pledge/plg_${ann}/confirming`);
  expect(after.statusCode).toBe(303);
  expect(after.headers.location).toBe(`/pledge/plg_${ann}`);
});

it('a payment without a lease (a PSP fault left it, or an older build made it) is in doubt once the reservation is over; the wait says how long', async () => {
  const { pledges } = await invited();
  const [ann] = pledges;
  await paymentInDoubt(ann);
  await setLease(ann, 'none');
  const waiting = await submit(ann);
  expect(waiting.statusCode).toBe(202);
  expect(waiting.body).toContain('It can take up to 15 minutes.');
  await advance(PLEDGE_RESERVATION_MS - 5 * 60_000);
  const later = await app.server.inject(`/pledge/plg_${ann}/confirming?lang=en`);
  expect(later.statusCode).toBe(202);
  expect(later.body).toContain('It can take up to 5 minutes.');
  expect(await authorizations(ann)).toBe(1);
  await advance(5 * 60_000 + 1_000);
  const known = await app.server.inject(`/pledge/plg_${ann}/confirming?lang=en`);
  expect(known.statusCode).toBe(303);
  expect(await pledgeState(ann)).toBe('paid');
  expect(await authorizations(ann)).toBe(1);
  expect(await pspCharges(ann)).toBe(1);
});

it('in French', async () => {
  const { pledges } = await invited();
  await paymentInDoubt(pledges[0]);
  await setLease(pledges[0], 'none');
  const waiting = await submit(pledges[0], 'fr');
  expect(waiting.statusCode).toBe(202);
  expect(waiting.body).toContain('<html lang="fr');
  expect(waiting.body).toContain('Votre paiement est en cours de confirmation');
  expect(waiting.body).toContain('Cela peut prendre jusqu’à 15\u00a0minutes.');
  expect(waiting.body).toContain(`url=/pledge/plg_${pledges[0]}/confirming?lang=fr`);
});

it('a refused payment in doubt: the pledge page with the refusal, the share free to pay again', async () => {
  const { pledges } = await invited();
  const [ann] = pledges;
  await paymentInDoubt(ann, DECLINED);
  const refused = await app.server.inject(`/pledge/plg_${ann}/confirming?lang=en`);
  expect(refused.statusCode).toBe(402);
  expect(refused.body).toContain('Your card was declined. Try another card.');
  expect(refused.body).toContain('id="pledge-form"');
  expect(await pledgeState(ann)).toBe('invited');
  expect(await authorizations(ann)).toBe(1);
  expect(await charged(ann)).toBe(0);
  expect(await pspCharges(ann)).toBe(0);
});

it("tenancy: another pledge's status address resolves nothing of this one's; an unknown or malformed pledge is a 404", async () => {
  const { pledges } = await invited();
  const [ann, bob] = pledges;
  await paymentInDoubt(ann);
  const other = await app.server.inject(`/pledge/plg_${bob}/confirming`);
  expect(other.statusCode).toBe(303);
  expect(other.headers.location).toBe(`/pledge/plg_${bob}`);
  expect(await one<string>('SELECT status AS v FROM payments WHERE pledge_id = $1', [ann])).toBe('pending');
  expect(await authorizations(ann)).toBe(1);
  for (const uid of ['plg_00000000-0000-4000-8000-000000000002', 'plg_nope', `pur_${ann}`]) {
    const res = await app.server.inject(`/pledge/${uid}/confirming`);
    expect(res.statusCode, uid).toBe(404);
  }
  expect(await authorizations(ann)).toBe(1);
  // Its own address resolves it.
  expect((await app.server.inject(`/pledge/plg_${ann}/confirming`)).statusCode).toBe(303);
  expect(await pledgeState(ann)).toBe('paid');
});

it('several tabs reloading and the reconciliation resolving the same payment at once: one charge, the pledge paid once', async () => {
  for (let round = 0; round < 4; round++) {
    const { pledges } = await invited();
    const [ann] = pledges;
    await paymentInDoubt(ann);
    // As the reconciliation job read it, before any of the tabs resolved it.
    const payment = (await findPayment(app.services.db, a.accountId, await one<string>('SELECT id::text AS v FROM payments WHERE pledge_id = $1', [ann])))!;
    const answers = await Promise.all([
      app.server.inject(`/pledge/plg_${ann}/confirming`),
      app.server.inject(`/pledge/plg_${ann}/confirming`),
      app.server.inject(`/pledge/plg_${ann}/confirming`),
      // The reconciliation job's resolution of the same payment.
      resolvePledgePayment(app.services.payments, payment).catch(() => undefined),
    ]);
    for (const r of answers.slice(0, 3) as { statusCode: number; body: string }[]) expect([202, 303], r.body).toContain(r.statusCode);
    expect(await pledgeState(ann)).toBe('paid');
    expect(await authorizations(ann)).toBe(1);
    expect(await charged(ann)).toBe(1);
    expect(await pspCharges(ann)).toBe(1);
  }
});

it('a pledge with nothing in doubt: the status address leads back to the page, nothing asked of the PSP', async () => {
  const { pledges } = await invited();
  const res = await app.server.inject(`/pledge/plg_${pledges[0]}/confirming?lang=fr`);
  expect(res.statusCode).toBe(303);
  expect(res.headers.location).toBe(`/pledge/plg_${pledges[0]}?lang=fr`);
  expect(await authorizations(pledges[0])).toBe(0);
});

it('a 3-D Secure challenge in doubt (its address never reached the friend): voided once in doubt, the pledge page asks to pay again', async () => {
  const { pledges } = await invited();
  const [ann] = pledges;
  await paymentInDoubt(ann, '4000000000003220');
  await setLease(ann, 'live');
  expect((await app.server.inject(`/pledge/plg_${ann}/confirming?lang=en`)).statusCode).toBe(202);
  await setLease(ann, 'lapsed');
  const res = await app.server.inject(`/pledge/plg_${ann}/confirming?lang=en`);
  expect(res.statusCode).toBe(402);
  expect(res.body).toContain('The payment could not be completed. Try again.');
  expect(res.body).toContain('id="pledge-form"');
  expect(await one<string>('SELECT status AS v FROM payments WHERE pledge_id = $1', [ann])).toBe('voided');
  expect(await pledgeState(ann)).toBe('invited');
  expect(await pspCharges(ann)).toBe(0);
});
