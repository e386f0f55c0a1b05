/**
 * A friend paying by plain card as the pot's deadline passes, and the races of a friend's 3-D Secure
 * return without the deadline (./pledge-deadline-bed.ts says what every race here forces).
 */
import { expect, it } from 'vitest';
import type { PaymentDeps } from '../../src/use-cases/deps.ts';
import { reconcilePayments } from '../../src/use-cases/reconciliation/reconcile-payments.ts';
import { settlePotDeadline } from '../../src/use-cases/pot/settle-pot-deadline.ts';
import { forEachInterleaving, runInterleaved } from './interleavings.ts';
import { deadlineRaceBed, DAY } from './pledge-deadline-bed.ts';
import { expectSettledTruthfully } from './psp-ledger.ts';
import { jumpingClock } from './support.ts';

const bed = deadlineRaceBed();
const { potWithFriendPaying } = bed;

bed.describeDeadlineRace('plain');

// The same race without the deadline: the friend's browser comes back from 3-D Secure twice
// (a reload, a double submit), each return reading the pledge before the other recorded it.
it('two returns of the friend from 3-D Secure, in any interleaving: the share counts once and nothing is given back', async () => {
  const answers = new Set<unknown>();
  const interleavings = await forEachInterleaving(async (schedule) => {
    const deps = bed.app().services.payments;
    const { id, friend } = await potWithFriendPaying(deps, '3ds');
    const run = await runInterleaved(bed.app().services.db, [friend, friend], schedule);
    for (const r of run.results) if (r.status === 'rejected') throw r.reason;
    for (const r of run.results) answers.add((r as PromiseFulfilledResult<{ kind: string }>).value.kind);
    expect((await bed.app().services.db.query<{ state: string }>('SELECT state FROM purchases WHERE id = $1', [id])).rows[0]!.state).toBe('SUCCESSFUL');
    await expectSettledTruthfully(bed.app().services.db, id, 3_450);
    return run;
  });
  expect(interleavings).toBeGreaterThan(2);
  expect(answers).toEqual(new Set(['paid', 'already_paid']));
}, 60_000);

it('a give-back cut short by a PSP fault leaves the payment unresolved; the reconciliation job finishes it once, unannounced', async () => {
  const clock = jumpingClock(bed.app().services.clock);
  const deps: PaymentDeps = { ...bed.app().services.payments, clock };
  const { id } = await potWithFriendPaying(deps, '3ds'); // the friend completed the challenge and never came back
  // The PSP cannot be reached for refunds while the deadline job runs.
  const unreachable: PaymentDeps['psps'] = {
    forOffer: (offer) => deps.psps.forOffer(offer),
    definition: (name) => deps.psps.definition(name),
    forPayment: async (payment) => {
      const connector = await deps.psps.forPayment(payment);
      return new Proxy(connector, {
        get(target, prop) {
          if (prop === 'refund') return async () => Promise.reject(new Error('connect ECONNREFUSED'));
          const value: unknown = Reflect.get(target, prop, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    },
  };
  clock.jump(2 * DAY + 60_000);
  await expect(settlePotDeadline({ ...deps, psps: unreachable }, bed.shop().accountId, id)).rejects.toThrow('ECONNREFUSED');
  const friendPayment = async () =>
    (
      await bed
        .app()
        .services.db.query<{ status: string; pledge: string }>(
          'SELECT p.status, pl.state AS pledge FROM payments p JOIN pledges pl ON pl.id = p.pledge_id WHERE p.purchase_id = $1 AND pl.position = 1',
          [id],
        )
    ).rows[0]!;
  expect(await friendPayment()).toEqual({ status: 'requires_action', pledge: 'closed' });
  // The job runs again (it charges the leader the friend's share); the reconciliation gives the friend's money back.
  expect(await settlePotDeadline(deps, bed.shop().accountId, id)).toEqual({ kind: 'rest_charged', restCents: 1_150 });
  clock.jump(DAY);
  await reconcilePayments(deps);
  await reconcilePayments(deps);
  expect(await friendPayment()).toEqual({ status: 'refunded', pledge: 'closed' });
  await expectSettledTruthfully(bed.app().services.db, id, 3_450);
});
