/**
 * Expiry (docs/purchase-lifecycle.md#expiry): a purchase still unpaid after its offer's
 * `expiry_hours` (24 by default) is CANCELLED ("Expired unpaid.", purchase.cancelled) by the
 * expiry sweep, driven by the sandbox clock; a leader payment whose outcome is unknown holds it
 * back; a purchase with a `purchase.expire` job and no `expires_at` (as the previous build creates
 * it during a rolling upgrade) expires through that job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleJob } from '../../src/jobs/scheduler.ts';
import { resumeLeaderAfterChallenge } from '../../src/use-cases/checkout/resolve-leader-attempt.ts';
import { EXPIRE_JOB } from '../../src/use-cases/checkout/expire-purchase.ts';
import { minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { onPostgres, startTestApp, type TestApp } from '../helpers/app.ts';
import { answerChallenge, CARDS } from '../use-cases/support.ts';

const HOUR = 3_600;

let app: TestApp;
let a: Caller;
let b: Caller;
beforeAll(async () => {
  app = await startTestApp();
  [a, b] = await twoMerchants(app);
  // Set per offer: B's SHARED offer expires its purchases after 2 hours.
  await app.services.db.query("UPDATE offers SET expiry_hours = 2 WHERE account_id = $1 AND type = 'SHARED'", [b.accountId]);
});
afterAll(() => app?.close());

const advance = async (seconds: number) => expect((await a.post('/api/sandbox/clock', { advance_seconds: seconds })).statusCode).toBe(200);
const v1 = async (c: Caller, id: string) => (await c.get(`/api/merchants/v1/purchases/${id}`)).json();
const create = async (c: Caller) => (await c.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000 }))).json().id as string;
const cancelledEvents = async (id: string) =>
  (await app.services.db.query<{ from_state: string }>("SELECT from_state FROM purchase_events WHERE purchase_id = $1 AND type = 'purchase.cancelled'", [id])).rows;
const expiry = async (id: string) =>
  (await app.services.db.query<{ created_at: Date; expires_at: Date | null }>('SELECT created_at, expires_at FROM purchases WHERE id = $1', [id])).rows[0]!;

describe(`expiry on the sandbox clock (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it("expires an unpaid purchase at its offer's expiry_hours, not before; a paid one is left alone", async () => {
    const unpaid = await create(a);
    const paid = await create(a);
    expect((await a.post(`/api/sandbox/purchases/pur_${paid}/pay`, { card_number: '4242424242424242' })).json().state).toBe('SUCCESSFUL');
    const short = await create(b);
    // Its expiry is a column of the purchase, set at creation; no job row per purchase.
    const shortExpiry = await expiry(short);
    expect(shortExpiry.expires_at!.getTime() - shortExpiry.created_at.getTime()).toBe(2 * HOUR * 1000);
    const unpaidExpiry = await expiry(unpaid);
    expect(unpaidExpiry.expires_at!.getTime() - unpaidExpiry.created_at.getTime()).toBe(24 * HOUR * 1000);
    expect((await app.services.db.query('SELECT 1 FROM jobs WHERE kind = $1', [EXPIRE_JOB])).rows).toEqual([]);

    await advance(2 * HOUR - 60);
    expect((await v1(b, short)).state).toBe('INITIALIZED');
    await advance(120);
    expect(await v1(b, short)).toMatchObject({ state: 'CANCELLED', comment: 'Expired unpaid.' });
    expect((await v1(a, unpaid)).state).toBe('INITIALIZED');

    await advance(22 * HOUR);
    expect(await v1(a, unpaid)).toMatchObject({ state: 'CANCELLED', comment: 'Expired unpaid.' });
    expect((await v1(a, paid)).state).toBe('SUCCESSFUL');
    const events = await app.services.db.query<{ type: string; from_state: string; to_state: string }>(
      "SELECT type, from_state, to_state FROM purchase_events WHERE purchase_id = $1 AND type = 'purchase.cancelled'",
      [unpaid],
    );
    expect(events.rows).toEqual([{ type: 'purchase.cancelled', from_state: 'CREATED', to_state: 'CANCELLED' }]);
    expect(await cancelledEvents(paid)).toEqual([]);
  });

  it('waits while a leader payment is unresolved, and expires the purchase once that payment failed', async () => {
    const id = await create(b); // expires 2 hours after its creation
    await advance(2 * HOUR - 600);
    const challenged = await b.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: CARDS.challenge });
    expect(challenged.statusCode, challenged.body).toBe(202);

    // Due, but the 3-D Secure attempt started 11 minutes ago is not resolved (nor abandoned yet
    // for the reconciliation): the expiry is pushed back five minutes, then again.
    await advance(660);
    expect((await v1(b, id)).state).toBe('INITIALIZED');
    const pushed = (await expiry(id)).expires_at!;
    expect(pushed.getTime()).toBeGreaterThan(app.services.clock.now().getTime());
    await advance(301);
    expect((await v1(b, id)).state).toBe('INITIALIZED');
    expect((await expiry(id)).expires_at!.getTime()).toBeGreaterThan(pushed.getTime());

    // The shopper fails the challenge: the attempt is refused, and the next sweep expires the purchase.
    await answerChallenge(app, (challenged.json() as { challenge_url: string }).challenge_url, 'fail');
    const { rows } = await app.services.db.query<{ id: string }>('SELECT id FROM payments WHERE purchase_id = $1', [id]);
    expect(await resumeLeaderAfterChallenge(app.services.payments, { id, accountId: b.accountId }, rows[0]!.id)).toMatchObject({ kind: 'declined' });
    expect((await v1(b, id)).state).toBe('INITIALIZED');
    await advance(301);
    expect(await v1(b, id)).toMatchObject({ state: 'CANCELLED', comment: 'Expired unpaid.' });
    expect(await cancelledEvents(id)).toEqual([{ from_state: 'CREATED' }]);
  });

  it('a purchase created with a purchase.expire job and no expires_at (an older build) expires through its job', async () => {
    const id = await create(b);
    // As the previous build writes it during a rolling upgrade (docs/deployment.md#rolling-upgrade).
    await app.services.db.query('UPDATE purchases SET expires_at = NULL WHERE id = $1', [id]);
    const runAt = new Date((await expiry(id)).created_at.getTime() + 2 * HOUR * 1000);
    await scheduleJob(app.services.db, { kind: EXPIRE_JOB, key: `${EXPIRE_JOB}:${id}`, runAt, payload: { purchaseId: id }, accountId: b.accountId });

    await advance(2 * HOUR - 60);
    expect((await v1(b, id)).state).toBe('INITIALIZED');
    await advance(120);
    expect(await v1(b, id)).toMatchObject({ state: 'CANCELLED', comment: 'Expired unpaid.' });
    expect(await cancelledEvents(id)).toEqual([{ from_state: 'CREATED' }]);
    const job = await app.services.db.query<{ done_at: Date | null; failed_at: Date | null }>('SELECT done_at, failed_at FROM jobs WHERE dedupe_key = $1', [`${EXPIRE_JOB}:${id}`]);
    expect(job.rows).toEqual([{ done_at: expect.any(Date), failed_at: null }]);
  });

  it('the expired payment page says so, abort answers 409 purchase_non_abortable, and it can no longer be paid', async () => {
    const id = await create(b);
    await advance(3 * HOUR);
    const page = await app.server.inject(`/pay/pur_${id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('This payment link has expired');
    const abort = await b.post(`/api/purchases/pur_${id}/abort`);
    expect(abort.statusCode).toBe(409);
    expect(abort.json().error.app_error).toBe('purchase_non_abortable');
    const pay = await b.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: '4242424242424242' });
    expect(pay.statusCode).toBe(409);
    expect((await v1(b, id)).state).toBe('CANCELLED');
  });
});
