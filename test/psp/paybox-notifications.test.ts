/**
 * PayBox's RemoteMPI return through Chipin's route: RemoteMPI calls the PSP account's
 * notification URL with a GET whose query string is the message (docs/psp/paybox.md), so
 * `GET /api/psp/{psa_id}/notifications` hands the query string, exactly as sent, to the connector.
 * A payment left waiting on 3-D Secure is then authorised with the ID3D, once; a forged call is
 * refused and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicId } from '../../src/domain/ids.ts';
import { caller, type Caller } from '../helpers/api.ts';
import { isolatedDatabase, onPostgres, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { NO_JOB_POLL, TEST_DELIVERY } from '../delivery/helpers.ts';
import { submitChallenge } from './fixtures/kit/index.ts';
import { CREDENTIALS, payboxHarness, type PayboxHarness } from './fixtures/paybox/harness.ts';

let db: IsolatedDatabase;
let app: TestApp;
let h: PayboxHarness;
let m: Caller;
let psa: string;

beforeAll(async () => {
  db = await isolatedDatabase();
  app = await startTestApp({ ...NO_JOB_POLL }, { db: db.open(), delivery: TEST_DELIVERY });
  h = await payboxHarness();
  m = await caller(app);
  const created = await m.post(
    '/api/backoffice/psp_accounts',
    { psp: 'paybox', environment: 'test', label: 'PayBox', credentials: CREDENTIALS, endpoint_url: h.fake.url },
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

describe(`PayBox's RemoteMPI return through Chipin (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('a GET carrying the signed session authorises the payment waiting on 3-D Secure, once; a forged one is refused and changes nothing', async () => {
    const link = await m.post(`/api/merchants/${m.offer('DEFERRED')}/purchase_link`, {
      data: { title: 'Weekend in Lisbon', amountCents: 9_000, email: 'leader@example.com', language: 'en_GB', reference: 'paybox-mpi' },
      purchase_link_settings: {},
    });
    expect(link.statusCode, link.body).toBe(200);
    const id = parsePublicId('pur', (link.json() as { purchase_uid: string }).purchase_uid)!;
    const started = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: h.cards.challenge.number });
    expect(started.statusCode, started.body).toBe(202);
    const payment = async () =>
      (
        await app.services.db.query<{ status: string; psp_state: { form?: { action: string; fields: Record<string, string> } } }>(
          'SELECT status, psp_state FROM payments WHERE purchase_id = $1',
          [id],
        )
      ).rows[0]!;

    // The shopper's browser at RemoteMPI: the form, then the issuer's page passed.
    const form = (await payment()).psp_state.form!;
    const arrival = await fetch(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form.fields).toString(),
    });
    const md = /name="MD" value="([^"]+)"/.exec(await arrival.text())?.[1];
    expect(md).toBeTruthy();
    await submitChallenge(form.action, { IdSession: form.fields.IdSession!, MD: md! }, 'complete', 200);
    const query = h.fake.mpiCallback(form.fields.IdSession!)!;
    expect(query).toBeTruthy();
    const get = (q: string) => app.server.inject({ method: 'GET', url: `/api/psp/${psa}/notifications?${q}` });

    const forged = await get(query.replace(/IdSession=[^&]+/, (s) => `${s.slice(0, -1)}${s.endsWith('A') ? 'B' : 'A'}`));
    expect(forged.statusCode).toBe(401);
    expect((await payment()).status).not.toBe('authorized');

    const ok = await get(query);
    expect(ok.statusCode, ok.body).toBe(200);
    expect((await payment()).status).toBe('authorized');
    expect((await get(query)).statusCode).toBe(200);
    const { rows } = await app.services.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM purchase_events WHERE purchase_id = $1 AND type = 'payment.transaction' AND data->'transaction'->>'status' = 'authorized'",
      [id],
    );
    expect(rows[0]!.n).toBe(1);
    expect(ok.body + forged.body).not.toContain(CREDENTIALS.cle);
  });

  it('a shopper who failed 3-D Secure cannot claim "authenticated": a return with 3DSTATUS forged is refused, nothing authorised; the signed failure declines', async () => {
    const link = await m.post(`/api/merchants/${m.offer('DEFERRED')}/purchase_link`, {
      data: { title: 'Weekend in Porto', amountCents: 9_500, email: 'leader@example.com', language: 'en_GB', reference: 'paybox-mpi-forged' },
      purchase_link_settings: {},
    });
    expect(link.statusCode, link.body).toBe(200);
    const id = parsePublicId('pur', (link.json() as { purchase_uid: string }).purchase_uid)!;
    expect((await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: h.cards.challenge.number })).statusCode).toBe(202);
    const payment = async () =>
      (
        await app.services.db.query<{ status: string; psp_transaction_id: string; psp_state: { form?: { action: string; fields: Record<string, string> } } }>(
          'SELECT status, psp_transaction_id, psp_state FROM payments WHERE purchase_id = $1',
          [id],
        )
      ).rows[0]!;
    const form = (await payment()).psp_state.form!;
    const arrival = await fetch(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form.fields).toString(),
    });
    const md = /name="MD" value="([^"]+)"/.exec(await arrival.text())?.[1];
    // The shopper fails the issuer's page; RemoteMPI's return (which the browser sees too, posted to
    // URLRetour) says so, with the authentication's ID3D.
    await submitChallenge(form.action, { IdSession: form.fields.IdSession!, MD: md! }, 'fail', 200);
    const failed = h.fake.mpiCallback(form.fields.IdSession!)!;
    expect(failed).toMatch(/3DSTATUS=N/);
    expect(failed).toMatch(/ID3D=\d+/);
    const get = (q: string) => app.server.inject({ method: 'GET', url: `/api/psp/${psa}/notifications?${q}` });

    // The same return, "authenticated": 3DSTATUS and StatusPBX changed, Paybox's signature kept,
    // then dropped; Chipin's IdSession MAC is intact in both.
    const claimed = failed.replace('3DSTATUS=N', '3DSTATUS=Y').replace('StatusPBX=Timeout', 'StatusPBX=Autorisation%20%e0%20faire');
    for (const forged of [claimed, claimed.replace(/&Check=[^&]*$/, '')]) {
      const res = await get(forged);
      expect(res.statusCode, forged).toBe(401);
      expect((await payment()).status).toBe('requires_action');
    }
    expect(h.fake.transactionByReference((await payment()).psp_transaction_id)).toBeUndefined();

    // RemoteMPI's own signed return: the payment is declined (authentication failed), nothing at Paybox.
    expect((await get(failed)).statusCode).toBe(200);
    expect((await payment()).status).toBe('declined');
    expect(h.fake.transactionByReference((await payment()).psp_transaction_id)).toBeUndefined();
  });
});
