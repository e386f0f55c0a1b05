import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { form, signIn } from '../helpers/dashboard.ts';

/** The back office's Offers pages: the list, and the PSP account an offer pays through. */
let app: TestApp;
let a: Caller;
let s: { cookie: string; csrf: string };

beforeAll(async () => {
  app = await startTestApp();
  a = await caller(app);
  s = await signIn(app, a.merchant);
});
afterAll(async () => {
  await app?.close();
});

const get = (url: string, cookie = s.cookie) => app.server.inject({ method: 'GET', url, headers: { cookie } });
const post = (url: string, body: string, cookie = s.cookie) =>
  app.server.inject({ method: 'POST', url, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: body });
const offersOf = async (c: Caller) =>
  (await app.server.inject({ method: 'GET', url: '/api/backoffice/offers', headers: { authorization: c.dashboard } })).json() as { merchant_uid: string; psp_account_id: string | null }[];
const newPspAccount = async (c: Caller, label: string) =>
  (
    await app.server.inject({
      method: 'POST',
      url: '/api/backoffice/psp_accounts',
      headers: { authorization: c.dashboard, 'content-type': 'application/json' },
      payload: JSON.stringify({ psp: 'sandbox', environment: 'test', label, credentials: {} }),
    })
  ).json().id as string;

describe('offers in the back office', () => {
  it("lists every offer of the account with its terms, and links each to its page", async () => {
    const page = await get('/dashboard/offers');
    expect(page.statusCode).toBe(200);
    for (const o of a.merchant.offers) expect(page.body).toContain(`href="/dashboard/offers/${o.merchant_uid}"`);
    expect(page.body).toContain('Shared pot');
  });

  it('points an offer at one of the account PSP accounts, then back at the built-in sandbox, through the API use case', async () => {
    const psa = await newPspAccount(a, 'Dashboard test');
    const uid = a.offer('SHARED');
    const saved = await post(`/dashboard/offers/${uid}`, form({ csrf: s.csrf, psp_account_id: psa }));
    expect(saved.statusCode).toBe(303);
    expect((await offersOf(a)).find((o) => o.merchant_uid === uid)?.psp_account_id).toBe(psa);
    const page = await get(saved.headers.location as string);
    expect(page.body).toContain('role="status"');
    expect(page.body).toMatch(new RegExp(`value="${psa}" selected`));

    expect((await post(`/dashboard/offers/${uid}`, form({ csrf: s.csrf, psp_account_id: '' }))).statusCode).toBe(303);
    expect((await offersOf(a)).find((o) => o.merchant_uid === uid)?.psp_account_id).toBeNull();
  });

  it("refuses another merchant's PSP account naming the field, and changes nothing", async () => {
    const b = await caller(app);
    const theirs = await newPspAccount(b, 'Not yours');
    const before = await offersOf(a);
    const res = await post(`/dashboard/offers/${a.offer('SHARED')}`, form({ csrf: s.csrf, psp_account_id: theirs }));
    expect(res.statusCode).toBe(400);
    expect(res.body).toMatch(/role="alert"[^>]*>PSP account:/);
    expect(await offersOf(a)).toEqual(before);
  });

  it('refuses a save without the CSRF token', async () => {
    const psa = await newPspAccount(a, 'CSRF');
    const before = await offersOf(a);
    expect((await post(`/dashboard/offers/${a.offer('SHARED')}`, form({ psp_account_id: psa }))).statusCode).toBe(403);
    expect(await offersOf(a)).toEqual(before);
  });

  it("answers 404 for another merchant's offer, shown or saved, and leaves it as it was", async () => {
    const b = await caller(app);
    const theirs = b.offer('SHARED');
    expect((await get(`/dashboard/offers/${theirs}`)).statusCode).toBe(404);
    const before = await offersOf(b);
    expect((await post(`/dashboard/offers/${theirs}`, form({ csrf: s.csrf, psp_account_id: '' }))).statusCode).toBe(404);
    expect(await offersOf(b)).toEqual(before);
    expect((await get('/dashboard/offers')).body).not.toContain(theirs);
  });
});
