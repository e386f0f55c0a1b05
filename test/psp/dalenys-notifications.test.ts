/**
 * Dalenys' transaction notification through Chipin's route (`POST /api/psp/{psa_id}/notifications`):
 * a payment left waiting on 3-D Secure is resolved by the notification Dalenys sends once the
 * shopper passed the issuer's page — verified with the account password (HASH), answered `OK`,
 * applied once; a forged one is refused and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicId } from '../../src/domain/ids.ts';
import { caller, type Caller } from '../helpers/api.ts';
import { isolatedDatabase, onPostgres, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { NO_JOB_POLL, TEST_DELIVERY } from '../delivery/helpers.ts';
import { ACCOUNT, dalenysHarness, type DalenysHarness } from './fixtures/dalenys/harness.ts';

let db: IsolatedDatabase;
let app: TestApp;
let h: DalenysHarness;
let m: Caller;
let psa: string;

beforeAll(async () => {
  db = await isolatedDatabase();
  app = await startTestApp({ ...NO_JOB_POLL }, { db: db.open(), delivery: TEST_DELIVERY });
  h = await dalenysHarness();
  m = await caller(app);
  const created = await m.post(
    '/api/backoffice/psp_accounts',
    { psp: 'dalenys', environment: 'test', label: 'Dalenys', credentials: { identifier: ACCOUNT.identifier, password: ACCOUNT.password }, endpoint_url: h.fake.url },
    { authorization: m.dashboard },
  );
  expect(created.statusCode, created.body).toBe(201);
  psa = created.json().id as string;
  const bound = await app.server.inject({
    method: 'PATCH',
    url: `/api/backoffice/offers/${m.offer('DEFERRED')}`,
    headers: { authorization: m.dashboard, 'content-type': 'application/json' },
    payload: JSON.stringify({ psp_account_id: psa }),
  });
  expect(bound.statusCode, bound.body).toBe(200);
});
afterAll(async () => {
  await app?.close();
  await h?.teardown();
  await db?.dispose();
});

describe(`Dalenys notifications through Chipin (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('resolve a payment waiting on 3-D Secure once verified, answered OK; a forged one is refused and changes nothing', async () => {
    const link = await m.post(`/api/merchants/${m.offer('DEFERRED')}/purchase_link`, {
      data: { title: 'Weekend in Lisbon', amountCents: 9_000, email: 'leader@example.com', language: 'en_GB', reference: 'dalenys-ipn' },
      purchase_link_settings: {},
    });
    expect(link.statusCode, link.body).toBe(200);
    const id = parsePublicId('pur', (link.json() as { purchase_uid: string }).purchase_uid)!;
    const started = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: h.cards.challenge.number });
    expect(started.statusCode, started.body).toBe(202);
    const payment = async () =>
      (await app.services.db.query<{ status: string; psp_transaction_id: string }>('SELECT status, psp_transaction_id FROM payments WHERE purchase_id = $1', [id])).rows[0]!;
    const txn = (await payment()).psp_transaction_id;
    expect(h.fake.resolveChallenge(txn, 'complete')).toBe(true); // the shopper passed the issuer's page
    const body = h.fake.notificationFor(txn);
    const post = (payload: string) =>
      app.server.inject({ method: 'POST', url: `/api/psp/${psa}/notifications`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload });

    const forged = await post(body.replace(/HASH=[0-9a-f]/, (s) => (s.endsWith('0') ? 'HASH=1' : 'HASH=0')));
    expect(forged.statusCode).toBe(401);
    expect((await payment()).status).not.toBe('authorized');

    const ok = await post(body);
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toBe('OK');
    expect((await payment()).status).toBe('authorized');
    const again = await post(body);
    expect([again.statusCode, again.body]).toEqual([200, 'OK']);
    const { rows } = await app.services.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM purchase_events WHERE purchase_id = $1 AND type = 'payment.transaction' AND data->'transaction'->>'status' = 'authorized'",
      [id],
    );
    expect(rows[0]!.n).toBe(1);
    expect(ok.body + forged.body).not.toContain(ACCOUNT.password);
  });
});
