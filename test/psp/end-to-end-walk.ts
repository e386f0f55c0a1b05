/**
 * Back mode end to end, per real connector: an offer bound to a PSP
 * account of that connector, whose `endpoint_url` is the connector's local fake, takes a full pot,
 * a 3x plan and a deferred capture through the sandbox helpers (the hosted pages' code path), and
 * the checkout's notification reaches the merchant signed with the offer secret. The fakes refuse
 * an off-session charge without its stored-credential reference, so the later charges here (the
 * pledgers', the installments, the capture 30 days after a hold's life) also prove the PSD2 fields.
 * A PSP that takes one other currency (Midtrans: IDR, whole rupiah) walks with its offers priced in
 * it: the figures below are written in EUR cents and read through `amount` (priceOffersIn).
 * Shared by test/psp/end-to-end-{1,2,3}.test.ts, each of which walks a third of the connectors.
 */
import { submitChallenge } from './fixtures/kit/challenge.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicId } from '../../src/domain/ids.ts';
import type { Caller } from '../helpers/api.ts';
import { caller, cheapDashboardPassword, minimalPurchase } from '../helpers/api.ts';
import { isolatedDatabase, onPostgres, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { contractSignature, NO_JOB_POLL, Receiver, TEST_DELIVERY } from '../delivery/helpers.ts';
import { BACK_MODE_PSPS as CONNECTORS, priceOffersIn, type FakePsp } from './fixtures/back-mode-psps.ts';
import { changeCard } from '../../src/use-cases/installments/change-card.ts';
import { repayEarly } from '../../src/use-cases/shopper-space/shopper-pay.ts';

const DAY = 86_400;

/** The first form of a page: its action (resolved against the page's URL) and its hidden fields. */
function readForm(page: string, base?: string): { action: string; fields: Record<string, string> } {
  const form = /<form\b[^>]*>([\s\S]*?)<\/form>/i.exec(page);
  if (!form) throw new Error(`no form in ${page.slice(0, 300)}`);
  const action = /\baction="([^"]*)"/i.exec(form[0])?.[1]?.replace(/&amp;/g, '&') ?? '';
  const fields: Record<string, string> = {};
  for (const input of form[1]!.match(/<input\b[^>]*>/gi) ?? []) {
    const name = /\bname="([^"]*)"/i.exec(input)?.[1];
    const value = /\bvalue="([^"]*)"/i.exec(input)?.[1] ?? '';
    if (name && /type="hidden"/i.test(input))
      fields[name] = value
        .replace(/&#39;/g, "'")
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&');
  }
  return { action: base ? new URL(action, base).toString() : action, fields };
}

/**
 * The connectors of part `n` of {@link PARTS} (end-to-end-{1,2,3}.test.ts): every connector's
 * name, sorted, dealt in turn. One file of all of them took 77-123 s, past the suite's per-file
 * budget (docs/testing.md#the-budget).
 */
const PARTS = 3;
export function endToEndPart(n: number): string[] {
  return Object.keys(CONNECTORS)
    .sort()
    .filter((_, i) => i % PARTS === n - 1);
}

/**
 * The walk of `psps`, on one app and database of the calling file. Everything is registered inside
 * this function: with `isolate: false` a worker imports this module once for all the files it runs,
 * so hooks at its top level would be registered for the first file only.
 */
