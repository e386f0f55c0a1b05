/**
 * The sandbox pay helpers with an Idempotency-Key (docs/testing-in-the-sandbox.md): the same key
 * and body answer the first call's outcome; a first call cut after the PSP charged (its recording
 * fails with SQLSTATE 57P01, as in a failover: the caller gets a 503) is answered by the retry with
 * the key, which resolves that attempt at once by its own PSP key instead of answering
 * `payment_in_progress` for it — exactly one charge at the PSP, whatever runs alongside (another
 * retry with the key, a retry without, the reconciliation). Without a key, the retry resolves the
 * attempt too once it is in doubt: the failed call ended its payment lease
 * (docs/money-operations.md#payments-in-doubt); never while a live request still runs it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicId } from '../../src/domain/ids.ts';
import { findPayment } from '../../src/payments/payment-repository.ts';
import { resolveLeaderAttempt } from '../../src/use-cases/checkout/resolve-leader-attempt.ts';
import { resolvePledgePayment } from '../../src/use-cases/pot/pay-pledge.ts';
import { minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { cutOn } from '../helpers/connection-cut.ts';
import { NO_JOB_POLL } from '../delivery/helpers.ts';

const OK = '4242424242424242';

let app: TestApp;
let a: Caller;
beforeAll(async () => {
  // No job poller: the reconciliation must not be what resolves the attempts here.
  app = await startTestApp(NO_JOB_POLL);
  [a] = await twoMerchants(app);
});
afterAll(() => app?.close());

const one = async <T>(sql: string, params: unknown[] = []): Promise<T> => (await app.services.db.query<{ v: T }>(sql, params)).rows[0]!.v;

let cuts = 0;
/** Fails, until `heal()`, every UPDATE of payments whose new row matches `when`, as a connection cut would: SQLSTATE 57P01. */
function cutPaymentRecording(when: string): Promise<{ heal(): Promise<void> }> {
  return cutOn(app.services.db, `cut_pay_${++cuts}`, 'payments', 'UPDATE', when);
}

/** The authorisations the sandbox PSP made under keys starting `prefix` (one per attempt's own key). */
const authorizations = (prefix: string) =>
  one<number>("SELECT count(*)::int AS v FROM sandbox_psp_idempotency WHERE operation = 'authorize' AND idempotency_key LIKE $1 || '%'", [prefix]);

async function newPurchase(): Promise<string> {
  return (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000 }))).json().id as string;
}

const payLeader = (id: string, key?: string) => a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: OK }, key ? { 'idempotency-key': key } : {});

/** A leader's first call with `key` whose recording of the PSP's answer is cut: 503, the attempt pending, charged at the PSP. */
async function cutLeader(id: string, key: string | undefined): Promise<string> {
  const cut = await cutPaymentRecording(`NEW.purchase_id = '${id}' AND NEW.status <> 'pending'`);
  const first = await payLeader(id, key);
  await cut.heal();
  expect(first.statusCode, first.body).toBe(503);
  const rows = (await app.services.db.query<{ id: string; status: string }>('SELECT id, status FROM payments WHERE purchase_id = $1', [id])).rows;
  expect(rows).toEqual([{ id: expect.any(String), status: 'pending' }]);
  expect(await authorizations(`${id}:leader:`)).toBe(1);
  return rows[0]!.id;
}

async function expectCharged(id: string): Promise<void> {
  expect((await a.get(`/api/merchants/v1/purchases/${id}`)).json().state).toBe('SUCCESSFUL');
  expect(await authorizations(`${id}:leader:`)).toBe(1);
  expect(await one<string[]>('SELECT array_agg(status) AS v FROM payments WHERE purchase_id = $1', [id])).toEqual([expect.stringMatching(/^(authorized|captured)$/)]);
}

