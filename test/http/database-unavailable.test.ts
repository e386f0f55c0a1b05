import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/db/unavailable.ts';
import { minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { onPostgres, startTestApp, type TestApp } from '../helpers/app.ts';

const URL = '/api/merchants/v1/purchases';

describe('which database errors are retryable (src/db/unavailable.ts)', () => {
  const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });
  it.each([
    ['the server shutting down the connection (57P01)', withCode('57P01'), true],
    ['a crash shutdown (57P02)', withCode('57P02'), true],
    ['a server starting up (57P03)', withCode('57P03'), true],
    ['a connection exception (08006)', withCode('08006'), true],
    ['a write reaching a standby not yet promoted (25006)', withCode('25006'), true],
    ['a refused connection (ECONNREFUSED)', withCode('ECONNREFUSED'), true],
    ['node-postgres: the connection ended', new Error('Connection terminated unexpectedly'), true],
    ['node-postgres: the pool could not connect in time', new Error('timeout exceeded when trying to connect'), true],
    ['node-postgres: a new connection given up at its timeout', new Error('Connection terminated due to connection timeout'), true],
    ['a unique violation (23505): the request, not the database', withCode('23505'), false],
    ['a syntax error (42601)', withCode('42601'), false],
    ['a serialization failure (40001)', withCode('40001'), false],
    ['not an error at all', { code: '57P01' }, false],
  ])('%s', (_what, err, retryable) => {
    expect(isDatabaseUnavailable(err)).toBe(retryable);
  });
});

/**
 * A request whose database connection is cut under it (as when the primary dies in a failover,
 * docs/deployment.md#reference-topology-and-failover) answers 503 `service_unavailable` with
 * Retry-After, writes nothing, and the same process serves the next request. PostgreSQL only: the
 * connection is cut with pg_terminate_backend while the request waits on a lock.
 */
describe.runIf(onPostgres)('a request whose database connection is cut', () => {
  let app: TestApp;
  let a: Caller;
  beforeAll(async () => {
    app = await startTestApp();
    [a] = await twoMerchants(app);
  });
  afterAll(() => app?.close());

  const purchases = async () => (await app.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM purchases WHERE account_id = $1', [a.accountId])).rows[0]!.n;

  it('answers 503 service_unavailable with Retry-After, writes nothing, and the next request is served', async () => {
    const before = await purchases();
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    // Holds the purchases table so that the create waits, in flight, on its connection.
    const holder = app.services.db
      .transaction(async (tx) => {
        await tx.query('LOCK TABLE purchases IN ACCESS EXCLUSIVE MODE');
        locked();
        await released;
        throw new Error('rolled back on purpose');
      })
      .catch(() => undefined);
    await isLocked;
    // A background reader queued on the same lock (as the expiry sweep can be): it is not cut.
    const reader = app.services.db.query<{ n: number }>("SELECT count(*)::int AS n FROM purchases WHERE state = 'CREATED' AND expires_at <= now()");
    const answer = a.post(URL, minimalPurchase(), { 'idempotency-key': 'cut-1' });
    // Bounded wait for the create's backend to queue on the lock, then cut its connection. Only
    // the create's: a background reader of purchases (the expiry sweep) may queue there too. Each
    // statement the create sends to purchases names request_key (the read by its Idempotency-Key,
    // the INSERT); no background one does.
    let cut = 0;
    for (let i = 0; i < 200 && cut === 0; i++) {
      const { rows } = await app.services.db.query<{ n: number }>(
        "SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid() AND query LIKE '%request_key%'",
      );
      cut = rows[0]!.n;
      if (cut === 0) await new Promise((r) => setTimeout(r, 25));
    }
    expect(cut).toBe(1);
    const res = await answer;
    release();
    await holder;
    expect((await reader).rows).toHaveLength(1);
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('2');
    expect(res.json().error.code).toBe('service_unavailable');
    expect(res.json().error.message).not.toMatch(/terminat|pg_|at .*\.ts/); // no internals
    expect(await purchases()).toBe(before);
    // The process serves on. The failed request's key stays claimed (its outcome could have been
    // a commit whose answer was lost, docs/api-conventions.md#idempotency-key) with its lease ended,
    // so the retry takes it over at once and creates the purchase once.
    expect((await a.post(URL, minimalPurchase(), { 'idempotency-key': 'cut-2' })).statusCode).toBe(201);
    const retried = await a.post(URL, minimalPurchase(), { 'idempotency-key': 'cut-1' });
    expect(retried.statusCode).toBe(201);
    expect((await a.post(URL, minimalPurchase(), { 'idempotency-key': 'cut-1' })).json().id).toBe(retried.json().id);
    expect(await purchases()).toBe(before + 2);
  });
});
