/**
 * A friend's payment racing the pot's deadline (pledge-deadline-race.test.ts, the plain card and
 * the races without the deadline; pledge-deadline-race-3ds.test.ts, the friend back from 3-D
 * Secure): the sandbox clock jumps past the deadline while the friend pays, and the jump runs the
 * deadline job and the reconciliation job. Every interleaving of the friend's payment with each
 * of them is forced with pause points on the real database, and the outcome is read at the
 * sandbox PSP: exactly one of "the share counts" and "the share is given back" wins for the
 * pledge, and the purchase keeps its amount. Two files of one (73-91 s in CI, near the 90 s
 * budget: docs/testing.md#the-budget).
 *
 * Everything is registered inside {@link deadlineRaceBed}: with `isolate: false` a worker imports
 * this module once for all the files it runs, so hooks at its top level would serve the first only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { findPledge, listPledges, type Pledge } from '../../src/payments/pledge-repository.ts';
import type { PaymentDeps } from '../../src/use-cases/deps.ts';
import { payAsLeader } from '../../src/use-cases/checkout/pay-as-leader.ts';
import { payPledge, resumePledgeAfterChallenge } from '../../src/use-cases/pot/pay-pledge.ts';
import { reconcilePayments } from '../../src/use-cases/reconciliation/reconcile-payments.ts';
import { settlePotDeadline } from '../../src/use-cases/pot/settle-pot-deadline.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { forEachInterleaving, runInterleaved, type Flow } from './interleavings.ts';
import { expectSettledTruthfully } from './psp-ledger.ts';
import { answerChallenge, card, CARDS, jumpingClock, newShop, type Shop } from './support.ts';

export const DAY = 24 * 3_600_000;
const ret = () => 'http://127.0.0.1:3000/return';

export interface DeadlineRaceBed {
  app: () => TestApp;
  shop: () => Shop;
  potWithFriendPaying(deps: PaymentDeps, how: 'plain' | '3ds'): Promise<{ id: string; friend: Flow }>;
  /** The forced races of a friend paying (`how`) with each job the deadline's clock jump runs. */
  describeDeadlineRace(how: 'plain' | '3ds'): void;
}

export function deadlineRaceBed(): DeadlineRaceBed {
  let app: TestApp;
  let shop: Shop;
  beforeAll(async () => {
    // No background job runs: the test runs the jobs itself, in the order it forces.
    app = await startTestApp({ jobPollIntervalMs: 0 });
    shop = await newShop(app);
  });
  afterAll(() => app.close());

  /**
   * The pot: €34.50, the leader pays €11.50 and holds €23.00; friend A pays €11.50;
   * friend B is about to pay (plain card), or has completed a 3-D Secure challenge and is coming
   * back from it.
   */
  async function potWithFriendPaying(deps: PaymentDeps, how: 'plain' | '3ds'): Promise<{ id: string; friend: Flow }> {
    const id = await shop.purchase({ amount: 3_450 });
    const led = await payAsLeader(
      deps,
      { id, accountId: shop.accountId },
      card(CARDS.ok),
      [
        { email: 'ann@example.com', amountCents: 1_150 },
        { email: 'bob@example.com', amountCents: 1_150 },
      ],
      ret,
    );
    expect(led.kind).toBe('processed');
    const [ann, bob] = await listPledges(app.services.db, shop.accountId, id);
    expect(await payPledge(deps, ann!, card(CARDS.ok), ret)).toEqual({ kind: 'paid' });
    if (how === 'plain') return { id, friend: (db) => payPledge({ ...deps, db }, bob!, card(CARDS.ok), ret) };
    const started = await payPledge(deps, bob!, card(CARDS.challenge), ret);
    if (started.kind !== 'challenge') throw new Error(`expected a challenge, got ${started.kind}`);
    await answerChallenge(app, started.url, 'complete');
    const returning: Pledge = (await findPledge(app.services.db, shop.accountId, bob!.id))!;
    return { id, friend: (db) => resumePledgeAfterChallenge({ ...deps, db }, returning, returning.paymentId!) };
  }

  const settlements = {
    'the deadline job': (deps: PaymentDeps, id: string) => settlePotDeadline(deps, shop.accountId, id),
    'the reconciliation job': (deps: PaymentDeps) => reconcilePayments(deps),
  };

  function describeDeadlineRace(how: 'plain' | '3ds'): void {
    describe(`a friend paying (${how}) as the clock jumps past the deadline`, () => {
      it.each(Object.keys(settlements) as (keyof typeof settlements)[])(
        'whatever the interleaving with %s, the pledge either counts or is given back, and the PSP keeps the amount',
        async (name) => {
          const settle = settlements[name];
          const friendAnswers = new Set<unknown>();
          const interleavings = await forEachInterleaving(async (schedule) => {
            const clock = jumpingClock(app.services.clock);
            const deps: PaymentDeps = { ...app.services.payments, clock };
            const { id, friend } = await potWithFriendPaying(deps, how);
            const run = await runInterleaved(
              app.services.db,
              [
                friend,
                async (db: Database) => {
                  clock.jump(2 * DAY + 60_000); // past the 48 h deadline, and past the friend's reservation
                  return settle({ ...deps, db }, id);
                },
              ],
              schedule,
            );
            for (const r of run.results) if (r.status === 'rejected') throw r.reason;
            friendAnswers.add((run.results[0] as PromiseFulfilledResult<{ kind: string }>).value.kind);
            // The rest of the story: every reservation over, the deadline run, nothing left unresolved.
            clock.jump(DAY);
            await settlePotDeadline(deps, shop.accountId, id);
            await reconcilePayments(deps);
            try {
              const { rows } = await app.services.db.query("SELECT id FROM payments WHERE purchase_id = $1 AND status IN ('pending', 'requires_action')", [id]);
              expect(rows).toEqual([]);
              expect((await app.services.db.query<{ state: string }>('SELECT state FROM purchases WHERE id = $1', [id])).rows[0]!.state).toBe('SUCCESSFUL');
              await expectSettledTruthfully(app.services.db, id, 3_450);
            } catch (err) {
              const answers = run.results.map((r) => (r.status === 'fulfilled' ? r.value : r.reason));
              throw Object.assign(err as Error, {
                message: `steps ${run.taken.join('')} (0: the friend, 1: the job), answers ${JSON.stringify(answers)}: ${(err as Error).message}`,
              });
            }
            return run;
          });
          // Both winners were forced: the friend's share counted (decided by the friend, or by the
          // job first: the friend then finds it decided), and, at the deadline, given back. A plain
          // payment is under its request's live lease while the friend pays, so the reconciliation
          // never takes it over (docs/money-operations.md#payments-in-doubt): the friend decides.
          expect(interleavings).toBeGreaterThan(5);
          expect(friendAnswers).toContain('paid');
          if (name === 'the deadline job') expect(friendAnswers).toContain('closed');
          else expect(friendAnswers).toEqual(how === 'plain' ? new Set(['paid']) : new Set(['paid', 'already_paid']));
        },
        120_000,
      );
    });
  }

  return { app: () => app, shop: () => shop, potWithFriendPaying, describeDeadlineRace };
}
