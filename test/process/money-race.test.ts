/**
 * The randomized race suite (test/use-cases/money-race-suite.ts) on two `chipin serve` processes
 * sharing one PostgreSQL database: each round's conflicting operations on a purchase go through
 * both processes at once, so only the purchase's claim in the database
 * (docs/money-operations.md#one-money-operation-at-a-time) keeps them apart. Judged at the sandbox
 * PSP's records, as in one process. A fixed seed and a random one (printed).
 *
 * PGlite is one process's embedded database: skipped there.
 */
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedDatabase, onPostgres, type IsolatedDatabase } from '../helpers/database.ts';
import { purchaseScript, raceRun, raceSeeds, type RaceTarget } from '../use-cases/money-race-suite.ts';
import { cleanUp, cliEnv, getToken, killAll, PROCESS_TEST_MS, runCli, startServe, tempDataDir, uniqueEmail, type CreatedMerchant, type Served } from './harness.ts';

if (!onPostgres) console.info('money race across processes skipped: it needs PostgreSQL (DATABASE_URL)');

afterAll(cleanUp);

describe.skipIf(!onPostgres)('money under concurrency with two processes on one database (PostgreSQL)', () => {
  let isolated: IsolatedDatabase | undefined;
  // A pool: the suite reads for many purchases at once, and one client would run those queries
  // two at a time (docs/testing.md#one-statement-at-a-time).
  let pool: pg.Pool | undefined;
  let servers: Served[] = [];
  let tokens: string[] = [];
  let target: RaceTarget;

  beforeAll(async () => {
    isolated = await isolatedDatabase();
    // No background job: due work runs when a process moves the clock, in that process.
    const extra = { ...isolated.env, JOB_POLL_INTERVAL_MS: '0', LOG_LEVEL: 'warn' };
    const r = await runCli(['merchant', 'create', '--name', 'Money Race Shop', '--email', uniqueEmail('money-race'), '--json'], cliEnv(tempDataDir(), extra));
    expect(r.code, r.stderr).toBe(0);
    const merchant = JSON.parse(r.stdout) as CreatedMerchant;
    pool = new pg.Pool({ connectionString: isolated.url!, max: 4 });
    servers = await Promise.all([startServe(tempDataDir(), extra), startServe(tempDataDir(), extra)]);
    tokens = await Promise.all(servers.map((s) => getToken(s.url, merchant.api_key, merchant.api_secret)));
    target = {
      processes: 2,
      async call(i, method, path, body, headers = {}) {
        const res = await fetch(`${servers[i]!.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${tokens[i]}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
          body: body ? JSON.stringify(body) : undefined,
          signal: AbortSignal.timeout(60_000),
        });
        return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
      },
      async browse(i, request) {
        const res = await fetch(`${servers[i]!.url}${request.path}`, {
          method: request.method,
          headers: request.headers,
          body: request.body,
          redirect: 'manual',
          signal: AbortSignal.timeout(60_000),
        });
        return { status: res.status, location: res.headers.get('location') ?? undefined, setCookie: res.headers.getSetCookie(), body: await res.text() };
      },
      query: async <T>(sql: string, params: unknown[]) => (await pool!.query(sql, params)).rows as T[],
      offers: merchant.offers,
    };
  }, PROCESS_TEST_MS);

  afterAll(async () => {
    await pool?.end();
    await killAll();
    await isolated?.dispose();
  });

  for (const [name, seed] of raceSeeds(52)) {
    it(
      `holds when the operations go through both processes at once (${name}: ${seed})`,
      async () => {
        console.info(`money race suite, two processes: seed ${seed} (replay with MONEY_RACE_SEED=${seed})`);
        let purchases = 0;
        await fc.assert(
          fc.asyncProperty(fc.array(purchaseScript, { minLength: 6, maxLength: 10 }), async (scripts) => {
            purchases += await raceRun(target, scripts);
          }),
          { seed, numRuns: 3, endOnFailure: true },
        );
        expect(purchases).toBeGreaterThan(0);
      },
      PROCESS_TEST_MS,
    );
  }
});