export function describeEndToEnd(psps: readonly string[]): void {
  let db: IsolatedDatabase;
  let app: TestApp;
  let receiver: Receiver;
  const bodies: string[] = [];

  beforeAll(async () => {
    db = await isolatedDatabase();
    app = await startTestApp({ ...NO_JOB_POLL, logLevel: 'debug' }, { db: db.open(), delivery: TEST_DELIVERY });
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await app?.close();
    await receiver?.close();
    await db?.dispose();
  });

  async function send(m: Caller, method: 'POST' | 'PATCH', url: string, payload: unknown, auth = m.dashboard) {
    const res = await app.server.inject({ method, url, headers: { authorization: auth, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
    bodies.push(res.body);
    return res;
  }

  /** A purchase made as the merchant's checkout makes it (Token API purchase_link), with a notification URL. */
  async function purchase(m: Caller, offer: string, amountCents: number, reference: string): Promise<string> {
    const res = await m.post(`/api/merchants/${offer}/purchase_link`, {
      data: { title: 'Weekend in Lisbon', amountCents, email: 'leader@example.com', language: 'en_GB', reference, paymentNotificationUrl: receiver.url(`/notify/${reference}`) },
      purchase_link_settings: {},
    });
    bodies.push(res.body);
    expect(res.statusCode, res.body).toBe(200);
    return parsePublicId('pur', (res.json() as { purchase_uid: string }).purchase_uid)!;
  }

  const state = async (m: Caller, id: string) => ((await m.get(`/api/merchants/v1/purchases/${id}`)).json() as { state: string }).state;

  async function payments(id: string) {
    const { rows } = await app.services.db.query<{ purpose: string; psp: string; psp_account_id: string | null; status: string; captured_cents: number }>(
      'SELECT purpose, psp, psp_account_id, status, captured_cents::int AS captured_cents FROM payments WHERE purchase_id = $1 ORDER BY created_at',
      [id],
    );
    return rows;
  }

  async function advance(m: Caller, days: number): Promise<void> {
    const res = await m.post('/api/sandbox/clock', { advance_seconds: days * DAY });
    expect(res.statusCode, res.body).toBe(200);
  }

  /** Delivers what is due and answers the notifications received for `reference`, each checked against the contract's signature. */
  async function notifications(m: Caller, offer: string, reference: string): Promise<Record<string, unknown>[]> {
    await app.services.deliveries.worker.runDue();
    const secret = m.merchant.offers.find((o) => o.merchant_uid === offer)!.secret;
    const got = receiver.received.filter((r) => r.path === `/notify/${reference}`).map((r) => JSON.parse(r.body) as Record<string, unknown>);
    for (const n of got) {
      expect(n.signature, JSON.stringify(n)).toBe(contractSignature(n, secret));
      expect(n).toMatchObject({ reference, sandbox: 'true' });
    }
    return got;
  }

  describe.each(psps)(`an offer bound to a %s account (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, (psp) => {
    let fake: FakePsp;
    let m: Caller;
    let psa: string;
    /** The walk's figures (EUR cents) in the offers' currency. */
    let amount: (eurCents: number) => number;

    beforeAll(async () => {
      fake = await CONNECTORS[psp]!();
      m = await caller(app);
      await cheapDashboardPassword(app, m); // its back-office calls below: a cheap scrypt each
      amount = await priceOffersIn(app, m, fake.currency);
      const created = await send(m, 'POST', '/api/backoffice/psp_accounts', {
        psp,
        environment: 'test',
        label: `${psp} test`,
        credentials: fake.credentials,
        endpoint_url: fake.endpointUrl,
      });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json().verified_at).not.toBeNull(); // the credentials were checked against the fake
      psa = created.json().id as string;
      for (const offer of [m.offer('SHARED'), m.offer('INSTALLMENTS', 3), m.offer('DEFERRED')]) {
        const bound = await send(m, 'PATCH', `/api/backoffice/offers/${offer}`, { psp_account_id: psa });
        expect(bound.statusCode, bound.body).toBe(200);
        expect(bound.json()).toMatchObject({ psp, psp_account_id: psa });
      }
    });
    afterAll(async () => {
      await fake?.close();
    });

    it('takes a full pot: the leader and a pledger pay on the PSP, the purchase succeeds, each payment notified and signed', async () => {
      const offer = m.offer('SHARED');
      const id = await purchase(m, offer, amount(10_000), `${psp}-pot`);
      expect((await m.get(`/api/merchants/v1/purchases/${id}`)).json()).toMatchObject({ amount: amount(10_000), currency: fake.currency ?? 'EUR' });
      const leader = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: fake.card, pledgers: [{ email: 'ann@example.com', amount_cents: amount(4_000) }] });
      bodies.push(leader.body);
      expect(leader.statusCode, leader.body).toBe(200);
      const pledge = (leader.json() as { pledges: { id: string }[] }).pledges[0]!;
      const pledger = await m.post(`/api/sandbox/pledges/${pledge.id}/pay`, { card_number: fake.card });
      bodies.push(pledger.body);
      expect(pledger.statusCode, pledger.body).toBe(200);
      expect(pledger.json().state).toBe('SUCCESSFUL');

      const rows = await payments(id);
      expect(
        rows.every((r) => r.psp === psp && r.psp_account_id === psa.slice(4)),
        JSON.stringify(rows),
      ).toBe(true);
      // The leader's guarantee is released once friends cover the pot; the leader's share is charged off session.
      expect(rows.map((r) => [r.purpose, r.status, r.captured_cents])).toEqual([
        ['guarantee', 'voided', 0],
        ['leader_share', 'captured', amount(6_000)],
        ['pledge', 'captured', amount(4_000)],
      ]);
      // One outcome for the merchant: the checkout secured (docs/webhooks.md#back-mode-notification).
      const sent = await notifications(m, offer, `${psp}-pot`);
      expect(sent.map((n) => n.status)).toEqual(['completed']);
      if (psp === 'lyra') for (const n of sent) expect(n.uid).toMatch(/^[0-9a-f]{32}$/);
    });

    it('takes a 3x plan: the first installment on session, the next two off session as the clock moves', async () => {
      const offer = m.offer('INSTALLMENTS', 3);
      const id = await purchase(m, offer, amount(30_000), `${psp}-3x`);
      const first = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: fake.card });
      bodies.push(first.body);
      expect(first.statusCode, first.body).toBe(200);
      expect(first.json().state).toBe('LEADER_PROCESSED');
      await advance(m, 32);
      await advance(m, 31);
      expect(await state(m, id)).toBe('SUCCESSFUL');
      const { rows } = await app.services.db.query<{ state: string }>('SELECT state FROM installments WHERE purchase_id = $1 ORDER BY index', [id]);
      expect(rows.map((r) => r.state)).toEqual(['paid', 'paid', 'paid']);
      const charged = await payments(id);
      expect(charged.every((r) => r.psp === psp && r.psp_account_id === psa.slice(4))).toBe(true);
      // The 3x offer's fee (1.5 %) rides on the first installment.
      expect(charged.map((r) => [r.purpose, r.status, r.captured_cents])).toEqual([
        ['first_installment', 'captured', amount(10_450)],
        ['installment', 'captured', amount(10_000)],
        ['installment', 'captured', amount(10_000)],
      ]);
      expect((await notifications(m, offer, `${psp}-3x`)).map((n) => n.status)).toEqual(['completed']);
    });

    // Mercado Pago's fake refuses a MIT citing a cancelled payment (docs/psp-connectors.md#stored-credentials-psd2).
    it.skipIf(psp === 'mercadopago')(
      'the shopper changes the card and repays the rest early: the new card stored by a voided CIT, then charged merchant-initiated, the rest once',
      async () => {
        const offer = m.offer('INSTALLMENTS', 3);
        const id = await purchase(m, offer, amount(30_000), `${psp}-space`);
        const first = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: fake.card });
        expect(first.statusCode, first.body).toBe(200);
        const deps = app.services.payments;
        const here = { id, accountId: m.accountId };
        const newCard = { number: fake.card, expMonth: 12, expYear: new Date().getUTCFullYear() + 3, cvc: '123', holderName: 'Test Shopper' };
        expect(await changeCard(deps, here, newCard, () => 'http://127.0.0.1:3000/space/return')).toMatchObject({ kind: 'changed' });
        // The fakes refuse a MIT without the reference of a CIT of the same card: this one cites the change's.
        await advance(m, 32);
        expect(await repayEarly(deps, here, () => 'http://127.0.0.1:3000/space/return')).toEqual({ kind: 'paid', amountCents: amount(10_000), state: 'SUCCESSFUL' });
        const charged = await payments(id);
        expect(charged.every((r) => r.psp === psp && r.psp_account_id === psa.slice(4))).toBe(true);
        expect(charged.map((r) => [r.purpose, r.status, r.captured_cents])).toEqual([
          ['first_installment', 'captured', amount(10_450)],
          ['card_check', 'voided', 0],
          ['installment', 'captured', amount(10_000)],
          ['installment', 'captured', amount(10_000)],
        ]);
      },
    );

    it('takes a deferred payment: a hold on the PSP now, captured there 30 days later', async () => {
      const offer = m.offer('DEFERRED');
      const id = await purchase(m, offer, amount(15_000), `${psp}-deferred`);
      const held = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: fake.card });
      bodies.push(held.body);
      expect(held.statusCode, held.body).toBe(200);
      expect(held.json().state).toBe('LEADER_PROCESSED');
      expect((await payments(id)).map((r) => [r.purpose, r.status, r.captured_cents])).toEqual([['deferred', 'authorized', 0]]);
      await advance(m, 31);
      expect(await state(m, id)).toBe('SUCCESSFUL');
      expect((await payments(id)).map((r) => [r.purpose, r.psp, r.status, r.captured_cents])).toEqual([['deferred', psp, 'captured', amount(15_000)]]);
      // The hold secured the purchase: `completed` for the merchant, once.
      expect((await notifications(m, offer, `${psp}-deferred`)).map((n) => n.status)).toEqual(['completed']);
    });

    it('3-D Secure that the issuer wants as a form POST: challenge_url is our relay page, which posts the form to the issuer; the payment completes', async (ctx) => {
      if (!fake.postChallenge) return ctx.skip(); // this PSP's challenges are plain redirects
      const id = await purchase(m, m.offer('DEFERRED'), amount(9_000), `${psp}-3ds`);
      const started = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: fake.postChallenge.card });
      bodies.push(started.body);
      expect(started.statusCode, started.body).toBe(202);
      const challengeUrl = new URL(started.json().challenge_url as string);
      expect(challengeUrl.pathname).toBe('/psp-challenge');
      // The shopper's browser: our page, then its form posted to the issuer's page.
      const relay = await app.server.inject({ method: 'GET', url: challengeUrl.pathname + challengeUrl.search });
      expect(relay.statusCode).toBe(200);
      const form = readForm(relay.body);
      expect(form.action.startsWith(fake.endpointUrl.replace(/\/(ncol\/test|v2\/rest|api)$/, ''))).toBe(true);
      expect(relay.headers['content-security-policy']).toContain(`form-action ${new URL(form.action).origin}`);
      const acs = await fetch(form.action, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form.fields).toString() });
      expect(acs.status).toBe(200);
      const issuer = readForm(await acs.text(), form.action);
      const done = await fetch(issuer.action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...issuer.fields, outcome: 'complete' }).toString(),
        redirect: 'manual',
      });
      expect([200, 303]).toContain(done.status);
      const { rows } = await app.services.db.query<{ id: string }>('SELECT id FROM payments WHERE purchase_id = $1', [id]);
      const ourReturn = `/pay/pur_${id}/return?payment=${rows[0]!.id}`;
      const termForm = done.status === 200 ? /<form\b[^>]*action="([^"]*)"/i.exec(await done.clone().text()) : null;
      if (termForm && new URL(termForm[1]!.replace(/&amp;/g, '&'), issuer.action).origin === new URL(app.services.config.publicUrl).origin) {
        // This ACS posts its PaRes straight back to our return page (3-D Secure's TermUrl), which
        // hands it to the PSP and sends the browser on to the same address as a GET.
        const term = readForm(await done.text(), issuer.action);
        const url = new URL(term.action);
        const posted = await app.server.inject({
          method: 'POST',
          url: url.pathname + url.search,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams(term.fields).toString(),
        });
        expect(posted.statusCode, posted.body).toBe(303);
        expect(posted.headers.location).toBe(ourReturn);
      }
      // Back on our return page, which asks the PSP for the outcome.
      const back = await app.server.inject({ method: 'GET', url: ourReturn });
      expect(back.statusCode).toBeLessThan(400);
      expect(await state(m, id)).toBe('LEADER_PROCESSED');
      expect((await payments(id)).map((r) => [r.purpose, r.status])).toEqual([['deferred', 'authorized']]);
    });

    it('3-D Secure whose result comes back in the redirect: the return page hands it to the PSP; the payment completes', async (ctx) => {
      if (!fake.redirectChallenge) return ctx.skip(); // this PSP finishes the authentication itself
      const id = await purchase(m, m.offer('DEFERRED'), amount(9_000), `${psp}-3ds-redirect`);
      const started = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: fake.redirectChallenge.card });
      bodies.push(started.body);
      expect(started.statusCode, started.body).toBe(202);
      // The shopper's browser on the PSP's challenge page, sent back to our return URL with the result.
      const challengeUrl = started.json().challenge_url as string;
      const md = new URL(challengeUrl).searchParams.get('MD') ?? '';
      const back = (await submitChallenge(challengeUrl.split('?')[0]!, { MD: md }, 'complete', 302)).headers.get('location')!;
      const ourReturn = new URL(back);
      expect(ourReturn.origin).toBe(new URL(app.services.config.publicUrl).origin);
      const returned = await app.server.inject({ method: 'GET', url: ourReturn.pathname + ourReturn.search });
      expect(returned.statusCode, returned.body).toBeLessThan(400);
      expect(await state(m, id)).toBe('LEADER_PROCESSED');
      expect((await payments(id)).map((r) => [r.purpose, r.status])).toEqual([['deferred', 'authorized']]);
    });

    it("no response of this connector's flows holds a credential", () => {
      // Identifiers shown as saved (not secrets): every other credential value must appear nowhere.
      const shown = [
        'shop_id',
        'pspid',
        'user_id',
        'merchant_account',
        'hash_algorithm',
        'username',
        'tpe',
        'societe',
        'login',
        'point_of_sale_id',
        'merchant_id',
        'contract_number',
        'identifier',
        'site',
        'rank',
        'brand',
        'key_version',
        'processing_channel_id',
        'profile_id',
        'public_key',
        'client_key',
        'client_id',
        'terminal_id',
      ];
      const secrets = Object.entries(fake.credentials).filter(([k]) => !shown.includes(k));
      for (const [, value] of secrets) {
        for (const body of bodies) expect(body).not.toContain(value);
        for (const line of app.logs) expect(line).not.toContain(value);
      }
    });
  });

  if (psps.includes('midtrans'))
    describe(`what Midtrans cannot charge as it is, refused before a purchase exists (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
      let fake: FakePsp;
      let m: Caller;
      let psa: string;

      beforeAll(async () => {
        fake = await CONNECTORS.midtrans!();
        m = await caller(app);
        await cheapDashboardPassword(app, m);
        const created = await send(m, 'POST', '/api/backoffice/psp_accounts', {
          psp: 'midtrans',
          environment: 'test',
          label: 'midtrans',
          credentials: fake.credentials,
          endpoint_url: fake.endpointUrl,
        });
        expect(created.statusCode, created.body).toBe(201);
        psa = created.json().id as string;
      });
      afterAll(async () => {
        await fake?.close();
      });

      it('an offer in EUR is not bound to a Midtrans account: the refusal names psp_account_id and the offer keeps its PSP', async () => {
        const offer = m.offer('SHARED');
        const refused = await send(m, 'PATCH', `/api/backoffice/offers/${offer}`, { psp_account_id: psa });
        expect(refused.statusCode, refused.body).toBe(400);
        expect(refused.body).toContain('psp_account_id');
        expect(refused.body).toContain('Midtrans takes IDR only; this offer is in EUR');
        const offers = (await app.server.inject({ method: 'GET', url: '/api/backoffice/offers', headers: { authorization: m.dashboard } })).json() as {
          merchant_uid: string;
          psp: string;
        }[];
        expect(offers.find((o) => o.merchant_uid === offer)).toMatchObject({ psp: 'sandbox' });
      });

      it('a purchase in IDR with sen is refused at creation on both APIs, naming its amount field, never rounded; whole rupiah is taken', async () => {
        await priceOffersIn(app, m, 'IDR');
        const offer = m.offer('SHARED');
        const bound = await send(m, 'PATCH', `/api/backoffice/offers/${offer}`, { psp_account_id: psa });
        expect(bound.statusCode, bound.body).toBe(200);
        const count = async () => Number((await app.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM purchases WHERE account_id = $1', [m.accountId])).rows[0]!.n);

        const v1 = await m.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 1_000_050, merchant_uid: offer }));
        expect(v1.statusCode, v1.body).toBe(406);
        expect(v1.json().error.message).toContain('amount must be a multiple of 100 (whole units of IDR: Midtrans takes no minor unit)');
        const link = await m.post(`/api/merchants/${offer}/purchase_link`, {
          data: { title: 'Weekend in Bali', amountCents: 1_000_050, email: 'leader@example.com', language: 'en_GB' },
          purchase_link_settings: {},
        });
        expect(link.statusCode, link.body).toBe(400);
        expect(link.body).toContain('amountCents must be a multiple of 100');
        expect(await count()).toBe(0);

        const whole = await m.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 1_000_000, merchant_uid: offer }));
        expect(whole.statusCode, whole.body).toBe(201);
        expect(whole.json()).toMatchObject({ amount: 1_000_000, currency: 'IDR' });
      });

      it('a 3x purchase whose installments would carry sen is refused at creation, naming amount', async () => {
        const offer = m.offer('INSTALLMENTS', 3);
        const bound = await send(m, 'PATCH', `/api/backoffice/offers/${offer}`, { psp_account_id: psa });
        expect(bound.statusCode, bound.body).toBe(200);
        // Rp 10,001 in three (and its 1.5 % fee): whole rupiah overall, not each part; Rp 30,000 splits whole.
        const refused = await m.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 1_000_100, merchant_uid: offer }));
        expect(refused.statusCode, refused.body).toBe(406);
        expect(refused.json().error.message).toMatch(/amount would make .+, which must be a multiple of 100 \(whole units of IDR: Midtrans takes no minor unit\)/);
        const even = await m.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 3_000_000, merchant_uid: offer }));
        expect(even.statusCode, even.body).toBe(201);
      });

      it("a pledger's share with sen is refused when the leader pays, naming pledgers; no payment is reserved, so nothing reaches Midtrans", async () => {
        const offer = m.offer('SHARED');
        const id = await purchase(m, offer, 1_000_000, 'midtrans-sen-share');
        const res = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: fake.card, pledgers: [{ email: 'ann@example.com', amount_cents: 400_050 }] });
        expect(res.statusCode, res.body).toBe(400);
        expect(res.body).toContain('field pledgers: psp_amount: pledgers[0] of 400050 must be a multiple of 100');
        expect(await payments(id)).toEqual([]);
        expect(await state(m, id)).toBe('INITIALIZED');
      });

      it('a partial refund that would give back sen is refused (406) naming amount, before anything is reserved; whole rupiah is refunded', async () => {
        const offer = m.offer('SHARED');
        const id = await purchase(m, offer, 1_000_000, 'midtrans-sen-refund');
        const paid = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: fake.card });
        expect(paid.statusCode, paid.body).toBe(200);
        expect(await state(m, id)).toBe('SUCCESSFUL');
        const refunds = async () => Number((await app.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM refunds WHERE purchase_id = $1', [id])).rows[0]!.n);

        const refused = await m.post(`/api/merchants/v1/purchases/${id}/refunds`, { amount: 250_050 });
        bodies.push(refused.body);
        expect(refused.statusCode, refused.body).toBe(406);
        expect(refused.body).toContain('field amount would refund 250050 on one payment, which must be a multiple of 100');
        expect(await refunds()).toBe(0);
        expect((await payments(id)).map((p) => p.captured_cents)).toEqual([1_000_000]);

        const whole = await m.post(`/api/merchants/v1/purchases/${id}/refunds`, { amount: 250_000 });
        bodies.push(whole.body);
        expect(whole.statusCode, whole.body).toBe(201);
        expect(await refunds()).toBe(1);
      });
    });
}
