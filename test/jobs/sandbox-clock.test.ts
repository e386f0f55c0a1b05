import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChipinApp } from '../../src/app.ts';
import { ClockLimitError, MAX_OFFSET_MS, SandboxClock } from '../../src/clock/sandbox-clock.ts';
import type { Config } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { scheduleJob, type Job } from '../../src/jobs/scheduler.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { getToken, isolatedDatabase, newMerchant, startTestApp, type IsolatedDatabase } from '../helpers/app.ts';

const DAY = 86_400;
/** On PostgreSQL a second app gets its own connection pool, as a second process would. */
const onSecondHandle = !!process.env.DATABASE_URL;

/** An app on `db` that leaves it open (several apps share one database; `iso.dispose()` closes it). */
const appOn = (db: Database, config: Partial<Config> = {}) => startTestApp({ logLevel: 'silent', ...config }, { db, shareDatabase: true });

// The clock is service-wide: these tests move it on a database of their own.
let iso: IsolatedDatabase;
let db: Database;
let app: ChipinApp;
let token: string;
beforeAll(async () => {
  iso = await isolatedDatabase();
  db = await iso.open();
  // No background polling: what `ran` counts is then exactly what the advance ran.
  app = await appOn(db, { jobPollIntervalMs: 0 });
  token = await getToken(app, await newMerchant(app));
});
afterAll(async () => {
  await app?.close();
  await iso?.dispose();
});

const call = (method: 'GET' | 'POST', payload?: unknown, headers: Record<string, string> = { authorization: `Bearer ${token}` }, target = app) =>
  target.server.inject({
    method,
    url: '/api/sandbox/clock',
    headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    payload: payload === undefined ? undefined : JSON.stringify(payload),
  });

