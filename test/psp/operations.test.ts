import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { PspIntegrationError } from '../../src/psp/connector.ts';
import { PspOperations } from '../../src/psp/kit/operations.ts';
import { FINISHED_OPERATION_DAYS, PspOperationRepository, purgeFinishedOperations } from '../../src/psp/psp-operation-repository.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { stripeHarness, type StripeHarness } from './fixtures/stripe/harness.ts';

/**
 * The connectors' one idempotency design (src/psp/kit/operations.ts): the PSP operation log in
 * the database, shared by every process. Runs on PGlite and PostgreSQL.
 */
describe('PSP operation log', () => {
  let db: Database;
  let log: PspOperations;
  const clock = new ManualClock();
  beforeAll(async () => {
    db = await openTestDatabase();
    log = new PspOperations(new PspOperationRepository(db), 'acme', 'psa-1', randomBytes(32), clock);
  });
  afterAll(() => db?.close());

  /** A PSP call that counts how often it is made. */
  function counted<T>(answer: () => T) {
    const c = { calls: 0, send: async () => (c.calls++, answer()) };
    return c;
  }
  const never = async (): Promise<never> => {
    throw new Error('reconcile must not run');
  };

  it('replays the stored result of a done call without calling the PSP again', async () => {
    const psp = counted(() => ({ transactionId: 't1', status: 'captured', expiresAt: new Date('2030-01-01T00:00:00Z') }));
    const k = randomUUID();
    const first = await log.once('capture', k, ['t1', 500], psp.send, never);
    const again = await log.once('capture', k, ['t1', 500], psp.send, never);
    expect(psp.calls).toBe(1);
    expect(again).toEqual(first);
  });

  it('the same key with other parameters is an idempotency_conflict, and nothing is sent', async () => {
    const psp = counted(() => ({ ok: true }));
    const k = randomUUID();
    await log.once('refund', k, ['t1', 500], psp.send, never);
    const err = await log.once('refund', k, ['t1', 501], psp.send, never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PspIntegrationError);
    expect(err).toMatchObject({ connector: 'acme', code: 'idempotency_conflict' });
    expect(psp.calls).toBe(1);
  });

  it('the same key for another operation, or in another PSP account, is another call', async () => {
    const psp = counted(() => ({ ok: true }));
    const k = randomUUID();
    await log.once('capture', k, ['t1'], psp.send, never);
    await log.once('void', k, ['t1'], psp.send, never);
    await log.for('acme', 'psa-2').once('capture', k, ['t1'], psp.send, never);
    expect(psp.calls).toBe(3);
  });

  it('a call whose outcome is unknown (a fault) is reconciled before anything is sent again', async () => {
    const k = randomUUID();
    const fault = async (): Promise<never> => {
      throw new PspIntegrationError('acme', 'unreachable', 'timed out');
    };
    await expect(log.once('capture', k, ['t1', 500], fault, never)).rejects.toMatchObject({ code: 'unreachable' });
    // The PSP shows the capture done: reconcile answers it, nothing is sent.
    const psp = counted(() => ({ status: 'sent again' }));
    const found = await log.once('capture', k, ['t1', 500], psp.send, async () => ({ status: 'found at the PSP' }));
    expect(found).toEqual({ status: 'found at the PSP' });
    expect(psp.calls).toBe(0);
    // And from then on it is done: replayed.
    expect(await log.once('capture', k, ['t1', 500], psp.send, never)).toEqual({ status: 'found at the PSP' });
  });

  it('a call found not to have happened (reconcile answers nothing) is sent', async () => {
    const k = randomUUID();
    await expect(
      log.once(
        'refund',
        k,
        ['t1', 100],
        async () => {
          throw new PspIntegrationError('acme', 'bad_response', 'a 5xx page');
        },
        never,
      ),
    ).rejects.toMatchObject({ code: 'bad_response' });
    const psp = counted(() => ({ status: 'refunded' }));
    expect(await log.once('refund', k, ['t1', 100], psp.send, async () => undefined)).toEqual({ status: 'refunded' });
    expect(psp.calls).toBe(1);
  });

  it('a call the PSP certainly did not act on (refused credentials) is forgotten: the retry sends afresh', async () => {
    const k = randomUUID();
    await expect(
      log.once(
        'void',
        k,
        ['t1'],
        async () => {
          throw new PspIntegrationError('acme', 'bad_credentials', '401');
        },
        never,
      ),
    ).rejects.toMatchObject({ code: 'bad_credentials' });
    const psp = counted(() => ({ status: 'voided' }));
    expect(await log.once('void', k, ['t1'], psp.send, never)).toEqual({ status: 'voided' });
    expect(psp.calls).toBe(1);
  });

  it('the purge deletes finished operations past their replay window only: a recent one still replays, an unknown outcome is still reconciled', async () => {
    const DAY = 86_400_000;
    // Rows stamped by a log whose clock is FINISHED_OPERATION_DAYS + 1 days behind the database's.
    const old = new PspOperations(
      new PspOperationRepository(db),
      'acme',
      'psa-purge',
      randomBytes(32),
      new ManualClock(new Date(Date.now() - (FINISHED_OPERATION_DAYS + 1) * DAY)),
    );
    const recentLog = new PspOperations(
      new PspOperationRepository(db),
      'acme',
      'psa-purge',
      randomBytes(32),
      new ManualClock(new Date(Date.now() - (FINISHED_OPERATION_DAYS - 1) * DAY)),
    );
    const psp = counted(() => ({ ok: true }));
    const [gone, kept, unknown] = [randomUUID(), randomUUID(), randomUUID()];
    await old.once('capture', gone, ['t1'], psp.send, never);
    await recentLog.once('capture', kept, ['t2'], psp.send, never);
    const fault = () => Promise.reject(new PspIntegrationError('acme', 'unreachable', 'timeout'));
    await old.once('refund', unknown, ['t3'], fault, never).catch(() => undefined);
    const rows = async () =>
      (await db.query<{ idempotency_key: string; status: string }>("SELECT idempotency_key, status FROM psp_operations WHERE scope = 'psa-purge' ORDER BY status, idempotency_key"))
        .rows;
    expect((await rows()).length).toBe(3);

    expect(await purgeFinishedOperations(db)).toBe(1);
    expect((await rows()).map((r) => r.idempotency_key).sort()).toEqual([kept, unknown].sort());
    expect(await purgeFinishedOperations(db)).toBe(0);
    // The recent one replays without a call; the unknown one goes to reconciliation, never straight to the PSP.
    await recentLog.once('capture', kept, ['t2'], psp.send, never);
    expect(psp.calls).toBe(2);
    let reconciled = 0;
    await old.once('refund', unknown, ['t3'], fault, async () => (reconciled++, { ok: true }));
    expect(reconciled).toBe(1);
  });

  it('keeps a keyed fingerprint of the parameters, never the parameters themselves', async () => {
    const k = randomUUID();
    await log.once('attach', k, ['4242424242424242', '123'], async () => ({ ok: true }), never);
    const { rows } = await db.query<{ fingerprint: string; result: unknown }>('SELECT fingerprint, result FROM psp_operations WHERE scope = $1 AND idempotency_key = $2', [
      'psa-1',
      k,
    ]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain('4242424242424242');
    expect(rows[0]!.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('PSP operation log, through a connector (Stripe against its fake)', () => {
  let h: StripeHarness;
  beforeAll(async () => {
    h = await stripeHarness();
  });
  afterAll(() => h?.teardown());

  it('a capture replayed by another instance answers the first outcome with one request to the PSP', async () => {
    const pm = await h.connector.attachPaymentMethod({ idempotencyKey: randomUUID(), card: h.cards.success });
    if (!pm.ok) throw new Error(pm.reason);
    const hold = await h.connector.authorize({
      idempotencyKey: randomUUID(),
      paymentMethodId: pm.paymentMethodId,
      amountCents: 900,
      currency: 'EUR',
      capture: 'manual',
      returnUrl: 'https://shop.example/r',
    });
    const input = { idempotencyKey: randomUUID(), transaction: { transactionId: hold.transactionId, pspState: hold.pspState ?? null }, amountCents: 900 };
    const captures = () => h.fake.requests.filter((r) => r.path.endsWith('/capture')).length;
    const before = captures();
    const first = await h.connector.capture(input);
    const again = await h.fresh().capture(input);
    expect(again).toEqual(first);
    expect(captures()).toBe(before + 1);
  });
});
