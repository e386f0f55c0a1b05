import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { form, signIn } from '../helpers/dashboard.ts';
import { advance, Receiver, setWebhook } from '../delivery/helpers.ts';

/** Back-office purchase pages and actions through the HTTP interface (the browser run: test/browser/dashboard.test.ts). */
let app: TestApp;
let a: Caller;
let s: { cookie: string; csrf: string };

const CARD = '4242424242424242';

beforeAll(async () => {
  app = await startTestApp();
  a = await caller(app);
  s = await signIn(app, a.merchant);
});
afterAll(async () => {
  await app?.close();
});

async function purchase(over: Record<string, unknown> = {}, pay = true): Promise<string> {
  const res = await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000, ...over }));
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().id as string;
  if (pay) expect((await a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: CARD })).statusCode).toBe(200);
  return id;
}

const get = (url: string) => app.server.inject({ method: 'GET', url, headers: { cookie: s.cookie } });
const post = (url: string, fields: Record<string, string>) =>
  app.server.inject({ method: 'POST', url, headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form(fields) });
const v1 = async (id: string) => (await a.get(`/api/merchants/v1/purchases/${id}`)).json() as { state: string };

describe('the purchases list', () => {
  it('finds a purchase by reference, by client e-mail (any case) and by id, and filters by state', async () => {
    const id = await purchase({ ref: 'LIST-REF-1', client: { email: 'Zoe.List@example.com' } });
    const other = await purchase({ ref: 'LIST-REF-2' }, false);
    const has = async (query: string) => {
      const res = await get(`/dashboard/purchases?${query}`);
      expect(res.statusCode, query).toBe(200);
      return { mine: res.body.includes(id), other: res.body.includes(other) };
    };
    expect(await has('q=LIST-REF-1')).toEqual({ mine: true, other: false });
    expect(await has('q=zoe.list%40example.com')).toEqual({ mine: true, other: false });
    expect(await has(`q=pur_${id}`)).toEqual({ mine: true, other: false });
    expect(await has('state=INITIALIZED')).toEqual({ mine: false, other: true });
    expect(await has('state=SUCCESSFUL&q=LIST-REF-1')).toEqual({ mine: true, other: false });
  });

  it('names the states in words that fit every offer: a 3x plan under way is "In progress", not the pot\'s "Leader paid"', async () => {
    const plan = await purchase({ ref: 'LIST-3X', merchant_uid: a.offer('INSTALLMENTS', 3) });
    const unpaid = await purchase({ ref: 'LIST-UNPAID' }, false);
    const row = async (ref: string, lang = 'en') => {
      const body = (await get(`/dashboard/purchases?q=${ref}&lang=${lang}`)).body;
      const at = body.indexOf(`>${ref}</a>`);
      expect(at, ref).toBeGreaterThan(0);
      return body.slice(at, body.indexOf('</tr>', at));
    };
    expect(await row('LIST-3X')).toContain('<span class="state">In progress</span>');
    expect(await row('LIST-UNPAID')).toContain('<span class="state">Not paid yet</span>');
    expect(await row('LIST-3X', 'fr')).toContain('<span class="state">En cours</span>');
    expect(await row('LIST-UNPAID', 'fr')).toContain('<span class="state">Pas encore payé</span>');
    expect((await get('/dashboard/purchases')).body).not.toContain('Leader paid');
    expect((await v1(plan)).state).toBe('LEADER_PROCESSED');
    expect((await v1(unpaid)).state).toBe('INITIALIZED');
  });

  it('pages with a cursor, keeping the filters', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 22; i++) ids.push(await purchase({ ref: 'PAGED' }, false));
    const first = await get('/dashboard/purchases?q=PAGED');
    const next = /href="(\/dashboard\/purchases\?[^"]*cursor=[^"]+)" rel="next"/.exec(first.body)?.[1]?.replace(/&amp;/g, '&');
    expect(next).toContain('q=PAGED');
    const second = await get(next!);
    const shown = (body: string) => ids.filter((id) => body.includes(id)).length;
    expect([shown(first.body), shown(second.body)]).toEqual([20, 2]);
    expect(second.body).not.toContain('rel="next"');
  });

  it('names the filter that is wrong and lists nothing', async () => {
    const res = await get('/dashboard/purchases?from=2026-13-45');
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Created from: enter a date as YYYY-MM-DD.');
  });

  it('refuses a day the service cannot compute with (400, the form naming the field, in the page’s language), never a 500', async () => {
    const res = await get('/dashboard/purchases?from=0001-01-01&to=9999-12-31');
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Created from: enter a date from 1970-01-01 to 9998-12-31.');
    expect(res.body).toContain('Created up to (inclusive): enter a date from 1970-01-01 to 9998-12-31.');
    const to = await get('/dashboard/purchases?to=9999-12-31');
    expect(to.statusCode).toBe(400);
    expect(to.body).not.toContain('Created from:');
    const fr = await app.server.inject({ method: 'GET', url: '/dashboard/purchases?to=9999-12-31&lang=fr', headers: { cookie: s.cookie, 'accept-language': 'fr-FR' } });
    expect(fr.statusCode).toBe(400);
    expect(fr.body).toContain('Créé jusqu’au (inclus)\u00a0: saisissez une date du 1970-01-01 au 9998-12-31.');
    expect((await get('/dashboard/purchases?from=1970-01-01&to=9998-12-31')).statusCode).toBe(200);
  });
});

