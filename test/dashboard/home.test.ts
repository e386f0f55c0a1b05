import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { addDays } from '../../src/domain/dates.ts';
import { formatDate } from '../../src/i18n/format.ts';
import { listPledges } from '../../src/payments/pledge-repository.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { isolatedDatabase, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { signIn } from '../helpers/dashboard.ts';

/**
 * The back-office home page (docs/back-office.md): the signed-in account's last 30 days, every
 * figure made by the real flows (API, sandbox payments, refunds, the pot's deadline job, webhook
 * deliveries to a real HTTP endpoint). It moves the sandbox clock: a database of its own.
 */
let iso: IsolatedDatabase;
let db: Database;
let app: TestApp;
let a: Caller;
let b: Caller;
let hook: Server;
let s: { cookie: string; csrf: string };

const CARD = '4242424242424242';
const DECLINED = '4000000000000002';

beforeAll(async () => {
  iso = await isolatedDatabase();
  db = await iso.open();
  app = await startTestApp({ jobPollIntervalMs: 0 }, { db, shareDatabase: true, delivery: { timeoutMs: 300, random: () => 0.5, background: false } });
  [a, b] = [await caller(app, 'Shop A'), await caller(app, 'Shop B')];
  hook = createServer((_req, res) => res.writeHead(500).end('down'));
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  s = await signIn(app, a.merchant);
});
afterAll(async () => {
  await app?.close();
  await iso?.dispose();
  await new Promise((resolve) => hook?.close(resolve));
});

async function created(m: Caller, amount: number): Promise<string> {
  const res = await m.post('/api/merchants/v1/purchases', minimalPurchase({ amount }));
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

async function paid(m: Caller, amount: number, pledgers: { email: string; amount_cents: number }[] = []): Promise<string> {
  const id = await created(m, amount);
  const res = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: CARD, pledgers });
  expect(res.statusCode, res.body).toBe(200);
  return id;
}

const home = async (cookie = s.cookie) => {
  const res = await app.server.inject({ method: 'GET', url: '/dashboard', headers: { cookie } });
  expect(res.statusCode).toBe(200);
  return res.body;
};
/** The figure shown under a label (`<dt>label</dt><dd>value</dd>`), tags and spaces of every kind removed. */
const figure = (body: string, label: string) => new RegExp(`<dt>${label.replace(/[()]/g, '\\$&')}</dt><dd>(?:<a [^>]*>)?([^<]*)`).exec(body)?.[1]?.replace(/[\u00a0\u202f]/g, ' ');

