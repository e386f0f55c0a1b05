import type { Services } from '../../../services.ts';
import type { DashboardGuard } from '../../dashboard-guard.ts';
import type { App } from '../../types.ts';
import { registerReconciliationMismatchList } from './reconciliation/mismatch-list.ts';
import { registerReconciliationMismatchUpdate } from './reconciliation/mismatch-update.ts';
import { registerReconciliationRunCreate } from './reconciliation/run-create.ts';
import { registerReconciliationRunList } from './reconciliation/run-list.ts';

/**
 * Back office: the reconciliation with the PSPs (docs/money-operations.md#reconciliation): run a
 * period, list the runs and the mismatches they found, mark one explained or resolved. One route
 * a file in `reconciliation/`, registered in this order (the OpenAPI document lists them so).
 */
export function registerBackofficeReconciliation(app: App, services: Services, guard: DashboardGuard): void {
  registerReconciliationRunCreate(app, services, guard);
  registerReconciliationRunList(app, services, guard);
  registerReconciliationMismatchList(app, services, guard);
  registerReconciliationMismatchUpdate(app, services, guard);
}