describe('refund and cancel', () => {
  it('refunds only after the confirmation step, through the API use case (the refund is listed by the API)', async () => {
    const id = await purchase();
    const asked = await post(`/dashboard/purchases/pur_${id}/refund`, { csrf: s.csrf, amount: '25.00', reason: 'Damaged' });
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain('Confirm the refund');
    expect((await a.get(`/api/merchants/v1/purchases/${id}/refunds`)).json().data).toEqual([]);

    const done = await post(`/dashboard/purchases/pur_${id}/refund`, { csrf: s.csrf, amount: '25.00', reason: 'Damaged', confirm: 'yes' });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe(`/dashboard/purchases/pur_${id}?done=refund`);
    const refunds = (await a.get(`/api/merchants/v1/purchases/${id}/refunds`)).json().data as { amount: number; reason: string }[];
    expect(refunds.map((r) => [r.amount, r.reason])).toEqual([[2_500, 'Damaged']]);
  });

  it('offers up to what the refund itself allows: on a 3x plan, the first installment collected and the two not yet collected', async () => {
    const id = await purchase({ merchant_uid: a.offer('INSTALLMENTS', 3), amount: 30_000 });
    const page = await get(`/dashboard/purchases/pur_${id}`);
    // 104.50 collected (the fee included) and 200.00 still to collect, which a refund cancels first.
    expect(page.body).toContain('Up to €304.50.');
    const done = await post(`/dashboard/purchases/pur_${id}/refund`, { csrf: s.csrf, amount: '304.50', confirm: 'yes' });
    expect(done.statusCode, done.body).toBe(303);
    expect(await v1(id)).toMatchObject({ state: 'REFUNDED' });
    expect((await get(`/dashboard/purchases/pur_${id}`)).body).not.toContain('id="refund-heading"');
  });

  it('refuses an amount above what is left, saying why, and refunds nothing', async () => {
    const id = await purchase();
    const res = await post(`/dashboard/purchases/pur_${id}/refund`, { csrf: s.csrf, amount: '500', confirm: 'yes' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toMatch(/role="alert"[^>]*>Amount: at most €100\.00, what is left to refund\./);
    expect((await a.get(`/api/merchants/v1/purchases/${id}/refunds`)).json().data).toEqual([]);
    // The page's language, even when the refund itself refused it (the confirmation posted directly).
    const fr = await app.server.inject({
      method: 'POST',
      url: `/dashboard/purchases/pur_${id}/refund?lang=fr`,
      headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'fr-FR' },
      payload: form({ csrf: s.csrf, amount: '500', confirm: 'yes' }),
    });
    expect(fr.statusCode).toBe(400);
    expect(fr.body).toMatch(/role="alert"[^>]*>Montant\u00a0: au plus 100,00\u00a0€, ce qu’il reste à rembourser\./);
  });

  it('refuses an amount that is not one, naming the field', async () => {
    const id = await purchase();
    const res = await post(`/dashboard/purchases/pur_${id}/refund`, { csrf: s.csrf, amount: 'ten', confirm: 'yes' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Amount: enter an amount such as 12.50.');
  });

  it('cancels an unpaid purchase after confirmation, and refuses to cancel one with money captured', async () => {
    const unpaid = await purchase({}, false);
    expect((await post(`/dashboard/purchases/pur_${unpaid}/cancel`, { csrf: s.csrf })).body).toContain('Confirm the cancellation');
    expect((await v1(unpaid)).state).toBe('INITIALIZED');
    expect((await post(`/dashboard/purchases/pur_${unpaid}/cancel`, { csrf: s.csrf, confirm: 'yes' })).statusCode).toBe(303);
    expect((await v1(unpaid)).state).toBe('CANCELLED');

    const paid = await purchase();
    const refused = await post(`/dashboard/purchases/pur_${paid}/cancel`, { csrf: s.csrf, confirm: 'yes' });
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('Money was captured on this purchase: refund it instead.');
    expect((await v1(paid)).state).toBe('SUCCESSFUL');
  });

  it('refuses an action posted without the CSRF token, or with another session’s, and does nothing', async () => {
    const id = await purchase({}, false);
    const other = await signIn(app, (await caller(app)).merchant);
    for (const fields of [{ confirm: 'yes' }, { confirm: 'yes', csrf: other.csrf }] as Record<string, string>[]) {
      const res = await post(`/dashboard/purchases/pur_${id}/cancel`, fields);
      expect(res.statusCode).toBe(403);
    }
    expect((await v1(id)).state).toBe('INITIALIZED');
  });

  it('shows its webhooks and every attempt at sending them, refused ones included, on the timeline', async () => {
    // A merchant of its own: its webhook must not reach the other tests' purchases.
    const w = await caller(app);
    const ws = await signIn(app, w.merchant);
    const page = async (id: string) => (await app.server.inject({ method: 'GET', url: `/dashboard/purchases/pur_${id}`, headers: { cookie: ws.cookie } })).body;
    const create = async (ref: string) => (await w.post('/api/merchants/v1/purchases', minimalPurchase({ ref, amount: 10_000 }))).json().id as string;
    const receiver = await Receiver.start();
    try {
      receiver.answer = { kind: 'status', code: 500 };
      await setWebhook(app, w, receiver.url(), ['paymentProcessed']);
      const id = await create('WEBHOOK-TIMELINE');
      expect((await w.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: CARD })).statusCode).toBe(200);
      await receiver.waitFor((r) => r.length === 1, 'the first attempt');
      receiver.answer = { kind: 'status', code: 204 };
      await expect.poll(() => page(id)).toContain('attempt 1: HTTP 500 (retry_scheduled)');
      // The retry falls due once the service clock passes it.
      for (let i = 0; i < 30 && receiver.received.length < 2; i++) await advance(app, 120);
      await receiver.waitFor((r) => r.length === 2, 'the retry');
      await expect.poll(() => page(id)).toContain('attempt 2: HTTP 204 (succeeded)');
      const shown = await page(id);
      expect(shown).toContain('Webhooks and notifications');
      expect(shown).toMatch(/Webhook paymentProcessed<br><span class="muted">dlv_[0-9a-f-]{36}<\/span><\/td><td>Delivered<\/td><td>2<\/td><td>204<\/td>/);
      // A PSP transaction that moved while the purchase's state did not shows that state once, not "(Paid → Paid)".
      const moves = [...shown.matchAll(/\(([^()<]+) → ([^()<]+)\)/g)];
      expect(moves.length).toBeGreaterThan(0);
      for (const [, from, to] of moves) expect(from).not.toBe(to);
      // Another purchase of the account shows none of these attempts.
      expect(await page(await create('NO-WEBHOOK-HERE'))).not.toContain('attempt 1');
    } finally {
      await receiver.close();
    }
  });

  it("answers 404 for another merchant's purchase, on the page and on the actions", async () => {
    const b = await caller(app);
    const theirs = (await b.post('/api/merchants/v1/purchases', minimalPurchase())).json().id as string;
    expect((await get(`/dashboard/purchases/pur_${theirs}`)).statusCode).toBe(404);
    expect((await post(`/dashboard/purchases/pur_${theirs}/cancel`, { csrf: s.csrf, confirm: 'yes' })).statusCode).toBe(404);
    expect((await b.get(`/api/merchants/v1/purchases/${theirs}`)).json().state).toBe('INITIALIZED');
  });
});
