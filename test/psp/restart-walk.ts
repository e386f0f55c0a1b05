/**
 * The restart walk, shared by test/psp/restart-{1,2,3,4,5}.test.ts, each of which walks a fifth
 * of the connectors ({@link restartPart}: every connector in exactly one file, a new one included;
 * one file of all of them took about 400 s on PGlite, past the suite's per-file budget,
 * docs/testing.md#the-budget).
 *
 * Connectors keep no payment state in memory (docs/psp-connectors.md#state-and-idempotency): for
 * each connector, one service authorises two payments; a second one, which never saw them, voids
 * the one and captures the other at its deferred date; a third refunds it. Each does it through
 * the public API and the jobs, from what the payment rows hold. Runs on PGlite and PostgreSQL.
 * A PSP that takes one other currency (Midtrans: IDR) runs it with its offers priced in it
 * (priceOffersIn: the figures below are EUR cents, read through `amount`).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { caller, cheapDashboardPassword, minimalPurchase, type Caller } from '../helpers/api.ts';
import { getToken, isolatedDatabase, onPostgres, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { NO_JOB_POLL } from '../delivery/helpers.ts';
import { BACK_MODE_PSPS, priceOffersIn, type FakePsp } from './fixtures/back-mode-psps.ts';

const SANDBOX_CARD = '4242 4242 4242 4242';

/** The back-mode connectors' fakes, and the built-in sandbox (no PSP account, so no fake). */
const CONNECTORS: Record<string, () => Promise<FakePsp | undefined>> = { sandbox: async () => undefined, ...BACK_MODE_PSPS };

/**
 * On PostgreSQL the connectors' walks run at once (`describe.concurrent`), {@link WALKS_AT_ONCE}
 * at a time, each on a database, a fake and apps of its own: while one walk waits for the server,
 * another runs (79 s alone before, 54 s after: docs/testing.md). Each app's pool is
 * {@link WALK_POOL} connections: the five parts run in parallel workers, and with the service's
 * default pool (10) four parts of three walks met the server's max_connections (100) and answered
 * 503 (a CI run of db77cc86). On PGlite they take turns: the
 * embedded database runs on this thread, which a profile shows busy 96 % of a walk (the database,
 * then Fastify's schema compilers at each app start), so walks at once would only share it, and
 * an app start would wait behind the others' queries (Fastify gives a plugin 10 s to load).
 */
