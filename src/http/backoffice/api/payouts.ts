import type { Services } from '../../../services.ts';
import type { DashboardGuard } from '../../dashboard-guard.ts';
import type { App } from '../../types.ts';
import { registerPayoutBalance } from './payouts/balance.ts';
import { registerPayoutBankDetailsRead } from './payouts/bank-details-read.ts';
import { registerPayoutBankDetailsSet } from './payouts/bank-details-set.ts';
import { registerPayoutLinesCsv } from './payouts/payout-lines-csv.ts';
import { registerPayoutList } from './payouts/payout-list.ts';
import { registerPayoutRead } from './payouts/payout-read.ts';

/**
 * Back office: transfer mode's money owed and paid out (docs/back-office.md#payouts): the balance
 * per currency, the payouts with their lines (JSON and CSV), and the bank details they are paid
 * to. Admins only (src/http/backoffice/roles.ts): the account's takings are finance's. Another account's
 * payout is a 404. One route a file in `payouts/`, registered in this order (the OpenAPI document
 * lists them so).
 */
export function registerBackofficePayouts(app: App, services: Services, guard: DashboardGuard): void {
  registerPayoutBalance(app, services, guard);
  registerPayoutList(app, services, guard);
  registerPayoutRead(app, services, guard);
  registerPayoutLinesCsv(app, services, guard);
  registerPayoutBankDetailsRead(app, services, guard);
  registerPayoutBankDetailsSet(app, services, guard);
}
