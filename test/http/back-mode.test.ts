/**
 * Back mode (docs/psp-connectors.md#back-mode-merchants-own-psp-accounts): PSP accounts in the back
 * office, offers bound to them, connector instances per PSP account, PSD2 stored credentials, PSP
 * faults, inbound notifications, and no credential anywhere in a response or a log line. Uses PSP
 * accounts of the built-in sandbox and of a test-only connector with credential fields
 * (test/helpers/fake-psp.ts).
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signHs256 } from '../../src/delivery/jwt.ts';
import { sandboxDefinition } from '../../src/psp/sandbox/definition.ts';
import { collectInstallment } from '../../src/use-cases/installments/collect-installment.ts';
import { payAsLeader } from '../../src/use-cases/checkout/pay-as-leader.ts';
import { SandboxInProductionError } from '../../src/psp/registry.ts';
import { minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fakePspDefinition, type FakePspLog } from '../helpers/fake-psp.ts';
import { bareRef } from '../psp/connector-contract.ts';

const SECRET_KEY = 'sk_live_RECOGNISABLEsecret9QX7';
const PASSPHRASE = 'pass-RECOGNISABLE-phrase-42ZK';
const GOOD = { merchant_id: 'SHOP42', api_key: SECRET_KEY, algorithm: 'sha256', passphrase: PASSPHRASE };
const CARD = '4242 4242 4242 4242';

let app: TestApp;
let log: FakePspLog;
let fakeDefinition: ReturnType<typeof fakePspDefinition>['definition'];
let a: Caller;
let b: Caller;
const bodies: string[] = [];

function call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, auth: string, payload?: unknown): Promise<LightMyRequestResponse> {
  return app.server
    .inject({
      method,
      url,
      headers: { authorization: auth, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      payload: payload === undefined ? undefined : JSON.stringify(payload),
    })
    .then((res) => {
      bodies.push(res.body);
      return res;
    });
}

beforeAll(async () => {
  const fake = fakePspDefinition(() => app.services.psps.sandbox);
  log = fake.log;
  fakeDefinition = fake.definition;
  app = await startTestApp({ jobPollIntervalMs: 0 }, { pspDefinitions: [sandboxDefinition, fake.definition] });
  [a, b] = await twoMerchants(app);
});
afterAll(async () => {
  await app?.close();
});

async function createAccount(caller: Caller, over: Record<string, unknown> = {}, query = ''): Promise<LightMyRequestResponse> {
  return call('POST', `/api/backoffice/psp_accounts${query}`, caller.dashboard, { psp: 'fakepay', environment: 'test', label: 'Main', credentials: GOOD, ...over });
}

describe('PSP connectors and accounts in the back office', () => {
  it('lists the connectors of this build with their credential fields, the sandbox too', async () => {
    const res = await call('GET', '/api/backoffice/psps', a.dashboard);
    expect(res.statusCode).toBe(200);
    const list = res.json() as { name: string; environments: string[]; credential_fields: { name: string; secret: boolean; required: boolean; enum?: string[] }[] }[];
    expect(list.map((p) => p.name)).toEqual(['sandbox', 'fakepay']);
    const fake = list[1]!;
    expect(fake.environments).toEqual(['test', 'live']);
    expect(fake.credential_fields.find((f) => f.name === 'api_key')).toMatchObject({ secret: true, required: true });
    expect(fake.credential_fields.find((f) => f.name === 'algorithm')!.enum).toEqual(['sha1', 'sha256', 'sha512']);
  });

  it('refuses bad input with 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ psp: 'acme' }, 'psp'],
      [{ credentials: { merchant_id: 'SHOP42', algorithm: 'sha256' } }, 'credentials.api_key'],
      [{ credentials: { ...GOOD, extra: 'x' } }, 'credentials.extra'],
      [{ credentials: { ...GOOD, merchant_id: 'shop 42' } }, 'credentials.merchant_id'],
      [{ credentials: { ...GOOD, passphrase: 'has[bracket' } }, 'credentials.passphrase'],
      [{ credentials: { ...GOOD, algorithm: 'md5' } }, 'credentials.algorithm'],
      [{ environment: 'live' }, 'credentials.live_prefix'],
      [{ endpoint_url: 'http://psp.example.com/api' }, 'endpoint_url'],
      [{ endpoint_url: 'ftp://psp.example.com' }, 'endpoint_url'],
      [{ psp: 'sandbox', environment: 'live', credentials: {} }, 'environment'],
    ];
    for (const [over, field] of cases) {
      const res = await createAccount(a, over);
      expect(res.statusCode, JSON.stringify(over)).toBe(400);
      expect(res.json().error.debug, JSON.stringify(over)).toContain(field);
    }
    expect((await call('GET', '/api/backoffice/psp_accounts', a.dashboard)).json()).toEqual([]);
  });

  it('checks the credentials with the PSP: refused 422, unreachable 502, ?verify=false skips the check', async () => {
    const rejected = await createAccount(a, { credentials: { ...GOOD, api_key: 'sk_bad_RECOGNISABLE77' } });
    expect(rejected.statusCode).toBe(422);
    expect(rejected.json().error.app_error).toBe('psp_credentials_rejected');
    expect(rejected.body).not.toContain('RECOGNISABLE77');
    const down = await createAccount(a, { credentials: { ...GOOD, api_key: 'sk_down_RECOGNISABLE88' } });
    expect(down.statusCode).toBe(502);
    expect(down.json().error.app_error).toBe('psp_unreachable');
    const skipped = await createAccount(a, { credentials: { ...GOOD, api_key: 'sk_down_RECOGNISABLE88' } }, '?verify=false');
    expect(skipped.statusCode).toBe(201);
    expect(skipped.json().verified_at).toBeNull();
    expect((await call('DELETE', `/api/backoffice/psp_accounts/${skipped.json().id}`, a.dashboard)).statusCode).toBe(204);
  });

  it('saves an account with its secrets sealed, shows them as … and their last 4 characters; local http endpoints in sandbox', async () => {
    const res = await createAccount(a, { endpoint_url: 'http://127.0.0.1:9999/fake' });
    expect(res.statusCode, res.body).toBe(201);
    const saved = res.json();
    expect(saved).toMatchObject({ psp: 'fakepay', environment: 'test', label: 'Main', endpoint_url: 'http://127.0.0.1:9999/fake' });
    expect(saved.id).toMatch(/^psa_[0-9a-f-]{36}$/);
    expect(saved.credentials).toEqual({ merchant_id: 'SHOP42', api_key: '…9QX7', algorithm: 'sha256', passphrase: '…42ZK' });
    expect(saved.verified_at).not.toBeNull();
    const { rows } = await app.services.db.query<{ credentials_enc: string }>('SELECT credentials_enc FROM psp_accounts WHERE id = $1', [saved.id.slice(4)]);
    expect(rows[0]!.credentials_enc).not.toContain('RECOGNISABLE');
    expect((await call('GET', `/api/backoffice/psp_accounts/${saved.id}`, a.dashboard)).json()).toEqual(saved);
    // Tenancy: another merchant sees none of it.
    expect((await call('GET', `/api/backoffice/psp_accounts/${saved.id}`, b.dashboard)).statusCode).toBe(404);
    expect((await call('PATCH', `/api/backoffice/offers/${b.offer('SHARED')}`, b.dashboard, { psp_account_id: saved.id })).statusCode).toBe(404);
    expect((await call('DELETE', `/api/backoffice/psp_accounts/${saved.id}`, b.dashboard)).statusCode).toBe(404);
    // The connector instance got the account's credentials and endpoint.
    const conn = await app.services.psps.forAccount(a.accountId, saved.id.slice(4));
    expect(conn.name).toBe('fakepay');
    expect(log.built.at(-1)).toMatchObject({ baseUrl: 'http://127.0.0.1:9999/fake', credentials: { api_key: SECRET_KEY } });
    await call('DELETE', `/api/backoffice/psp_accounts/${saved.id}`, a.dashboard);
  });

  it('builds a connector per PSP account, cached, rebuilt when the account changes', async () => {
    const id = (await createAccount(a, { label: 'Cached' })).json().id as string;
    const first = await app.services.psps.forAccount(a.accountId, id.slice(4));
    expect(await app.services.psps.forAccount(a.accountId, id.slice(4))).toBe(first);
    const patched = await call('PATCH', `/api/backoffice/psp_accounts/${id}`, a.dashboard, { credentials: { api_key: 'sk_test_OTHERkey12345' } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().credentials).toMatchObject({ api_key: '…2345', merchant_id: 'SHOP42', passphrase: '…42ZK' });
    const second = await app.services.psps.forAccount(a.accountId, id.slice(4));
    expect(second).not.toBe(first);
    expect(log.built.at(-1)!.credentials.api_key).toBe('sk_test_OTHERkey12345');
    await call('DELETE', `/api/backoffice/psp_accounts/${id}`, a.dashboard);
  });
});

describe('offers paying through a PSP account', () => {
  it('binds an offer; its payments run on the account, PSD2 references flow to every off-session charge; the account cannot be deleted while used', async () => {
    const psa = (await createAccount(a, { label: 'Shop' })).json().id as string;
    const shared = a.offer('SHARED');
    const bound = await call('PATCH', `/api/backoffice/offers/${shared}`, a.dashboard, { psp_account_id: psa });
    expect(bound.statusCode, bound.body).toBe(200);
    expect(bound.json()).toMatchObject({ merchant_uid: shared, psp: 'fakepay', psp_account_id: psa });
    const offers = (await call('GET', '/api/backoffice/offers', a.dashboard)).json() as { merchant_uid: string; psp_account_id: string | null }[];
    expect(offers.find((o) => o.merchant_uid === shared)!.psp_account_id).toBe(psa);

    // The leader pays with pledgers: a guarantee (CIT, card stored) and the share charged off session (MIT).
    const pot = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000 }))).json() as { id: string };
    const paid = await a.post(`/api/sandbox/purchases/pur_${pot.id}/pay`, { card_number: CARD, pledgers: [{ email: 'ann@example.com', amount_cents: 3_000 }] });
    expect(paid.statusCode, paid.body).toBe(200);
    const { rows } = await app.services.db.query<{ purpose: string; psp: string; psp_account_id: string; network_transaction_id: string | null; status: string }>(
      'SELECT purpose, psp, psp_account_id, network_transaction_id, status FROM payments WHERE purchase_id = $1 ORDER BY created_at',
      [pot.id],
    );
    expect(rows.map((r) => [r.purpose, r.psp, r.psp_account_id, r.status])).toEqual([
      ['guarantee', 'fakepay', psa.slice(4), 'authorized'],
      ['leader_share', 'fakepay', psa.slice(4), 'captured'],
    ]);
    expect(rows[0]!.network_transaction_id).toMatch(/^ntid_/);
    const share = log.offSession.at(-1)!;
    expect(share.storedCredential).toEqual({ initialTransactionId: expect.stringMatching(/^sbx_txn_/), networkTransactionId: rows[0]!.network_transaction_id });

    expect((await call('DELETE', `/api/backoffice/psp_accounts/${psa}`, a.dashboard)).statusCode).toBe(409);

    // Rebinding the offer back to the sandbox: the pot's payments keep their account.
    expect((await call('PATCH', `/api/backoffice/offers/${shared}`, a.dashboard, { psp_account_id: null })).json()).toMatchObject({ psp: 'sandbox', psp_account_id: null });
    const del = await call('DELETE', `/api/backoffice/psp_accounts/${psa}`, a.dashboard);
    expect(del.statusCode).toBe(409); // payments were made on it
    expect(del.json().error.app_error).toBe('psp_account_in_use');
  });

  it('installments: every later charge is a MIT referencing the first payment', async () => {
    const psa = (await createAccount(a, { label: 'Installments' })).json().id as string;
    const offer = a.offer('INSTALLMENTS', 3);
    expect((await call('PATCH', `/api/backoffice/offers/${offer}`, a.dashboard, { psp_account_id: psa })).statusCode).toBe(200);
    const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 30_000, merchant_uid: offer }))).json() as { id: string };
    const paid = await a.post(`/api/sandbox/purchases/pur_${p.id}/pay`, { card_number: CARD });
    expect(paid.statusCode, paid.body).toBe(200);
    const { rows: insts } = await app.services.db.query<{ id: string }>("SELECT id FROM installments WHERE purchase_id = $1 AND state = 'scheduled' ORDER BY index", [p.id]);
    const before = log.offSession.length;
    expect(await collectInstallment(app.services.payments, a.accountId, insts[0]!.id)).toBe('paid');
    expect(log.offSession.length).toBe(before + 1);
    expect(log.offSession.at(-1)!.storedCredential?.networkTransactionId).toMatch(/^ntid_/);
  });

  it('a PSP fault during the checkout charges nothing twice: 502, the purchase unchanged, a retry replays the same attempt', async () => {
    const psa = (await createAccount(a, { label: 'Flaky' })).json().id as string;
    const offer = a.offer('DEFERRED');
    await call('PATCH', `/api/backoffice/offers/${offer}`, a.dashboard, { psp_account_id: psa });
    const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 5_000, merchant_uid: offer }))).json() as { id: string };
    log.faults = { authorize: 1, afterSend: true }; // the PSP authorised, but its answer was lost
    const failed = await a.post(`/api/sandbox/purchases/pur_${p.id}/pay`, { card_number: CARD });
    expect(failed.statusCode).toBe(502);
    expect(failed.json().error.app_error).toBe('psp_unreachable');
    expect((await a.get(`/api/merchants/v1/purchases/${p.id}`)).json().state).toBe('INITIALIZED');
    const retried = await a.post(`/api/sandbox/purchases/pur_${p.id}/pay`, { card_number: CARD });
    expect(retried.statusCode, retried.body).toBe(200);
    const { rows } = await app.services.db.query<{ status: string; psp_transaction_id: string }>('SELECT status, psp_transaction_id FROM payments WHERE purchase_id = $1', [p.id]);
    expect(rows.map((r) => r.status)).toEqual(['authorized']); // one attempt, one hold
    // The retry replayed the first attempt's key: the PSP holds exactly one authorisation for it.
    const { rows: txns } = await app.services.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sandbox_psp_transactions WHERE payment_method_id = (SELECT payment_method_id FROM sandbox_psp_transactions WHERE id = $1)',
      [rows[0]!.psp_transaction_id],
    );
    expect(txns[0]!.n).toBe(1);
  });
});

describe('a refund resumed after a restart, on a PSP that keeps no idempotency key', () => {
  it('finds the refund already applied at the PSP, records it and does not give the money back twice', async () => {
    const psa = (await createAccount(a, { label: 'No keys' })).json().id as string;
    const offer = a.offer('DEFERRED');
    expect((await call('PATCH', `/api/backoffice/offers/${offer}`, a.dashboard, { psp_account_id: psa })).statusCode).toBe(200);
    const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 5_000, merchant_uid: offer }))).json() as { id: string };
    expect((await a.post(`/api/sandbox/purchases/pur_${p.id}/pay`, { card_number: CARD })).statusCode).toBe(200);
    const secret = a.merchant.offers.find((o) => o.type === 'DEFERRED')!.secret;
    const captured = await app.server.inject({
      method: 'POST',
      url: `/api/trigger_capture/?signature=${encodeURIComponent(signHs256({ merchantUid: offer, purchaseUid: `pur_${p.id}` }, secret))}`,
    });
    expect(captured.json()).toMatchObject({ state: 'SUCCESSFUL' });
    const payment = async () =>
      (
        await app.services.db.query<{ refunded_cents: number; psp_transaction_id: string }>(
          'SELECT refunded_cents::int AS refunded_cents, psp_transaction_id FROM payments WHERE purchase_id = $1',
          [p.id],
        )
      ).rows[0]!;

    log.faults.refundLostAfterRestart = 1; // refunded at the PSP, the answer lost, the key forgotten
    const res = await call('POST', `/api/backoffice/purchases/pur_${p.id}/refunds`, a.dashboard, { amount: 1_000 });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().state).toBe('pending');
    expect((await app.services.psps.sandbox.retrieve(bareRef((await payment()).psp_transaction_id))).refundedCents).toBe(1_000);
    expect((await payment()).refunded_cents).toBe(0); // not recorded yet

    await app.services.sandboxClock!.advance(11 * 60); // the resume job falls due
    await app.services.dueWork.drain();
    const refunds = (await call('GET', `/api/backoffice/purchases/${p.id}/refunds`, a.dashboard)).json().data as { state: string; amount: number }[];
    expect(refunds.map((r) => [r.amount, r.state])).toEqual([[1_000, 'succeeded']]);
    expect((await payment()).refunded_cents).toBe(1_000);
    expect((await app.services.psps.sandbox.retrieve(bareRef((await payment()).psp_transaction_id))).refundedCents).toBe(1_000); // once
    expect(app.logs.some((l) => l.includes('resumed refund already applied at the PSP'))).toBe(true);
  });
});

describe('inbound PSP notifications', () => {
  it('verified, acknowledged as the PSP expects and applied once; a bad signature is refused and changes nothing', async () => {
    const psa = (await createAccount(a, { label: 'Notified' })).json().id as string;
    const offer = a.offer('DEFERRED');
    await call('PATCH', `/api/backoffice/offers/${offer}`, a.dashboard, { psp_account_id: psa });
    const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 5_000, merchant_uid: offer }))).json() as { id: string };
    expect((await a.post(`/api/sandbox/purchases/pur_${p.id}/pay`, { card_number: CARD })).statusCode).toBe(200);
    const payment = async () =>
      (await app.services.db.query<{ status: string; psp_transaction_id: string }>('SELECT status, psp_transaction_id FROM payments WHERE purchase_id = $1', [p.id])).rows[0]!;
    const txn = (await payment()).psp_transaction_id;
    // The hold is voided at the PSP, out of band; the PSP says so.
    await app.services.psps.sandbox.void({ idempotencyKey: `oob-${p.id}`, transaction: bareRef(txn) });
    const n = await app.services.psps.sandbox.notificationFor(txn);
    const post = (headers: Record<string, string>, body: string, id = psa) =>
      app.server.inject({ method: 'POST', url: `/api/psp/${id}/notifications`, headers, payload: body }).then((r) => {
        bodies.push(r.body);
        return r;
      });
    const forged = await post(
      { ...n.headers, 'sandbox-psp-signature': n.headers['sandbox-psp-signature']!.replace(/v1=(.)/, (_, c: string) => `v1=${c === '0' ? '1' : '0'}`) },
      n.rawBody,
    );
    expect(forged.statusCode).toBe(401);
    expect((await payment()).status).toBe('authorized');
    expect((await post(n.headers, n.rawBody, 'psa_00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    const ok = await post(n.headers, n.rawBody);
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toBe('[accepted]');
    expect((await payment()).status).toBe('voided');
    const { rows: events } = await app.services.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM purchase_events WHERE purchase_id = $1 AND type = 'payment.transaction' AND data->'transaction'->>'status' = 'voided'",
      [p.id],
    );
    // The bare uuid's URL (the one Lyra payments were given before its connector sent the public
    // id) reaches the same account: verified and acknowledged, applied once all the same.
    const again = await post(n.headers, n.rawBody, psa.slice('psa_'.length));
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe('[accepted]');
    const { rows: after } = await app.services.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM purchase_events WHERE purchase_id = $1 AND type = 'payment.transaction' AND data->'transaction'->>'status' = 'voided'",
      [p.id],
    );
    expect(after[0]!.n).toBe(events[0]!.n);
  });
});

describe('credentials never leak', () => {
  it('no response body and no log line of this suite holds any part of a saved secret beyond its last 4 characters', () => {
    expect(bodies.length).toBeGreaterThan(20);
    for (const secret of [SECRET_KEY, PASSPHRASE, 'sk_bad_RECOGNISABLE77', 'sk_down_RECOGNISABLE88', 'sk_test_OTHERkey12345', 'RECOGNISABLE']) {
      for (const body of bodies) expect(body).not.toContain(secret);
      for (const line of app.logs) expect(line).not.toContain(secret);
    }
  });
});

describe('production', () => {
  it('refuses payments on the built-in sandbox PSP, says so at boot, and serves no sandbox challenge page', async () => {
    const prod = await startTestApp(
      { env: 'production', publicUrl: 'https://chipin.example', jobPollIntervalMs: 0 },
      { db: app.services.db, shareDatabase: true, pspDefinitions: [sandboxDefinition, fakeDefinition] },
    );
    try {
      expect(prod.logs.some((l) => l.includes('refused in production') && l.includes('mer_'))).toBe(true);
      const purchase = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 5_000 }))).json() as { id: string };
      const err = await payAsLeader(
        prod.services.payments,
        { id: purchase.id, accountId: a.accountId },
        { number: '4242424242424242', expMonth: 12, expYear: 2099, cvc: '123', holderName: 'A' },
        [],
        () => 'https://chipin.example/back',
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SandboxInProductionError);
      const page = await prod.server.inject({ method: 'GET', url: '/sandbox-psp/challenge/sbx_txn_00000000-0000-4000-8000-000000000000' });
      expect(page.statusCode).toBe(404);
      const sandboxAccount = await prod.server.inject({
        method: 'POST',
        url: '/api/backoffice/psp_accounts',
        headers: { authorization: a.dashboard, 'content-type': 'application/json' },
        payload: JSON.stringify({ psp: 'sandbox', environment: 'test', label: 'x', credentials: {} }),
      });
      expect(sandboxAccount.statusCode).toBe(400);
    } finally {
      await prod.close();
    }
  });
});