describe('the leader helper with an Idempotency-Key', () => {
  it('replays the stored outcome for the same key and body; another body is 422', async () => {
    const id = await newPurchase();
    const first = await payLeader(id, `replay-${id}`);
    expect(first.statusCode, first.body).toBe(200);
    const again = await payLeader(id, `replay-${id}`);
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    const other = await a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: '4000000000000002' }, { 'idempotency-key': `replay-${id}` });
    expect(other.statusCode).toBe(422);
    expect(await authorizations(`${id}:leader:`)).toBe(1);
  });

  it('a first call cut after the PSP charged: the retry with the key answers that charge at once, one PSP charge', async () => {
    const id = await newPurchase();
    await cutLeader(id, `cut-${id}`);
    const retried = await payLeader(id, `cut-${id}`);
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json().state).toBe('SUCCESSFUL');
    await expectCharged(id);
    const replayed = await payLeader(id, `cut-${id}`);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.json()).toEqual(retried.json());
  });

  it('without a key: the failed call ended its payment lease, so the retry resolves that attempt at once and answers its charge; one PSP charge', async () => {
    const id = await newPurchase();
    await cutLeader(id, undefined);
    const retried = await payLeader(id);
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json().state).toBe('SUCCESSFUL');
    await expectCharged(id);
  });

  it('an attempt whose request is still running (its payment lease live) is not overtaken: 409 payment_in_progress, with another key or none', async () => {
    const id = await newPurchase();
    const paymentId = await cutLeader(id, undefined);
    // As a slow process still running the attempt keeps it: renewed, not lapsed.
    await app.services.db.query("UPDATE payments SET run_lease_until = now() + interval '1 hour' WHERE id = $1", [paymentId]);
    const retried = await payLeader(id);
    expect(retried.statusCode).toBe(409);
    expect(retried.json().error.app_error).toBe('payment_in_progress');
    const keyed = await payLeader(id, `other-${id}`);
    expect(keyed.statusCode).toBe(409);
    expect(keyed.json().error.app_error).toBe('payment_in_progress');
    expect(await authorizations(`${id}:leader:`)).toBe(1);
  });

  it('two retries with the key at once: one resolves the attempt, the other is told the key is in use or replays it; one charge', async () => {
    for (let round = 0; round < 5; round++) {
      const id = await newPurchase();
      await cutLeader(id, `twice-${id}`);
      const answers = await Promise.all([payLeader(id, `twice-${id}`), payLeader(id, `twice-${id}`)]);
      expect(
        answers.filter((r) => r.statusCode === 200).map((r) => r.json().state),
        answers.map((r) => r.body).join('\n'),
      ).toContain('SUCCESSFUL');
      for (const r of answers) if (r.statusCode !== 200) expect([r.statusCode, r.json().error.app_error]).toEqual([409, 'idempotency_key_in_use']);
      await expectCharged(id);
    }
  });

  it('the retry with the key racing a retry without and the reconciliation of the same attempt: one charge, recorded once', async () => {
    for (let round = 0; round < 5; round++) {
      const id = await newPurchase();
      const paymentId = await cutLeader(id, `race-${id}`);
      const payment = (await findPayment(app.services.db, a.accountId, paymentId))!;
      const [keyed, keyless] = await Promise.all([
        payLeader(id, `race-${id}`),
        payLeader(id),
        // The reconciliation job, as once the attempt is old enough.
        resolveLeaderAttempt(app.services.payments, payment, 0).catch(() => undefined),
      ]);
      expect(keyed.statusCode, keyed.body).toBe(200);
      expect(keyed.json().state).toBe('SUCCESSFUL');
      // The attempt is in doubt (its call failed): the retry without a key may resolve it too, and
      // then answers the same charge; else it finds it under way or already paid.
      if (keyless.statusCode === 200) expect(keyless.json().state).toBe('SUCCESSFUL');
      else expect([keyless.statusCode, ['payment_in_progress', 'purchase_not_payable'].includes(keyless.json().error.app_error)], keyless.body).toEqual([409, true]);
      await expectCharged(id);
    }
  });
});