describe('the home page', () => {
  it("counts the account's purchases, money, pots and deliveries of the last 30 days, and never another account's", async () => {
    // B's purchases, paid and refunded: none of them may show on A's page.
    for (let i = 0; i < 3; i++) await paid(b, 77_700);
    await b.post(`/api/merchants/v1/purchases/${await paid(b, 5_000)}/refunds`, {});

    // A webhook that answers 500: every delivery fails.
    const set = await app.server.inject({
      method: 'PUT',
      url: '/api/backoffice/webhook',
      headers: { authorization: a.dashboard, 'content-type': 'application/json' },
      payload: JSON.stringify({ url: `http://127.0.0.1:${(hook.address() as { port: number }).port}/hook` }),
    });
    expect(set.statusCode, set.body).toBe(200);

    await created(a, 1_000); // INITIALIZED
    await paid(a, 10_000); // SUCCESSFUL, the leader alone: no pot
    const refunded = await paid(a, 20_000);
    expect((await a.post(`/api/merchants/v1/purchases/${refunded}/refunds`, {})).statusCode).toBe(201);
    const failed = await created(a, 3_000);
    for (let i = 0; i < 3; i++) await a.post(`/api/sandbox/purchases/pur_${failed}/pay`, { card_number: DECLINED });
    expect((await a.get(`/api/merchants/v1/purchases/${failed}`)).json().state).toBe('FAILED');

    // A pot covered by the friend, and one left open until the deadline takes the rest from the leader.
    const byFriends = await paid(a, 6_000, [{ email: 'friend1@example.com', amount_cents: 3_000 }]);
    const [pledge] = await listPledges(db, a.accountId, byFriends);
    expect((await a.post(`/api/sandbox/pledges/plg_${pledge!.id}/pay`, { card_number: CARD })).statusCode).toBe(200);
    await paid(a, 8_000, [{ email: 'friend2@example.com', amount_cents: 4_000 }]);
    const clock = await a.post('/api/sandbox/clock', { advance_seconds: 49 * 3600 });
    expect(clock.statusCode, clock.body).toBe(200);
    await app.services.deliveries.worker.runDue();

    const body = await home();
    expect(figure(body, 'Purchases created')).toBe('6');
    expect(figure(body, 'Of these, paid in full')).toBe('3');
    expect(figure(body, 'Of these, failed')).toBe('1');
    expect(figure(body, 'Of these, refunded')).toBe('1');
    // Captured: 100 + 200 + the pot by friends 60 + the pot at the deadline 80 = 440.00; refunded 200.00.
    expect(figure(body, 'Collected on them (EUR)')).toBe('€440.00');
    expect(figure(body, 'Refunded on them (EUR)')).toBe('€200.00');
    expect(figure(body, 'Covered by the friends')).toBe('1');
    expect(figure(body, 'Rest charged to the leader at the deadline')).toBe('1');
    expect(figure(body, 'Delivered')).toBe('0');
    expect(Number(figure(body, 'Failing'))).toBeGreaterThan(0);
    expect(body).toContain('answer HTTP 500');
    expect(body).not.toContain('777.00');
    expect(body).toMatch(/<figure class="chart" aria-hidden="true">[^]*?<svg class="chart"/);
    // The text alternative: today's row in the table of days, with its count and amount.
    expect(body).toMatch(/<td class="num">6<\/td><td class="num">€480.00<\/td>/);

    // B sees its own figures only.
    const bBody = await home((await signIn(app, b.merchant)).cookie);
    expect(figure(bBody, 'Purchases created')).toBe('4');
    expect(figure(bBody, 'Collected on them (EUR)')).toBe('€2,381.00');
    expect(figure(bBody, 'Covered by the friends')).toBe('0');
  });

  it('is in French with ?lang=fr, amounts in the French format', async () => {
    const res = await app.server.inject({ method: 'GET', url: '/dashboard?lang=fr', headers: { cookie: s.cookie } });
    expect(figure(res.body, 'Montant encaissé (EUR)')).toBe('440,00 €');
    expect(res.body).toContain('<a href="/dashboard">Accueil</a>');
  });

  it("counts from the service clock's today: 31 days later the window is empty", async () => {
    expect((await a.post('/api/sandbox/clock', { advance_seconds: 31 * 86_400 })).statusCode).toBe(200);
    const body = await home();
    expect(figure(body, 'Purchases created')).toBe('0');
    expect(body).toContain('No purchase in these 30 days.');
  });

  it("counts the days of the account's time zone: a purchase made on the evening of a UTC day counts on the next day at UTC+14, on the home page and in the list it links to", async () => {
    const settings = await app.server.inject({
      method: 'POST',
      url: '/dashboard/settings',
      headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ csrf: s.csrf, time_zone: 'Pacific/Kiritimati' }).toString(),
    });
    expect(settings.statusCode, settings.body).toBe(200);
    // To 20:00 UTC of the service clock's day: the clocks of Kiritimati (UTC+14) already show the next day.
    const now = app.services.clock.now();
    const evening = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 20) + (now.getUTCHours() >= 20 ? 86_400_000 : 0);
    expect((await a.post('/api/sandbox/clock', { advance_seconds: Math.ceil((evening - now.getTime()) / 1000) })).statusCode).toBe(200);
    const at = app.services.clock.now();
    const utcDay = at.toISOString().slice(0, 10);
    const zoneDay = addDays(utcDay, 1);
    const id = await created(a, 1_234);

    const body = await home();
    expect(figure(body, 'Purchases created')).toBe('1');
    expect(body).toContain(`to ${formatDate(zoneDay, 'en')} (days of Pacific/Kiritimati)`);
    expect(body).toContain(`<td>${formatDate(zoneDay, 'en')}</td>`);
    const list = async (day: string) => (await app.server.inject({ method: 'GET', url: `/dashboard/purchases?from=${day}&to=${day}`, headers: { cookie: s.cookie } })).body;
    expect(await list(zoneDay)).toContain(id);
    expect(await list(utcDay)).not.toContain(id);
  });
});