const WALKS_AT_ONCE = onPostgres ? 2 : 1;
/** A walk makes one request at a time, beside its jobs worker: 5 connections leave it room. */
const WALK_POOL = 5;
/** A hang guard for one walk, its wait for a turn included; not a timing assertion. */
const WALK_MS = 300_000;
let walking = 0;
const waiting: (() => void)[] = [];
async function turn(): Promise<() => void> {
  while (walking >= WALKS_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  walking++;
  return () => {
    walking--;
    waiting.shift()?.();
  };
}

/** The connectors of part `n` of {@link PARTS}: every connector's name, sorted, dealt in turn. */
const PARTS = 5;
export function restartPart(n: number): string[] {
  return Object.keys(CONNECTORS)
    .sort()
    .filter((_, i) => i % PARTS === n - 1);
}

export function describeRestartWalks(psps: readonly string[]): void {
  describe.concurrent.each(psps)(`a %s payment across service restarts (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, (psp) => {
    let db: IsolatedDatabase;
    let app: TestApp | undefined;
    let fake: FakePsp | undefined;
    let m: Caller;
    // Every service of a deployment has the same master key (PSP credentials are sealed with it).
    const masterKey = randomBytes(32);

    /** Stops the running service (if any) and starts a new one on the same database: nothing kept in memory. */
    async function restart(): Promise<void> {
      await app?.close();
      app = await startTestApp({ ...NO_JOB_POLL, masterKey }, { db: db.open({ max: WALK_POOL }), shareDatabase: true });
      if (m) m = await again(app, m);
    }

    /** The same merchant on the new service, with a token of its own. */
    async function again(on: TestApp, before: Caller): Promise<Caller> {
      const token = await getToken(on, before.merchant);
      const auth = { authorization: `Bearer ${token}` };
      return {
        ...before,
        token,
        get: (url, headers = {}) => on.server.inject({ method: 'GET', url, headers: { ...auth, ...headers } }),
        post: (url, payload, headers = {}) =>
          on.server.inject({ method: 'POST', url, headers: { ...auth, 'content-type': 'application/json', ...headers }, payload: JSON.stringify(payload ?? {}) }),
      };
    }

    async function payments(id: string) {
      const { rows } = await app!.services.db.query<{ status: string; captured_cents: number; refunded_cents: number }>(
        'SELECT status, captured_cents::int AS captured_cents, refunded_cents::int AS refunded_cents FROM payments WHERE purchase_id = $1 ORDER BY created_at',
        [id],
      );
      return rows.map((r) => [r.status, r.captured_cents, r.refunded_cents]);
    }

    const state = async (id: string) => ((await m.get(`/api/merchants/v1/purchases/${id}`)).json() as { state: string }).state;

    it('authorised by one service, captured, refunded and voided by the next ones', { timeout: WALK_MS }, async () => {
      const done = await turn();
      try {
        db = await isolatedDatabase();
        fake = await CONNECTORS[psp]!();
        await walk();
      } finally {
        await app?.close();
        await fake?.close();
        await db?.dispose();
        done();
      }
    });

    async function walk(): Promise<void> {
      await restart();
      m = await caller(app!);
      await cheapDashboardPassword(app!, m); // its back-office calls below: a cheap scrypt each
      const offer = m.offer('DEFERRED');
      const amount = await priceOffersIn(app!, m, fake?.currency);
      if (fake) {
        const created = await app!.server.inject({
          method: 'POST',
          url: '/api/backoffice/psp_accounts',
          headers: { authorization: m.dashboard, 'content-type': 'application/json' },
          payload: JSON.stringify({ psp, environment: 'test', label: psp, credentials: fake.credentials, endpoint_url: fake.endpointUrl }),
        });
        expect(created.statusCode, created.body).toBe(201);
        const bound = await app!.server.inject({
          method: 'PATCH',
          url: `/api/backoffice/offers/${offer}`,
          headers: { authorization: m.dashboard, 'content-type': 'application/json' },
          payload: JSON.stringify({ psp_account_id: created.json().id }),
        });
        expect(bound.statusCode, bound.body).toBe(200);
      }
      const card = fake?.card ?? SANDBOX_CARD;
      const holds: string[] = [];
      for (const eurCents of [15_000, 8_000]) {
        const p = await m.post('/api/merchants/v1/purchases', minimalPurchase({ amount: amount(eurCents), merchant_uid: offer }));
        expect(p.statusCode, p.body).toBe(201);
        const id = p.json().id as string;
        const paid = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: card });
        expect(paid.statusCode, paid.body).toBe(200);
        expect(await payments(id)).toEqual([['authorized', 0, 0]]);
        holds.push(id);
      }
      const [toCapture, toVoid] = holds as [string, string];

      // The other hold, released by a cancel on a service that never saw it.
      await restart();
      const cancelled = await m.post(`/api/merchants/v1/purchases/${toVoid}/cancel`, {});
      expect(cancelled.statusCode, cancelled.body).toBeLessThan(300);
      expect(await payments(toVoid)).toEqual([['voided', 0, 0]]);

      // The first captured at its deferred date by the same service's job, which never saw it either.
      const moved = await m.post('/api/sandbox/clock', { advance_seconds: 31 * 86_400 });
      expect(moved.statusCode, moved.body).toBe(200);
      expect(await state(toCapture)).toBe('SUCCESSFUL');
      // The built-in sandbox's holds lapse after 7 days on the sandbox clock: its deferred payment is
      // then charged off session (a new payment). A real PSP's hold lives in real time: captured.
      const lapsed = psp === 'sandbox' ? [['expired', 0, 0]] : [];
      expect(await payments(toCapture)).toEqual([...lapsed, ['captured', amount(15_000), 0]]);

      // And refunded in part by the next one, through the merchant API.
      await restart();
      const refund = await m.post(`/api/merchants/v1/purchases/${toCapture}/refunds`, { amount: amount(5_000) });
      expect(refund.statusCode, refund.body).toBeLessThan(300);
      expect(await payments(toCapture)).toEqual([...lapsed, ['refunded', amount(15_000), amount(5_000)]]);
    }
  });
}
