import type { Config } from '../config.ts';
import { parsePublicId } from '../domain/ids.ts';
import { releasePayoutHold } from '../use-cases/payouts/payout-bank-details.ts';
import { withDatabaseAndClock } from './command.ts';
import { PayoutCliError, type CliAnswer } from './payout-commands.ts';

/**
 * `chipin payout release --account acc_…`: the operator ends a merchant's cooling-off after an IBAN
 * change early (docs/money-operations.md#bank-details), on the service clock; the next run pays it.
 * Audited on the merchant's log (`payout_hold_release`, by `cli`).
 */
export async function releasePayoutHoldFromCli(config: Config, opts: { account?: unknown }): Promise<CliAnswer> {
  const accountId = typeof opts.account === 'string' ? parsePublicId('acc', opts.account) : undefined;
  if (!accountId) throw new PayoutCliError('--account must be acc_<uuid>');
  return withDatabaseAndClock(config, async (db, clock) => {
    const outcome = await releasePayoutHold({ db, clock }, accountId, { label: 'cli' });
    if (outcome.kind === 'not_held') throw new PayoutCliError(`${String(opts.account)}: no payouts held (no bank details change in its cooling-off)`);
    return {
      human: `${String(opts.account)}: payouts held until ${outcome.heldUntil.toISOString()} released: the next run pays them`,
      data: { account_id: opts.account, released: true, held_until: outcome.heldUntil.toISOString() },
    };
  });
}
