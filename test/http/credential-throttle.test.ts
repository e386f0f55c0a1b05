/**
 * The credential throttles hold under concurrency and across processes (docs/security.md,
 * "Throttles"): guesses sent at once spend the failure budget as guesses sent one by one do, and
 * every process on one database shares it. Each request comes from its own client address, as
 * from a botnet, so that only the per-user (per-key) budget of 5 is at work.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { AttemptBudgets, BUDGETS } from '../../src/auth/attempt-budgets.ts';
import { purgeSpentBudgets } from '../../src/auth/throttle-repository.ts';
import { basic, isolatedDatabase, newMerchant, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';

const GUESSES = 30;
const BUDGET = BUDGETS.dashboardUser.limit;

let isolated: IsolatedDatabase;
let a: TestApp;
let b: TestApp;

beforeAll(async () => {
  isolated = await isolatedDatabase();
  // Two processes of one deployment: one database (one schema on PostgreSQL), one master key.
  const masterKey = Buffer.alloc(32, 26);
  a = await startTestApp({ masterKey, jobPollIntervalMs: 0 }, { db: isolated.open(), shareDatabase: true });
  b = await startTestApp({ masterKey, jobPollIntervalMs: 0 }, { db: isolated.open(), shareDatabase: true });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await isolated?.dispose();
});

let address = 0;
const nextAddress = () => `203.0.113.${(address++ % 250) + 1}`;

function backoffice(app: TestApp, authorization: string): Promise<LightMyRequestResponse> {
  return app.server.inject({ method: 'GET', url: '/api/backoffice/offers', headers: { authorization }, remoteAddress: nextAddress() });
}

function token(app: TestApp, key: string, secret: string): Promise<LightMyRequestResponse> {
  return app.server.inject({
    method: 'POST',
    url: '/api/token',
    headers: { authorization: basic(key, secret), 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=client_credentials',
    remoteAddress: nextAddress(),
  });
}

/** How many of these answers came from comparing the credentials (200 or 401), not from the throttle (429). */
const checked = (answers: LightMyRequestResponse[]) => answers.filter((r) => r.statusCode === 200 || r.statusCode === 401).length;

describe('30 guesses for one e-mail sent at once', () => {
  it(`reach the password hash at most ${BUDGET} times; the right password among or after them is throttled`, async () => {
    const victim = await newMerchant(a);
    const hashes = vi.spyOn(a.services.accounts, 'dashboardUser');
    try {
      const answers = await Promise.all(Array.from({ length: GUESSES }, (_, i) => backoffice(a, basic(victim.email, i === GUESSES - 1 ? victim.password : `guess-${i}`))));
      expect(hashes.mock.calls.length).toBeLessThanOrEqual(BUDGET);
      expect(checked(answers)).toBeLessThanOrEqual(BUDGET);
      expect(answers.filter((r) => r.statusCode === 200).length).toBeLessThanOrEqual(1);
      for (const r of answers.filter((x) => x.statusCode === 429)) expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
      // However the race went, the guesses spent the budget: the right password is refused now.
      const after = await backoffice(a, basic(victim.email, victim.password));
      expect(after.statusCode).toBe(429);
      expect(after.json().error.app_error).toBe('too_many_requests');
    } finally {
      hashes.mockRestore();
    }
  });

  it('spend one budget whichever process they reach: two apps on one database', async () => {
    const victim = await newMerchant(a);
    const hashesA = vi.spyOn(a.services.accounts, 'dashboardUser');
    const hashesB = vi.spyOn(b.services.accounts, 'dashboardUser');
    try {
      const answers = await Promise.all(Array.from({ length: GUESSES }, (_, i) => backoffice(i % 2 === 0 ? a : b, basic(victim.email, `guess-${i}`))));
      expect(hashesA.mock.calls.length + hashesB.mock.calls.length).toBeLessThanOrEqual(BUDGET);
      expect(checked(answers)).toBeLessThanOrEqual(BUDGET);
      expect((await backoffice(a, basic(victim.email, victim.password))).statusCode).toBe(429);
      expect((await backoffice(b, basic(victim.email, victim.password))).statusCode).toBe(429);
    } finally {
      hashesA.mockRestore();
      hashesB.mockRestore();
    }
  });

  it('one by one, failures in one process throttle the next process too', async () => {
    const victim = await newMerchant(a);
    for (let i = 0; i < BUDGET; i++) expect((await backoffice(a, basic(victim.email, `guess-${i}`))).statusCode).toBe(401);
    expect((await backoffice(b, basic(victim.email, victim.password))).statusCode).toBe(429);
  });

  it('leave a user with the right password alone when they are not failures: successes give their place back', async () => {
    const user = await newMerchant(a);
    for (let i = 0; i < 3 * BUDGET; i++) expect((await backoffice(i % 2 ? a : b, basic(user.email, user.password))).statusCode).toBe(200);
  });
});

