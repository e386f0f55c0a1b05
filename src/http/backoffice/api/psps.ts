import { catalogueOf } from '../../../psp/catalogue.ts';
import type { Services } from '../../../services.ts';
import type { DashboardGuard } from '../../dashboard-guard.ts';
import type { App } from '../../types.ts';
import { registerPspAccountCreate } from './psps/account-create.ts';
import { registerPspAccountDelete } from './psps/account-delete.ts';
import { registerPspAccountList } from './psps/account-list.ts';
import { registerPspAccountRead } from './psps/account-read.ts';
import { registerPspAccountUpdate } from './psps/account-update.ts';
import { registerPspAccountVerify } from './psps/account-verify.ts';
import { registerPspCatalogue } from './psps/catalogue.ts';
import { registerPspConnectors } from './psps/connectors.ts';

/**
 * Back office, back mode (docs/psp-connectors.md#psp-accounts): the PSP connectors of this build
 * and the account's own PSP accounts. Credentials are validated against the connector's credential
 * kind, checked with one harmless call to the PSP (unless `?verify=false`), sealed at rest, and
 * never returned: secrets read as `…` and their last 4 characters. One route a file in `psps/`,
 * registered in this order (the OpenAPI document lists them so).
 */
export function registerBackofficePsps(app: App, services: Services, guard: DashboardGuard): void {
  // The catalogue as this build reaches it: a route whose connector is missing reads not_yet.
  const catalogue = catalogueOf(services.psps.definitions.map((d) => d.name));
  registerPspConnectors(app, services, guard, catalogue);
  registerPspCatalogue(app, guard, catalogue);
  registerPspAccountCreate(app, services, guard);
  registerPspAccountList(app, services, guard);
  registerPspAccountRead(app, services, guard);
  registerPspAccountUpdate(app, services, guard);
  registerPspAccountVerify(app, services, guard);
  registerPspAccountDelete(app, services, guard);
}
