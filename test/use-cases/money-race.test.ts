/**
 * The randomized race suite (./money-race-suite.ts) on one process: conflicting money operations
 * sent at once on the same purchases through the HTTP API, the clock moved across due dates,
 * deadlines and hold renewals, judged at the sandbox PSP's records
 * (docs/money-operations.md#one-money-operation-at-a-time). One run with a fixed seed, one with a
 * random seed printed so that a failure can be replayed (`MONEY_RACE_SEED=<seed>`); four more random
 * seeds in `npm run test:full`.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { caller, type Caller } from '../helpers/api.ts';
import { purchaseScript, raceRun, raceSeeds, type RaceTarget } from './money-race-suite.ts';

let app: TestApp;
let shop: Caller;
let target: RaceTarget;
let browsed = 0;
beforeAll(async () => {
  // No background job: the jobs run when the clock moves, as the suite moves it.
  app = await startTestApp({ jobPollIntervalMs: 0, logLevel: 'silent' });
  shop = await caller(app);
  target = {
    processes: 1,
    async call(_process, method, path, body, headers = {}) {
      const res = await app.server.inject({
        method,
        url: path,
        headers: { authorization: `Bearer ${shop.token}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(body ? { payload: JSON.stringify(body) } : {}),
      });
      return { status: res.statusCode, body: (res.body ? JSON.parse(res.body) : {}) as Record<string, unknown> };
    },
    async browse(_process, request) {
      // Each from an address of its own: the sign-in's budget per address is not what this suite is about.
      const res = await app.server.inject({
        method: request.method,
        url: request.path,
        headers: request.headers,
        remoteAddress: `198.51.100.${++browsed % 250}`,
        ...(request.body !== undefined ? { payload: request.body } : {}),
      });
      const setCookie = res.headers['set-cookie'];
      return { status: res.statusCode, location: res.headers.location as string | undefined, setCookie: ([] as string[]).concat(setCookie ?? []), body: res.body };
    },
    query: async <T>(sql: string, params: unknown[]) => (await app.services.db.query<T>(sql, params)).rows,
    offers: shop.merchant.offers,
  };
});
afterAll(() => app.close());

describe('money under concurrency, at the PSP', { timeout: 120_000 }, () => {
  for (const [name, seed] of raceSeeds(52)) {
    it(`holds for conflicting operations on the same purchases (${name}: ${seed})`, async () => {
      console.info(`money race suite: seed ${seed} (replay with MONEY_RACE_SEED=${seed})`);
      let purchases = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(purchaseScript, { minLength: 6, maxLength: 10 }), async (scripts) => {
          purchases += await raceRun(target, scripts);
        }),
        { seed, numRuns: 4, endOnFailure: true },
      );
      expect(purchases).toBeGreaterThan(0);
    });
  }
});
