import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../../src/audit/audit-repository.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { form, signIn } from '../helpers/dashboard.ts';

/** The audit log of staff actions (docs/back-office.md#audit-log): what is recorded, by whom, and where it is shown. */
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
const post = (url: string, fields: Record<string, string>) =>
  app.server.inject({ method: 'POST', url, headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: form(fields) });
const actions = async (accountId: string, subject?: string) => (await listAudit(app.services.db, accountId, { subject, limit: 50 })).map((e) => [e.action, e.actor]);

async function paidPurchase(): Promise<string> {
  const id = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000 }))).json().id as string;
  expect((await a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: '4242424242424242' })).statusCode).toBe(200);
  return id;
}

describe('the audit log', () => {
  it('records the sign-in with the user e-mail', async () => {
    expect(await actions(a.accountId)).toContainEqual(['sign_in', a.merchant.email]);
  });

  it('records a dashboard refund in the refund itself, and shows who did it on the purchase timeline', async () => {
    const id = await paidPurchase();
    expect((await post(`/dashboard/purchases/pur_${id}/refund`, { csrf: s.csrf, amount: '12.00', confirm: 'yes' })).statusCode).toBe(303);
    const entries = await listAudit(app.services.db, a.accountId, { subject: id, limit: 10 });
    expect(entries.map((e) => [e.action, e.actor, e.details.amount_cents])).toEqual([['refund', a.merchant.email, 1_200]]);
    const page = await get(`/dashboard/purchases/pur_${id}`);
    expect(page.body).toContain(`Refund requested, by ${a.merchant.email}`);
  });

  it('records nothing for a refused refund (the same transaction)', async () => {
    const id = await paidPurchase();
    expect((await post(`/dashboard/purchases/pur_${id}/refund`, { csrf: s.csrf, amount: '500', confirm: 'yes' })).statusCode).toBe(400);
    expect(await actions(a.accountId, id)).toEqual([]);
  });

  it('records a cancel through the Merchant API with the API key as the actor', async () => {
    const id = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 5_000 }))).json().id as string;
    expect((await a.post(`/api/merchants/v1/purchases/${id}/cancel`)).statusCode).toBe(200);
    expect(await actions(a.accountId, id)).toEqual([['cancel', `api_key:${a.merchant.api_key}`]]);
    // The Team page names the key by its end and links the purchase by its public id.
    const team = (await get('/dashboard/team')).body;
    expect(team).toContain(`Purchase cancelled, by the API (key ending ${a.merchant.api_key.slice(-4)})`);
    expect(team).toContain(`<a href="/dashboard/purchases/pur_${id}">pur_${id}</a>`);
  });

  it('records a webhook change without its secret, and lists it in the Team page activity', async () => {
    const res = await post('/dashboard/developers/webhook', { csrf: s.csrf, url: 'https://hooks.example/chipin?key=private', events: 'paymentProcessed' });
    expect(res.statusCode).toBe(200);
    const secret = /<code>(whsec_[^<]+)<\/code>/.exec(res.body)?.[1];
    expect(secret).toBeDefined();
    const [entry] = await listAudit(app.services.db, a.accountId, { limit: 1 });
    expect(entry).toMatchObject({ action: 'webhook_set', actor: a.merchant.email, details: { host: 'hooks.example', events: ['paymentProcessed'] } });
    expect(JSON.stringify(entry)).not.toContain(secret!);
    expect(JSON.stringify(entry)).not.toContain('private');
    const team = await get('/dashboard/team');
    expect(team.statusCode).toBe(200);
    expect(team.body).toContain(`Webhook saved, by ${a.merchant.email}`);
  });

  it("a password reset (the CLI's) ends the user's sessions and is recorded, by cli, in the same transaction", async () => {
    const b = await caller(app, 'Reset Shop');
    const session = await signIn(app, b.merchant);
    const reset = await app.services.accounts.resetDashboardPassword(b.merchant.email);
    expect(reset.revokedSessions).toBe(1);
    expect((await get('/dashboard/purchases', session.cookie)).headers.location).toBe('/dashboard/sign-in');
    expect((await actions(b.accountId))[0]).toEqual(['password_reset', 'cli']);
    expect(JSON.stringify(await listAudit(app.services.db, b.accountId, { limit: 10 }))).not.toContain(reset.password);
  });

  it('shows an account only its own entries', async () => {
    const b = await caller(app, 'Other Shop');
    const theirs = await signIn(app, b.merchant);
    const team = await get('/dashboard/team', theirs.cookie);
    expect(team.body).toContain(`Signed in, by ${b.merchant.email}`);
    expect(team.body).not.toContain(a.merchant.email);
  });
});

describe('the audit log in the sandbox', () => {
  // Last in the file: it moves the sandbox clock forward for the app.
  it("dates an entry by the service's clock, as the purchase's events beside it, once the sandbox clock was moved forward", async () => {
    const id = await paidPurchase();
    expect((await a.post('/api/sandbox/clock', { advance_seconds: 10 * 86_400 })).statusCode).toBe(200);
    expect((await a.post(`/api/merchants/v1/purchases/${id}/refunds`, { amount: 1_000 })).statusCode).toBe(201);
    const [entry] = await listAudit(app.services.db, a.accountId, { subject: id, limit: 1 });
    expect(entry!.action).toBe('refund');
    const ahead = entry!.createdAt.getTime() - Date.now();
    expect(ahead).toBeGreaterThan(9 * 86_400_000);
    expect(ahead).toBeLessThan(11 * 86_400_000);
  });
});
