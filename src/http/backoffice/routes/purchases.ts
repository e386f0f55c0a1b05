import type { Services } from '../../../services.ts';
import type { DashboardSessions } from '../../../staff/sessions.ts';
import type { App } from '../../types.ts';
import { registerPurchasesCancel } from './purchases/cancel.ts';
import { registerPurchasesExportCsv } from './purchases/export-csv.ts';
import { registerPurchasesList } from './purchases/list.ts';
import { registerPurchasesPurchase } from './purchases/purchase.ts';
import { registerPurchasesRefund } from './purchases/refund.ts';

/**
 * Back office: the purchases list and a purchase's page, with its refund and cancel actions.
 * The actions call the same use cases as the API (refundPurchase, cancelPurchase), each through
 * one confirmation step: the first POST shows what will happen, the second (`confirm=yes`) does it.
 * Every read and action is scoped to the session's account: another account's purchase is a 404.
 * One route a file in `purchases/`, what they share in its `support.ts`, registered in this order.
 */
export function registerDashboardPurchases(app: App, services: Services, sessions: DashboardSessions): void {
  registerPurchasesList(app, services, sessions);
  registerPurchasesExportCsv(app, services, sessions);
  registerPurchasesPurchase(app, services, sessions);
  registerPurchasesRefund(app, services, sessions);
  registerPurchasesCancel(app, services, sessions);
}
