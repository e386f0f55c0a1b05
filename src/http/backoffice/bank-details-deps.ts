import type { Services } from '../../services.ts';
import { DEFAULT_PAYOUT_BANK_DETAILS_HOLD_HOURS } from '../../config.ts';
import type { BankDetailsDeps } from '../../use-cases/payouts/payout-bank-details.ts';

/**
 * What the back office's bank details page and API set them with: the service clock, the
 * cooling-off of PAYOUT_BANK_DETAILS_HOLD_HOURS, and the mailer that tells the account's admins of
 * each change (docs/money-operations.md#bank-details).
 */
export function bankDetailsDeps(services: Services, logger: { warn(obj: object, msg: string): void }): BankDetailsDeps {
  return {
    db: services.db,
    box: services.box,
    clock: services.clock,
    holdMs: (services.config.payoutBankDetailsHoldHours ?? DEFAULT_PAYOUT_BANK_DETAILS_HOLD_HOURS) * 3_600_000,
    mailer: { mailer: services.mailer, logger },
  };
}
