import type { Services } from '../../../services.ts';
import type { DashboardSessions } from '../../../staff/sessions.ts';
import type { App } from '../../types.ts';
import { registerPspAccountsAccount } from './psp-accounts/account.ts';
import { registerPspAccountsChange } from './psp-accounts/change.ts';
import { registerPspAccountsCreate } from './psp-accounts/create.ts';
import { registerPspAccountsDelete } from './psp-accounts/delete.ts';
import { registerPspAccountsList } from './psp-accounts/list.ts';

/**
 * Back office: the account's PSP accounts (back mode), through the use cases of
 * `/api/backoffice/psp_accounts`: the same checks (fields, patterns, the credentials verified
 * with the PSP unless unticked), sealed at rest, secrets never shown again. Admins only (the
 * `/dashboard/psp-accounts` prefix, src/http/backoffice/roles.ts). One route or small family a
 * file in `psp-accounts/`, what they share in its `support.ts`, registered in this order.
 */
export function registerDashboardPspAccounts(app: App, services: Services, sessions: DashboardSessions): void {
  registerPspAccountsList(app, services, sessions);
  registerPspAccountsCreate(app, services, sessions);
  registerPspAccountsDelete(app, services, sessions);
  registerPspAccountsAccount(app, services, sessions);
  registerPspAccountsChange(app, services, sessions);
}