describe('sandbox clock routes', () => {
  it('GET answers the service clock and its offset', async () => {
    const before = Date.now();
    const res = await call('GET');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['now', 'offset_seconds']);
    const now = Date.parse(body.now);
    expect(now).toBeGreaterThanOrEqual(before + body.offset_seconds * 1000);
    expect(now).toBeLessThanOrEqual(Date.now() + body.offset_seconds * 1000);
  });

  it('POST advance_seconds moves the clock forward and runs a job that falls due 3 days later, not before', async () => {
    const kind = `test.clock.${randomUUID()}`;
    const seen: { job: Job; now: Date }[] = [];
    app.services.jobs.register(kind, async (job, ctx) => void seen.push({ job, now: ctx.now }));
    const start = (await call('GET')).json();
    const dueAt = new Date(app.services.clock.now().getTime() + 3 * DAY * 1000);
    await scheduleJob(app.services.db, { kind, key: `${kind}:deadline`, runAt: dueAt, payload: { purchase: 'p' } });

    const oneDay = await call('POST', { advance_seconds: DAY });
    expect(oneDay.statusCode).toBe(200);
    expect(oneDay.json()).toMatchObject({ offset_seconds: start.offset_seconds + DAY, ran: 0 });
    expect(seen).toHaveLength(0);

    const res = await call('POST', { advance_seconds: 2 * DAY });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({ now: expect.any(String), offset_seconds: start.offset_seconds + 3 * DAY, ran: 1 });
    expect(Date.parse(body.now)).toBeGreaterThanOrEqual(dueAt.getTime());
    expect(seen).toHaveLength(1);
    expect(seen[0]!.job.payload).toEqual({ purchase: 'p' });
    expect(seen[0]!.now.getTime()).toBeGreaterThanOrEqual(dueAt.getTime());
    // Every business timestamp now comes from the moved clock.
    expect(app.services.clock.now().getTime() - Date.now()).toBeGreaterThanOrEqual(3 * DAY * 1000 - 1_000);

    expect((await call('POST', { advance_seconds: DAY })).json().ran).toBe(0);
    expect(seen).toHaveLength(1);
  });

  it.each([
    ['missing', {}],
    ['zero', { advance_seconds: 0 }],
    ['negative (the clock never goes back)', { advance_seconds: -60 }],
    ['a fraction', { advance_seconds: 1.5 }],
    ['a string', { advance_seconds: '60' }],
    ['more than a year', { advance_seconds: 31_536_001 }],
  ])('POST answers 400 naming advance_seconds when it is %s', async (_name, payload) => {
    const before = (await call('GET')).json().offset_seconds;
    const res = await call('POST', payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: { app_error: 'invalid_request', debug: expect.stringContaining('advance_seconds'), info: expect.any(String) } });
    expect((await call('GET')).json().offset_seconds).toBe(before);
  });

  it('POST answers 400 for an unknown field, and for a body that is not JSON', async () => {
    const res = await call('POST', { advance_seconds: 60, rewind: true });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.debug).toContain('rewind');
    const bad = await app.server.inject({
      method: 'POST',
      url: '/api/sandbox/clock',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: '{"advance_seconds":',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.app_error).toBe('invalid_request');
  });

  it('both routes need an access token (401, Token API format)', async () => {
    for (const method of ['GET', 'POST'] as const) {
      const res = await call(method, method === 'POST' ? { advance_seconds: 60 } : undefined, {});
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
      expect(res.json().error.app_error).toBe('invalid_token');
    }
  });

  it('is one clock for every process: another app on the same database sees the move', async () => {
    const other = await appOn(onSecondHandle ? await iso.open() : db, { jobPollIntervalMs: 0 });
    try {
      const moved = (await call('POST', { advance_seconds: 3_600 })).json();
      // GET re-reads the shared offset at once; the clock itself within about a second.
      const seen = (await call('GET', undefined, { authorization: `Bearer ${await getToken(other, await newMerchant(other))}` }, other)).json();
      expect(seen.offset_seconds).toBe(moved.offset_seconds);
      await new Promise((resolve) => setTimeout(resolve, 1_300));
      expect(Math.abs(other.services.clock.now().getTime() - app.services.clock.now().getTime())).toBeLessThan(1_000);
    } finally {
      await other.close();
    }
  });

  it('answers only once the due jobs another process had claimed are finished', async () => {
    const other = await appOn(onSecondHandle ? await iso.open() : db, { jobPollIntervalMs: 0 });
    try {
      const kind = `test.settle.${randomUUID()}`;
      const finished: string[] = [];
      app.services.jobs.register(kind, async () => void finished.push('here'));
      other.services.jobs.register(kind, async () => {
        await new Promise((resolve) => setTimeout(resolve, 700));
        finished.push('there');
      });
      await scheduleJob(db, { kind, key: `${kind}:1`, runAt: new Date(app.services.clock.now().getTime() - 1_000) });
      const elsewhere = other.services.jobs.runDue();
      await expect.poll(async () => (await db.query('SELECT 1 FROM jobs WHERE kind = $1 AND locked_until IS NOT NULL', [kind])).rows.length).toBe(1);
      const res = await call('POST', { advance_seconds: 1 });
      expect(res.statusCode).toBe(200);
      expect(finished).toEqual(['there']);
      expect(res.json().ran).toBe(0);
      expect(await elsewhere).toBe(1);
    } finally {
      await other.close();
    }
  });
});

describe('installments that fell due together (issue 72)', () => {
  /** A 3x plan of €300.00 its leader paid with 4242 4242 4242 4242 through the sandbox route: LEADER_PROCESSED, two installments to collect. */
  async function paidPlan(m: Caller): Promise<string> {
    const created = await m.post('/api/merchants/v1/purchases', minimalPurchase({ merchant_uid: m.offer('INSTALLMENTS', 3), amount: 30_000 }));
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    const paid = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: '4242 4242 4242 4242' });
    expect(paid.statusCode).toBe(200);
    expect(paid.json().state).toBe('LEADER_PROCESSED');
    return id;
  }
  /** The plan as it ends: SUCCESSFUL, each installment charged once, €300.00 and the fees captured. */
  async function expectCollected(target: ChipinApp, m: Caller, id: string): Promise<void> {
    const purchase = await target.server.inject({ method: 'GET', url: `/api/merchants/v1/purchases/pur_${id}`, headers: { authorization: `Bearer ${m.token}` } });
    expect(purchase.json()).toMatchObject({ state: 'SUCCESSFUL', comment: 'All 3 installments are paid.' });
    const { rows } = await db.query<{ purpose: string; status: string; captured_cents: number }>(
      'SELECT purpose, status, captured_cents FROM payments WHERE purchase_id = $1 ORDER BY created_at',
      [id],
    );
    expect(rows.filter((p) => p.purpose === 'installment').map((p) => p.status)).toEqual(['captured', 'captured']);
    expect(rows.reduce((sum, p) => sum + p.captured_cents, 0)).toBe(30_000 + 450);
  }

  it('one move past two due dates collects both installments, one after the other: the plan ends SUCCESSFUL', async () => {
    const m = await caller(app);
    const id = await paidPlan(m);
    const moved = await m.post('/api/sandbox/clock', { advance_seconds: 70 * DAY });
    expect(moved.statusCode).toBe(200);
    await expectCollected(app, m, id);
  });

  it('a service stopped while two due dates pass collects both once started again: the plan ends SUCCESSFUL', async () => {
    // The service polls for due jobs, as in production.
    const before = await appOn(onSecondHandle ? await iso.open() : db, { jobPollIntervalMs: 100 });
    const m = await caller(before);
    const id = await paidPlan(m);
    // The outage: no process runs jobs while the clock passes both due dates.
    await before.close();
    await (await SandboxClock.open(db)).advance(70 * DAY);
    const after = await appOn(onSecondHandle ? await iso.open() : db, { jobPollIntervalMs: 100 });
    try {
      // Started again, it runs what fell due meanwhile, until nothing of the merchant's is due.
      const due = async () =>
        (await db.query('SELECT 1 FROM jobs WHERE account_id = $1 AND done_at IS NULL AND run_at <= $2', [m.accountId, after.services.clock.now()])).rows.length;
      await expect.poll(due, { timeout: 20_000 }).toBe(0);
      await expectCollected(after, m, id);
    } finally {
      await after.close();
    }
  });
});

