/**
 * A refund whose answer was lost, taken up again by its `refund.resume` job
 * (docs/purchase-lifecycle.md#refunds), on the real connectors of PSPs that take no idempotency
 * key for a refund, against their fakes: the PSP acted, its answer never came, and the job must
 * record the refund without giving the money back a second time.
 * - Payline and PayBox: a second partial refund, which a status alone cannot tell from the first
 *   (docs/psp/payline.md, docs/psp/paybox.md).
 * - Payline, Lyra and Ogone: a payment stored without the connector's state (`psp_state` null),
 *   where the connector has no amounts from before the call and the job's own check, which
 *   reads the PSP's refunded total with `retrieve`, is what keeps the refund single.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicId } from '../../src/domain/ids.ts';
import { caller, type Caller } from '../helpers/api.ts';
import { isolatedDatabase, onPostgres, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { NO_JOB_POLL, TEST_DELIVERY } from '../delivery/helpers.ts';
import { CREDENTIALS as PAYLINE_CREDENTIALS, paylineHarness } from './fixtures/payline/harness.ts';
import { CREDENTIALS as PAYBOX_CREDENTIALS, payboxHarness } from './fixtures/paybox/harness.ts';
import { lyraHarness } from './fixtures/lyra/harness.ts';
import { ACCOUNT as OGONE_ACCOUNT, ogoneHarness } from './fixtures/ogone/harness.ts';

/** A PSP's fake as this test drives it: the account, a card, the next refund's answer lost, and what the PSP refunded on a payment. */
interface LosingPsp {
  credentials: Record<string, string>;
  endpointUrl: string;
  card: string;
  loseNextRefundAnswer(): void;
  /** The refunds the PSP made on the payment Chipin knows by this transaction id. */
  refundsAtPsp(transactionId: string): number[];
  close(): Promise<void>;
}

const PSPS: Record<string, () => Promise<LosingPsp>> = {
  payline: async () => {
    const h = await paylineHarness();
    return {
      credentials: { ...PAYLINE_CREDENTIALS },
      endpointUrl: h.fake.baseUrl,
      card: h.cards.success.number,
      loseNextRefundAnswer: () => h.fake.fail('dropped_after_processing', 'doRefund'),
      refundsAtPsp: (id) => (h.fake.transactionByOrder(id)?.associated ?? []).filter((a) => a.type === 'REFUND' && a.status === 'OK').map((a) => a.amount),
      close: h.teardown,
    };
  },
  paybox: async () => {
    const h = await payboxHarness();
    h.fake.hangMs = 0; // the connection is cut at once after Paybox acted
    return {
      credentials: { ...PAYBOX_CREDENTIALS },
      endpointUrl: h.fake.url,
      card: h.cards.success.number,
      loseNextRefundAnswer: () => h.fake.failNext('timeout_after_processing', 1, '00014'),
      refundsAtPsp: (id) => {
        const numTrans = h.fake.transactionByReference(id)?.numTrans;
        return h.fake.requests.filter((r) => r.params.TYPE === '00014' && r.params.NUMTRANS === numTrans).map((r) => Number(r.params.MONTANT));
      },
      close: h.teardown,
    };
  },
  lyra: async () => {
    const h = await lyraHarness();
    return {
      credentials: { shop_id: h.fake.shopId, password: h.fake.password, hmac_key: h.fake.hmacKey },
      endpointUrl: h.fake.url,
      card: h.cards.success.number,
      // The refund reads the order (Order/Get), then refunds (Transaction/CancelOrRefund): that answer is lost.
      loseNextRefundAnswer: () => h.fake.failNext({ kind: 'none' }, { kind: 'cut', afterEffect: true }),
      refundsAtPsp: (id) => h.fake.creditsOf(id),
      close: h.teardown,
    };
  },
  ogone: async () => {
    const h = await ogoneHarness();
    h.fake.hangMs = 0;
    const a = OGONE_ACCOUNT;
    return {
      credentials: { pspid: a.pspid, user_id: a.userId, password: a.password, sha_in: a.shaIn, sha_out: a.shaOut, hash_algorithm: a.algorithm },
      endpointUrl: h.fake.baseUrl,
      card: h.cards.success.number,
      loseNextRefundAnswer: () => h.fake.failNext('timeout_after_processing', 1, 'maintenancedirect.asp'),
      // Status 8: a refund's sub-transaction (PAYIDSUB 1…n; 0 is the order itself).
      refundsAtPsp: (id) =>
        (h.fake.transaction(id)?.subs ?? [])
          .slice(1)
          .filter((s) => s.status === 8)
          .map((s) => s.amount),
      close: h.teardown,
    };
  },
};

let db: IsolatedDatabase;
let app: TestApp;

beforeAll(async () => {
  db = await isolatedDatabase();
  app = await startTestApp({ ...NO_JOB_POLL }, { db: db.open(), delivery: TEST_DELIVERY });
});
afterAll(async () => {
  await app?.close();
  await db?.dispose();
});

/** A merchant whose DEFERRED offer is bound to an account of `psp` at its fake. */
async function merchantOn(psp: string, fake: LosingPsp): Promise<Caller> {
  const m = await caller(app);
  const auth = { authorization: m.dashboard, 'content-type': 'application/json' };
  const created = await app.server.inject({
    method: 'POST',
    url: '/api/backoffice/psp_accounts',
    headers: auth,
    payload: JSON.stringify({ psp, environment: 'test', label: `${psp} test`, credentials: fake.credentials, endpoint_url: fake.endpointUrl }),
  });
  expect(created.statusCode, created.body).toBe(201);
  const bound = await app.server.inject({
    method: 'PATCH',
    url: `/api/backoffice/offers/${m.offer('DEFERRED')}`,
    headers: auth,
    payload: JSON.stringify({ psp_account_id: created.json().id }),
  });
  expect(bound.statusCode, bound.body).toBe(200);
  return m;
}