describe('30 guesses for one API key sent at once to POST /api/token', () => {
  it('are answered as if sent one by one across two processes: at most 5 wrong answers, the right secret after them throttled', async () => {
    const victim = await newMerchant(a);
    const answers = await Promise.all(Array.from({ length: GUESSES }, (_, i) => token(i % 2 ? a : b, victim.api_key, i === GUESSES - 1 ? victim.api_secret : `wrong-${i}`)));
    // The secret is compared for each (one SHA-256 of 256 random bits); what a guess learns is its
    // answer, and past the budget it is 429 whether the guess was right or wrong.
    expect(answers.filter((r) => r.statusCode === 401).length).toBeLessThanOrEqual(BUDGETS.tokenKey.limit);
    expect(answers.filter((r) => r.statusCode === 200).length).toBeLessThanOrEqual(1);
    expect(answers.filter((r) => r.statusCode === 429).length).toBeGreaterThanOrEqual(GUESSES - BUDGETS.tokenKey.limit - 1);
    const after = await token(b, victim.api_key, victim.api_secret);
    expect(after.statusCode).toBe(429);
    expect(after.json().error).toBe('too_many_requests');
  });

  it('lets a merchant ask for tokens on many connections at once', async () => {
    const merchant = await newMerchant(a);
    const answers = await Promise.all(Array.from({ length: GUESSES }, (_, i) => token(i % 2 ? a : b, merchant.api_key, merchant.api_secret)));
    expect(answers.map((r) => r.statusCode)).toEqual(Array(GUESSES).fill(200));
  });
});

describe('the failure budgets', () => {
  it('reset when their window ends, and count checks in flight: beyond the limit, retry in a second', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const budgets = new AttemptBudgets(a.services.db, () => now);
    const claim = { budget: BUDGETS.dashboardUser, subject: `window-${Date.now()}@shop.test` };
    const inFlight = [];
    for (let i = 0; i < BUDGET; i++) inFlight.push(await budgets.reserve([claim]));
    expect(inFlight.every((r) => r.ok)).toBe(true);
    expect(await budgets.reserve([claim])).toEqual({ ok: false, retryAfter: 1 });
    for (const r of inFlight) if (r.ok) await r.failed();
    expect(await budgets.reserve([claim])).toEqual({ ok: false, retryAfter: 60 });
    expect(await budgets.wait([claim])).toBe(60);
    now += 59_500;
    expect(await budgets.wait([claim])).toBe(1);
    now += 500;
    expect(await budgets.wait([claim])).toBe(0);
    const fresh = await budgets.reserve([claim]);
    expect(fresh.ok).toBe(true);
  });

  it('are purged an hour after their window ended, not before', async () => {
    const db = a.services.db;
    await db.query(
      `INSERT INTO auth_throttle (scope, subject, failures, pending, resets_at) VALUES
         ('purge_test', 'ended-long-ago', 5, 0, now() - interval '2 hours'), ('purge_test', 'ended-recently', 5, 0, now() - interval '10 minutes')`,
    );
    await purgeSpentBudgets(db);
    const { rows } = await db.query<{ subject: string }>("SELECT subject FROM auth_throttle WHERE scope = 'purge_test'");
    expect(rows.map((r) => r.subject)).toEqual(['ended-recently']);
    await db.query("DELETE FROM auth_throttle WHERE scope = 'purge_test'");
  });

  it('keep no e-mail, address or key as typed', async () => {
    const { rows } = await a.services.db.query<{ subject: string }>('SELECT subject FROM auth_throttle');
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r.subject).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