describe('SandboxClock', () => {
  it('moves only forward, by whole seconds from 1 to a year, and reads its offset from the database', async () => {
    const clock = await SandboxClock.open(db);
    const offset = clock.offsetMs;
    await expect(clock.advance(0)).rejects.toThrow(RangeError);
    await expect(clock.advance(-1)).rejects.toThrow(RangeError);
    await expect(clock.advance(0.5)).rejects.toThrow(RangeError);
    await expect(clock.advance(31_536_001)).rejects.toThrow(RangeError);
    expect(await clock.advance(10)).toBe(offset + 10_000);
    const fresh = await SandboxClock.open(db);
    expect(fresh.offsetMs).toBe(offset + 10_000);
  });

  it('refuses to go more than 100 years ahead (400 on the route)', async () => {
    const clock = await SandboxClock.open(db);
    const { rows } = await db.query<{ offset_ms: number }>('SELECT offset_ms FROM sandbox_clock');
    const saved = rows[0]!.offset_ms;
    await db.query('UPDATE sandbox_clock SET offset_ms = $1', [MAX_OFFSET_MS - 5_000]);
    try {
      await expect(clock.advance(60)).rejects.toThrow(ClockLimitError);
      const res = await call('POST', { advance_seconds: 60 });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.debug).toContain('advance_seconds');
    } finally {
      await db.query('UPDATE sandbox_clock SET offset_ms = $1', [saved]);
    }
  });

  it('never goes backwards in a process, even if the stored offset does', async () => {
    let wall = 1_000_000;
    const clock = await SandboxClock.open(db, { wallNow: () => wall });
    const t0 = clock.now().getTime();
    const { rows } = await db.query<{ offset_ms: number }>('SELECT offset_ms FROM sandbox_clock');
    const saved = rows[0]!.offset_ms;
    await db.query('UPDATE sandbox_clock SET offset_ms = 0');
    try {
      await clock.refresh();
      wall += 1;
      expect(clock.now().getTime()).toBe(t0 + 1);
    } finally {
      await db.query('UPDATE sandbox_clock SET offset_ms = $1', [saved]);
    }
  });
});

describe('in production', () => {
  let prod: ChipinApp;
  beforeAll(async () => {
    prod = await startTestApp({ env: 'production', masterKey: Buffer.alloc(32, 9), publicUrl: 'https://chipin.example' });
  });
  afterAll(() => prod?.close());

  it('has no sandbox clock routes (404) and runs on the system clock', async () => {
    const t = await getToken(prod, await newMerchant(prod));
    for (const [method, payload] of [
      ['GET', undefined],
      ['POST', { advance_seconds: 60 }],
    ] as const) {
      const res = await prod.server.inject({
        method,
        url: '/api/sandbox/clock',
        headers: { authorization: `Bearer ${t}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
        payload: payload ? JSON.stringify(payload) : undefined,
      });
      expect(res.statusCode).toBe(404);
      expect(res.json().error.app_error).toBe('not_found');
    }
    expect(prod.services.clock).toBe(systemClock);
    expect(prod.services.sandboxClock).toBeUndefined();
  });
});