describe('the pledger helper with an Idempotency-Key', () => {
  async function invited(): Promise<{ purchaseId: string; pledge: string }> {
    const res = await a.post(`/api/merchants/${a.offer('SHARED')}/purchase_link`, {
      data: { title: 'Weekend in Lisbon', amountCents: 10_000, email: 'leader@example.com', language: 'en_GB' },
      purchase_link_settings: {},
    });
    expect(res.statusCode, res.body).toBe(200);
    const purchaseId = parsePublicId('pur', res.json().purchase_uid as string)!;
    const leader = await a.post(`/api/sandbox/purchases/pur_${purchaseId}/pay`, { card_number: OK, pledgers: [{ email: 'ann@example.com', amount_cents: 4_000 }] });
    expect(leader.statusCode, leader.body).toBe(200);
    return { purchaseId, pledge: (leader.json() as { pledges: { id: string }[] }).pledges[0]!.id };
  }
  const payPledger = (pledge: string, key?: string) => a.post(`/api/sandbox/pledges/${pledge}/pay`, { card_number: OK }, key ? { 'idempotency-key': key } : {});

  async function cutPledger(pledge: string, key: string | undefined): Promise<string> {
    const pledgeId = parsePublicId('plg', pledge)!;
    const cut = await cutPaymentRecording(`NEW.pledge_id = '${pledgeId}' AND NEW.status <> 'pending'`);
    const first = await payPledger(pledge, key);
    await cut.heal();
    expect(first.statusCode, first.body).toBe(503);
    expect(await authorizations(`${pledgeId}:pay:`)).toBe(1);
    return pledgeId;
  }

  it('a first call cut after the PSP charged: the retry with the key answers the paid pledge, one PSP charge; replayed after', async () => {
    const { pledge } = await invited();
    const pledgeId = await cutPledger(pledge, `pledge-cut-${pledge}`);
    const retried = await payPledger(pledge, `pledge-cut-${pledge}`);
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json().state).toBe('SUCCESSFUL');
    expect(retried.json().pledges[0].state).toBe('paid');
    expect(await authorizations(`${pledgeId}:pay:`)).toBe(1);
    const replayed = await payPledger(pledge, `pledge-cut-${pledge}`);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.json()).toEqual(retried.json());
  });

  it('without a key: the failed call ended its payment lease, so the retry resolves it within the reservation and answers the paid pledge; one PSP charge', async () => {
    const { pledge } = await invited();
    const pledgeId = await cutPledger(pledge, undefined);
    const retried = await payPledger(pledge);
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json().pledges[0].state).toBe('paid');
    expect(await authorizations(`${pledgeId}:pay:`)).toBe(1);
  });

  it('a payment whose request is still running (its lease live): 409 payment_in_progress, nothing asked of the PSP', async () => {
    const { pledge } = await invited();
    const pledgeId = await cutPledger(pledge, undefined);
    await app.services.db.query("UPDATE payments SET run_lease_until = now() + interval '1 hour' WHERE pledge_id = $1", [pledgeId]);
    const retried = await payPledger(pledge);
    expect(retried.statusCode).toBe(409);
    expect(retried.json().error.app_error).toBe('payment_in_progress');
    expect(await authorizations(`${pledgeId}:pay:`)).toBe(1);
  });

  it('the retry with the key racing a second retry with it, one without and the reconciliation: one charge, the pledge paid once', async () => {
    for (let round = 0; round < 5; round++) {
      const { purchaseId, pledge } = await invited();
      const pledgeId = await cutPledger(pledge, `pledge-race-${pledge}`);
      const paymentId = await one<string>('SELECT id::text AS v FROM payments WHERE pledge_id = $1', [pledgeId]);
      const payment = (await findPayment(app.services.db, a.accountId, paymentId))!;
      const [k1, k2, keyless] = await Promise.all([
        payPledger(pledge, `pledge-race-${pledge}`),
        payPledger(pledge, `pledge-race-${pledge}`),
        payPledger(pledge),
        resolvePledgePayment(app.services.payments, payment).catch(() => undefined),
      ]);
      const keyed = [k1, k2].filter((r) => r.statusCode === 200);
      expect(keyed.length, [k1.body, k2.body].join('\n')).toBeGreaterThanOrEqual(1);
      for (const r of [k1, k2]) if (r.statusCode !== 200) expect(r.json().error.app_error).toBe('idempotency_key_in_use');
      for (const r of keyed) expect(r.json().state).toBe('SUCCESSFUL');
      // Without a key: in progress, or (resolved by then) the pledge already paid.
      expect([200, 409]).toContain(keyless.statusCode);
      expect(await authorizations(`${pledgeId}:pay:`)).toBe(1);
      expect((await a.get(`/api/merchants/v1/purchases/${purchaseId}`)).json().state).toBe('SUCCESSFUL');
      expect(await one<number>("SELECT count(*)::int AS v FROM payments WHERE pledge_id = $1 AND status IN ('authorized', 'captured')", [pledgeId])).toBe(1);
    }
  });
});