type PaymentRow = { psp_transaction_id: string; captured_cents: number; refunded_cents: number };

/** A deferred purchase of 100.00 paid and captured (the sandbox clock moved 31 days); its one payment. */
async function capturedPurchase(m: Caller, fake: LosingPsp, reference: string): Promise<{ id: string; payment: () => Promise<PaymentRow> }> {
  const made = await m.post(`/api/merchants/${m.offer('DEFERRED')}/purchase_link`, {
    data: { title: 'Weekend in Lisbon', amountCents: 10_000, email: 'leader@example.com', language: 'en_GB', reference },
    purchase_link_settings: {},
  });
  expect(made.statusCode, made.body).toBe(200);
  const id = parsePublicId('pur', (made.json() as { purchase_uid: string }).purchase_uid)!;
  const paid = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: fake.card });
  expect(paid.statusCode, paid.body).toBe(200);
  expect((await m.post('/api/sandbox/clock', { advance_seconds: 31 * 86_400 })).statusCode).toBe(200);
  const payment = async () =>
    (
      await app.services.db.query<PaymentRow>(
        'SELECT psp_transaction_id, captured_cents::int AS captured_cents, refunded_cents::int AS refunded_cents FROM payments WHERE purchase_id = $1',
        [id],
      )
    ).rows[0]!;
  expect(await payment()).toMatchObject({ captured_cents: 10_000, refunded_cents: 0 });
  return { id, payment };
}

/** Refunds 10.00, then 20.00 whose answer is lost; the resume job takes it up. Answers the refunds as the API lists them. */
async function refundTwiceLosingTheSecond(m: Caller, fake: LosingPsp, id: string, txn: string, before?: () => Promise<void>): Promise<[number, string][]> {
  const first = await m.post(`/api/merchants/v1/purchases/${id}/refunds`, { amount: 1_000 });
  expect(first.json()).toMatchObject({ amount: 1_000, state: 'succeeded' });
  await before?.();
  fake.loseNextRefundAnswer();
  const second = await m.post(`/api/merchants/v1/purchases/${id}/refunds`, { amount: 2_000 });
  expect(second.statusCode, second.body).toBe(201);
  expect(second.json().state).toBe('pending'); // the PSP refunded; Chipin does not know it yet
  expect(fake.refundsAtPsp(txn)).toEqual([1_000, 2_000]);
  expect((await m.post('/api/sandbox/clock', { advance_seconds: 11 * 60 })).statusCode).toBe(200); // the resume job falls due
  const list = (await m.get(`/api/merchants/v1/purchases/${id}/refunds`)).json() as { data: { amount: number; state: string }[] };
  return list.data.map((r) => [r.amount, r.state]);
}

describe.each(['payline', 'paybox'])(`a second partial refund whose answer was lost, resumed by its job, on %s (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, (psp) => {
  let fake: LosingPsp;
  let m: Caller;
  beforeAll(async () => {
    fake = await PSPS[psp]!();
    m = await merchantOn(psp, fake);
  });
  afterAll(async () => {
    await fake?.close();
  });

  it('is recorded by the job and made once at the PSP', async () => {
    const { id, payment } = await capturedPurchase(m, fake, `${psp}-lost-refund`);
    const txn = (await payment()).psp_transaction_id;
    expect(await refundTwiceLosingTheSecond(m, fake, id, txn)).toEqual([
      [1_000, 'succeeded'],
      [2_000, 'succeeded'],
    ]);
    expect((await payment()).refunded_cents).toBe(3_000);
    expect(fake.refundsAtPsp(txn)).toEqual([1_000, 2_000]); // once each
  });
});

describe.each(['payline', 'lyra', 'ogone'])(
  `a refund whose answer was lost on a payment recorded without the connector's state, resumed by its job, on %s (${onPostgres ? 'PostgreSQL' : 'PGlite'})`,
  (psp) => {
    let fake: LosingPsp;
    let m: Caller;
    beforeAll(async () => {
      fake = await PSPS[psp]!();
      m = await merchantOn(psp, fake);
    });
    afterAll(async () => {
      await fake?.close();
    });

    it("is found by the job in the PSP's refunded total and made once at the PSP", async () => {
      const { id, payment } = await capturedPurchase(m, fake, `${psp}-stateless-refund`);
      const txn = (await payment()).psp_transaction_id;
      // A payment stored without the connector's state: nothing for the connector to compare with.
      const applied = () => app.logs.filter((l) => l.includes('resumed refund already applied at the PSP')).length;
      const seen = applied();
      const forget = async () => {
        await app.services.db.query('UPDATE payments SET psp_state = NULL WHERE purchase_id = $1', [id]);
      };
      expect(await refundTwiceLosingTheSecond(m, fake, id, txn, forget)).toEqual([
        [1_000, 'succeeded'],
        [2_000, 'succeeded'],
      ]);
      expect((await payment()).refunded_cents).toBe(3_000);
      expect(fake.refundsAtPsp(txn)).toEqual([1_000, 2_000]);
      expect(applied()).toBe(seen + 1); // the job's own check found it
    });
  },
);
